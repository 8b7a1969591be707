"""Admin for notification channels (write-only URL and key, a Test button) and their delivery log (read-only)."""

from __future__ import annotations

from django import forms
from django.contrib import admin, messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect
from django.urls import reverse
from django.utils.decorators import method_decorator
from django.views.decorators.debug import sensitive_post_parameters

from monitor.alerts.adminbuttons import SaveThenTest
from monitor.alerts.channelpost import NotDelivered, redact
from monitor.alerts.channels import send_again, send_test
from monitor.alerts.models import Channel, Delivery
from monitor.alerts.secretbinding import keep_bound, url_moved
from monitor.core.adminsecrets import HiddenSecretsAdmin

KEEP = "Leave empty to keep the stored value."
CLEAR_KEY = "Clear the stored signing key"


class ChannelForm(forms.ModelForm):
    """The URL (a credential for Slack and Teams) and the signing key render empty; empty keeps what is stored."""

    url = forms.CharField(label="URL", required=False, widget=forms.PasswordInput(render_value=False), strip=True)
    secret = forms.CharField(required=False, widget=forms.PasswordInput(render_value=False), strip=False)
    clear_secret = forms.BooleanField(label=CLEAR_KEY, required=False)

    class Meta:
        model = Channel
        fields = ["name", "kind", "url", "secret", "clear_secret", "enabled", "timeout_s"]

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        for name, text in (
            ("url", "https://... the receiver's webhook URL."),
            ("secret", Channel.secret.field.help_text),
        ):
            stored = bool(self.instance.pk and getattr(self.instance, name))
            self.fields[name].help_text = f"{text} A value is stored. {KEEP}" if stored else text

    def clean(self) -> dict:
        data = super().clean()
        if not data.get("url") and self.instance.pk:
            data["url"] = self.instance.url
        if not data.get("url"):
            self.add_error("url", "Enter the webhook's http:// or https:// URL.")

        def moved() -> list[str]:
            return url_moved(self.instance.url, data["url"]) if data.get("url") else []

        keep_bound(self, data, "secret", "key", "signing key", "receiver", CLEAR_KEY, moved)
        return data


@admin.register(Channel)
class ChannelAdmin(HiddenSecretsAdmin, SaveThenTest, admin.ModelAdmin):
    form = ChannelForm
    list_display = ("name", "kind", "enabled", "timeout_s")
    change_form_template = "admin/alerts/channel/change_form.html"
    secret_fields = {"url": "URL", "secret": "Secret"}  # a view-only user sees whether they are stored, not what
    write_only_fields = ("clear_secret",)

    @method_decorator(sensitive_post_parameters("url", "secret"))
    def changeform_view(self, request: HttpRequest, object_id=None, form_url="", extra_context=None) -> HttpResponse:
        return super().changeform_view(request, object_id, form_url, extra_context)

    def save_model(self, request: HttpRequest, obj: Channel, form: ChannelForm, change: bool) -> None:
        obj.url, obj.secret = form.cleaned_data["url"], form.cleaned_data.get("secret") or ""
        super().save_model(request, obj, form, change)

    def _send_test(self, request: HttpRequest, obj: Channel) -> HttpResponse:
        """Send a test message through the settings just saved; say what the receiver answered."""
        try:
            said = send_test(obj, request.user.get_username())
        except NotDelivered as exc:
            self.message_user(request, f"Saved. Test message NOT delivered: {redact(str(exc), obj)}", messages.ERROR)
        else:
            self.message_user(request, f"Saved. Test message {said}.", messages.SUCCESS)
        return redirect(reverse("admin:alerts_channel_change", args=[obj.pk]))


@admin.register(Delivery)
class DeliveryAdmin(admin.ModelAdmin):
    """The delivery log: every event sent (or waiting) per channel, with attempts and the receiver's answer."""

    list_display = ("created_at", "channel", "event", "status", "attempts", "last_status", "sent_at", "last_error")
    list_filter = ("status", "channel")
    search_fields = ("event__device__name", "event__rule__name", "channel__name")
    actions = ["send_again"]

    @admin.action(description="Send the selected deliveries again (given up or waiting)", permissions=["resend"])
    def send_again(self, request: HttpRequest, queryset) -> None:
        """Once a channel is fixed, what it gave up on goes out again (now, and retried as any delivery)."""
        from monitor.alerts.evaluator import _kick_sender

        count = send_again(queryset)
        if count:
            _kick_sender()
        noun = "delivery" if count == 1 else "deliveries"
        self.message_user(request, f"{count} {noun} queued to be sent again.", messages.SUCCESS)

    def has_resend_permission(self, request: HttpRequest) -> bool:
        return request.user.has_perm("alerts.change_channel")

    def has_add_permission(self, request) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False
