"""The device form: write-only secrets bound to where they were entered, and cross-field checks with messages next
to the field."""

from __future__ import annotations

import socket

from django import forms

from collectors.snmptypes import SnmpError, SnmpTimeout
from monitor.core.formfields import SecretField
from monitor.devices import credentials, devicetest
from monitor.devices.credentials import MAX_SECRET, SECRET_FIELDS
from monitor.devices.profiles import choices as profile_choices
from monitor.models import Device

KEEP_HINT = (
    "Leave empty to keep it; type it again when you change the host, port, SNMP version, "
    "SNMPv3 user or protocols (it is only sent where it was entered)."
)


def secret_field(label: str | None = None) -> SecretField:
    """A device secret's input: ASCII of a size SNMP carries."""
    return SecretField(label=label, max_length=MAX_SECRET, validators=[credentials.printable_ascii])


ADMIN_SKIP = 'tick "Save without testing"'  # how the admin form saves a device it cannot reach; callers name theirs


class DeviceForm(forms.ModelForm):
    """Secrets render as empty password inputs; an empty input keeps what is stored unless the device moves."""

    community = secret_field("Community")
    v3_auth_key = secret_field("Auth key")
    v3_priv_key = secret_field("Privacy key")

    skip_test = forms.BooleanField(
        label="Save without testing",
        required=False,
        help_text="Save even though the device cannot be reached now (it will be discovered when it answers).",
    )

    class Meta:
        model = Device
        fields = [
            "name",
            "host",
            "port",
            "snmp_version",
            "community",
            "v3_user",
            "v3_security_level",
            "v3_auth_protocol",
            "v3_auth_key",
            "v3_priv_protocol",
            "v3_priv_key",
            "timeout_s",
            "retries",
            "max_repetitions",
            "poll_interval_s",
            "enabled",
            "poller_group",
            "pinned_profile",
        ]

    def __init__(self, *args, skip_hint: str = ADMIN_SKIP, **kwargs):
        super().__init__(*args, **kwargs)
        self.discovery = None
        self.skip_hint = skip_hint  # the caller's own way to save without testing (a CLI flag, an API field)
        # The admin builds a view-only user's form with every model field left out: dress only the fields it has.
        if "pinned_profile" in self.fields:
            self.fields["pinned_profile"] = forms.ChoiceField(
                label="Profile",
                required=False,
                choices=[("", "automatic (discovery chooses)"), *profile_choices()],
                help_text="Pin a profile when discovery chooses the wrong one.",
            )
        if "v3_user" in self.fields:
            self.fields["v3_user"].validators.append(credentials.short_v3_user)
        for name in SECRET_FIELDS:
            if name not in self.fields:
                continue
            stored = getattr(self.instance, name, "") if self.instance.pk else ""
            self.fields[name].help_text = f"A value is stored. {KEEP_HINT}" if stored else "Not set."
            self.initial[name] = ""  # the plain value stays out of the form (rendering, changed_data, history)

    def clean_host(self) -> str:
        host = self.cleaned_data["host"].strip().strip("[]")
        try:
            socket.getaddrinfo(host, None)
        except (socket.gaierror, UnicodeError):
            raise forms.ValidationError(f"{host!r} does not resolve to an address.") from None
        return host

    def clean(self) -> dict:
        data = super().clean()
        self._stored_secrets(data)
        version = data.get("snmp_version")
        if version in ("1", "2c") and not data.get("community"):
            self._refuse("community", "A community is needed for SNMP v1 and v2c.")
        if version == "3":
            self._clean_v3(data)
        self._refuse_duplicate(data)
        return data

    def _refuse_duplicate(self, data: dict) -> None:
        """Two devices at one host and port with one community (or v3 user) make every trap and syslog line from
        there ambiguous (none stored): refused, naming the device that has them (never the community)."""
        host, port, version = data.get("host"), data.get("port"), data.get("snmp_version")
        if not host or port is None or self.errors:
            return
        for other in Device.objects.filter(host__iexact=host, port=port).exclude(pk=self.instance.pk):
            if version == "3" and other.snmp_version == "3":
                same, what = other.v3_user == data.get("v3_user"), "SNMPv3 user"
            else:
                same = version != "3" and other.snmp_version != "3" and other.community == data.get("community")
                what = "community"
            if same:
                self.add_error(
                    "host",
                    f"Device {other.name!r} (id {other.pk}{'' if other.enabled else ', disabled'}) has this host, port "
                    f"and {what} already: traps and syslog from {host} could not be told apart. Use another port or "
                    f"{what}, or change that device.",
                )
                return

    def _stored_secrets(self, data: dict) -> None:
        """An empty secret keeps the stored one while the device stays where it was entered for; once the change
        moves it (credentials.moved) the stored secrets are dropped, and those the settings use must be typed again."""
        if not self.instance.pk:
            return
        changes = credentials.moved(self.instance, data)
        needed = credentials.used(data)
        for name in SECRET_FIELDS:
            if data.get(name) or name in self.errors:
                continue
            if not changes:
                data[name] = getattr(self.instance, name)
            elif name in needed:
                self._refuse(name, credentials.retype_message(name, changes))
            else:
                data[name] = ""  # entered for the old place; not used here; not kept for later either

    def _refuse(self, name: str, message: str) -> None:
        """One message per field: the first reason given is the one the user acts on."""
        if name not in self.errors:
            self.add_error(name, message)

    def _post_clean(self) -> None:
        """Test the device only once every check has passed (the model's too, such as a unique name), so a change
        that is refused anyway sends nothing anywhere."""
        super()._post_clean()
        if not self.errors and not self.cleaned_data.get("skip_test"):
            self._test_device(self.cleaned_data)

    def _test_device(self, data: dict) -> None:
        """Talk to the device; a failure is reported next to the field it concerns and nothing is saved."""
        model_fields = {f.name for f in Device._meta.concrete_fields}
        candidate = Device(**{f: v for f, v in data.items() if f in model_fields})
        target = candidate.snmp_target()
        try:
            self.discovery = devicetest.run_discovery(target, data.get("pinned_profile") or "")
        except SnmpError as exc:
            message = str(exc)
            if isinstance(exc, SnmpTimeout):
                message += f". Check the host, port and credentials, or {self.skip_hint}."
            self.add_error(devicetest.field_for_error(target, exc), message)
            return
        if not devicetest.useful(self.discovery):
            self.add_error(
                None, "The agent answers but serves no interfaces and no profile matches it: nothing useful to monitor."
            )

    def _clean_v3(self, data: dict) -> None:
        level = data.get("v3_security_level")
        if not data.get("v3_user"):
            self.add_error("v3_user", "SNMPv3 needs a user name.")
        if level in (Device.SecurityLevel.AUTH, Device.SecurityLevel.AUTH_PRIV):
            if not data.get("v3_auth_protocol"):
                self.add_error("v3_auth_protocol", "Choose an auth protocol for this security level.")
            if len(data.get("v3_auth_key") or "") < 8:
                self._refuse("v3_auth_key", "The auth key must be at least 8 characters.")
        if level == Device.SecurityLevel.AUTH_PRIV:
            if not data.get("v3_priv_protocol"):
                self.add_error("v3_priv_protocol", "Choose a privacy protocol for authPriv.")
            if len(data.get("v3_priv_key") or "") < 8:
                self._refuse("v3_priv_key", "The privacy key must be at least 8 characters.")

    def save(self, commit: bool = True) -> Device:
        for name in SECRET_FIELDS:
            setattr(self.instance, name, self.cleaned_data.get(name) or "")
        return super().save(commit=commit)


class ImportForm(forms.Form):
    """The admin's CSV upload (monitor.devices.importing says which columns)."""

    file = forms.FileField(help_text="CSV with a header line: name,host,version,community,interval,group,tree,...")
    skip_test = forms.BooleanField(
        label="Save devices that cannot be reached now", required=False, help_text="Otherwise such rows are refused."
    )
