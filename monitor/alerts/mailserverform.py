"""The mail server form: a write-only password (empty keeps it, a tick box clears it) and checked fields."""

from __future__ import annotations

import ipaddress
import re
from email.utils import parseaddr

from django import forms
from django.core.exceptions import ValidationError
from django.core.validators import validate_email

from monitor.alerts.models import MailServer
from monitor.alerts.secretbinding import keep_bound, mail_moved

LABEL = re.compile(r"(?!-)[A-Za-z0-9-]{1,63}(?<!-)\Z")
KEEP_HINT = "Leave empty to keep the stored password."
CLEAR_LABEL = "Clear the stored password"


def valid_host(host: str) -> bool:
    """A DNS name (letters, digits, hyphens, dots) or an IPv4/IPv6 address; syntax only, no lookup."""
    try:
        ipaddress.ip_address(host)
        return True
    except ValueError:
        pass
    labels = host[:-1].split(".") if host.endswith(".") else host.split(".")
    return len(host) <= 253 and all(LABEL.match(label) for label in labels) and not labels[-1].isdigit()


class MailServerForm(forms.ModelForm):
    """The password renders as an empty password input; the stored one is kept unless replaced or cleared."""

    password = forms.CharField(required=False, widget=forms.PasswordInput(render_value=False), strip=False)
    clear_password = forms.BooleanField(label=CLEAR_LABEL, required=False)

    class Meta:
        model = MailServer
        fields = ["host", "port", "security", "timeout_s", "username", "password", "from_email"]

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        stored = bool(self.instance.pk and self.instance.password)
        self.fields["password"].help_text = f"A password is stored. {KEEP_HINT}" if stored else "Not set."
        self.fields["port"].widget.attrs.update(min=1, max=65535)

    def clean_host(self) -> str:
        host = self.cleaned_data["host"].strip()
        host = host[1:-1] if host.startswith("[") and host.endswith("]") else host
        if host and not valid_host(host):
            raise ValidationError("Enter a host name (smtp.example.com) or an IP address.")
        return host

    def clean_from_email(self) -> str:
        value = self.cleaned_data["from_email"].strip()
        if not value:
            return value
        _name, address = parseaddr(value)
        try:
            validate_email(address)
        except ValidationError:
            raise ValidationError(
                "Enter an email address, e.g. monitor@example.com or SNMP monitor <monitor@example.com>."
            ) from None
        return value

    def clean(self) -> dict:
        data = super().clean()
        typed = data.get("password")
        keep_bound(self, data, "password", "password", "password", "mail server", CLEAR_LABEL,
                   lambda: mail_moved(self.instance, data))  # fmt: skip
        if typed and not data.get("username"):
            self.add_error("username", "A password needs the user it belongs to (without a user no login is tried).")
        return data
