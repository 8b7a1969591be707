"""The device form: write-only secrets and cross-field checks with messages next to the field."""

from __future__ import annotations

import socket

from django import forms

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
        ]

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
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
        return data

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
