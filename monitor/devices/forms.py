"""The device form: write-only secrets and cross-field checks with messages next to the field."""

from __future__ import annotations

import socket

from django import forms

from collectors.snmptypes import SnmpError, SnmpTimeout
from monitor.devices import devicetest
from monitor.devices.profiles import choices as profile_choices
from monitor.models import Device

SECRET_FIELDS = ("community", "v3_auth_key", "v3_priv_key")
KEEP_HINT = "Leave empty to keep the stored value."


class DeviceForm(forms.ModelForm):
    """Secrets render as empty password inputs; an empty input keeps what is stored."""

    community = forms.CharField(required=False, widget=forms.PasswordInput(render_value=False), strip=False)
    v3_auth_key = forms.CharField(
        label="Auth key", required=False, widget=forms.PasswordInput(render_value=False), strip=False
    )
    v3_priv_key = forms.CharField(
        label="Privacy key", required=False, widget=forms.PasswordInput(render_value=False), strip=False
    )

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

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.discovery = None
        self.fields["pinned_profile"] = forms.ChoiceField(
            label="Profile",
            required=False,
            choices=[("", "automatic (discovery chooses)"), *profile_choices()],
            help_text="Pin a profile when discovery chooses the wrong one.",
        )
        for name in SECRET_FIELDS:
            stored = getattr(self.instance, name, "") if self.instance.pk else ""
            self.fields[name].help_text = f"A value is stored. {KEEP_HINT}" if stored else "Not set."

    def clean_host(self) -> str:
        host = self.cleaned_data["host"].strip().strip("[]")
        try:
            socket.getaddrinfo(host, None)
        except (socket.gaierror, UnicodeError):
            raise forms.ValidationError(f"{host!r} does not resolve to an address.") from None
        return host

    def clean(self) -> dict:
        data = super().clean()
        for name in SECRET_FIELDS:
            if not data.get(name) and self.instance.pk:
                data[name] = getattr(self.instance, name)
        version = data.get("snmp_version")
        if version in ("1", "2c") and not data.get("community"):
            self.add_error("community", "A community is needed for SNMP v1 and v2c.")
        if version == "3":
            self._clean_v3(data)
        if not self.errors and not data.get("skip_test"):
            self._test_device(data)
        return data

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
                message += '. Check the host, port and credentials, or tick "Save without testing".'
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
                self.add_error("v3_auth_key", "The auth key must be at least 8 characters.")
        if level == Device.SecurityLevel.AUTH_PRIV:
            if not data.get("v3_priv_protocol"):
                self.add_error("v3_priv_protocol", "Choose a privacy protocol for authPriv.")
            if len(data.get("v3_priv_key") or "") < 8:
                self.add_error("v3_priv_key", "The privacy key must be at least 8 characters.")

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
