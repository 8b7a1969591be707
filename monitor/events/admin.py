"""Admin: events read-only, trap credentials per device (secrets write-only, never shown), the receivers and their
counts."""

from __future__ import annotations

from django import forms
from django.contrib import admin

from monitor.core.adminsecrets import HiddenSecretsAdmin
from monitor.events.models import Event, Receiver, ReceiverCount, TrapCredential

SECRETS = ("community", "v3_auth_key", "v3_priv_key")


class TrapCredentialForm(forms.ModelForm):
    """Secrets are write-only, as on the device form: never shown back; empty keeps the stored value."""

    community = forms.CharField(required=False, widget=forms.PasswordInput(render_value=False), strip=False)
    v3_auth_key = forms.CharField(
        label="Auth key", required=False, widget=forms.PasswordInput(render_value=False), strip=False
    )
    v3_priv_key = forms.CharField(
        label="Privacy key", required=False, widget=forms.PasswordInput(render_value=False), strip=False
    )

    class Meta:
        model = TrapCredential
        fields = [
            "device",
            "community",
            "v3_user",
            "v3_engine_id",
            "v3_auth_protocol",
            "v3_auth_key",
            "v3_priv_protocol",
            "v3_priv_key",
        ]

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        for name in SECRETS:
            if self.instance.pk and getattr(self.instance, name):
                self.fields[name].help_text = "A value is stored; leave empty to keep it."

    def clean_v3_engine_id(self) -> str:
        value = self.cleaned_data.get("v3_engine_id", "").strip().lower().removeprefix("0x")
        if value and (len(value) % 2 or not 10 <= len(value) <= 64 or any(c not in "0123456789abcdef" for c in value)):
            raise forms.ValidationError(
                "An engine ID is 5 to 32 bytes in hex, for example 0x80001f8880e9630000d61ff449."
            )
        return value

    def clean(self) -> dict:
        data = super().clean()
        for name in SECRETS:
            if not data.get(name) and self.instance.pk:
                data[name] = getattr(self.instance, name)
        for name in ("v3_auth_key", "v3_priv_key"):
            if data.get(name) and len(data[name]) < 8:
                self.add_error(name, "SNMPv3 keys have at least 8 characters.")
        if data.get("v3_priv_key") and not data.get("v3_auth_key"):
            self.add_error("v3_auth_key", "Privacy needs authentication: set the auth key too.")
        return data


@admin.register(TrapCredential)
class TrapCredentialAdmin(HiddenSecretsAdmin, admin.ModelAdmin):
    """Editors type the secrets in write-only inputs; a view-only user sees whether each is stored, never its value."""

    form = TrapCredentialForm
    secret_fields = {"community": "Community", "v3_auth_key": "Auth key", "v3_priv_key": "Privacy key"}
    list_display = ["device", "v3_user", "v3_engine_id"]
    search_fields = ["device__name", "v3_user"]


@admin.register(Event)
class EventAdmin(admin.ModelAdmin):
    list_display = ["time", "device", "port", "kind", "severity", "text"]
    list_filter = ["source", "kind", "severity"]
    search_fields = ["text", "device__name", "port"]
    date_hierarchy = "time"
    list_select_related = ["device"]

    def has_add_permission(self, request) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False


class ReceiverCountInline(admin.TabularInline):
    model = ReceiverCount
    extra = 0
    readonly_fields = ["reason", "count", "last_at", "note"]
    can_delete = False


@admin.register(Receiver)
class ReceiverAdmin(admin.ModelAdmin):
    list_display = ["name", "kind", "started_at", "last_seen"]
    readonly_fields = ["name", "kind", "started_at", "last_seen"]
    inlines = [ReceiverCountInline]

    def has_add_permission(self, request) -> bool:
        return False
