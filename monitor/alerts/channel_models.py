"""Notification channels beside mail (webhook, Slack, Microsoft Teams) and one delivery row per event and channel:
sending claims the row, so each channel gets each message once, and one failing channel holds back no other."""

from __future__ import annotations

from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models

from monitor.core.secrets import EncryptedTextField


class Channel(models.Model):
    class Kind(models.TextChoices):
        WEBHOOK = "webhook", "Webhook (JSON, HMAC-SHA256 signed)"
        SLACK = "slack", "Slack incoming webhook"
        TEAMS = "teams", "Microsoft Teams (Workflows webhook)"

    name = models.CharField(max_length=100, unique=True)
    kind = models.CharField(max_length=10, choices=Kind.choices, default=Kind.WEBHOOK)
    # Slack and Teams webhook URLs are credentials themselves: stored encrypted, never shown back.
    url = EncryptedTextField("URL", help_text="https://... (http:// for a receiver on the local network).")
    secret = EncryptedTextField(
        blank=True, default="", help_text="Webhook: the key of the X-Monitor-Signature HMAC. Empty: not signed."
    )
    enabled = models.BooleanField(default=True)
    timeout_s = models.PositiveSmallIntegerField(default=10, validators=[MinValueValidator(1), MaxValueValidator(60)])

    class Meta:
        ordering = ["name"]

    def __str__(self) -> str:
        return f"{self.name} ({self.get_kind_display()})"

    def clean(self) -> None:
        """An http(s) URL to a host the monitor may send to (monitor.alerts.webhookaddress)."""
        from urllib.parse import urlsplit

        from django.core.exceptions import ValidationError
        from django.core.validators import URLValidator

        from monitor.alerts.webhookaddress import host_refusal

        try:
            URLValidator(schemes=["http", "https"])(self.url or "")
            parts = urlsplit(self.url)
            refused = host_refusal(parts.hostname or "")
        except (ValidationError, ValueError):
            raise ValidationError({"url": "Enter the webhook's http:// or https:// URL."}) from None
        if parts.username is not None:
            raise ValidationError({"url": "Put no user name or password in the URL: the sender does not use them."})
        if refused:
            raise ValidationError({"url": f"{refused[0].upper()}{refused[1:]}."})


class Delivery(models.Model):
    """One event for one channel: queued until the receiver takes it (HTTP 2xx), retried with back-off; given up
    (failed) when it cannot succeed (a 4xx refusal, a malformed or refused URL) until an admin sends it again."""

    class Status(models.TextChoices):
        QUEUED = "queued", "waiting to be sent"
        SENT = "sent", "sent"
        FAILED = "failed", "given up (send it again once the channel is fixed)"

    event = models.ForeignKey("alerts.Event", on_delete=models.CASCADE, related_name="deliveries")
    channel = models.ForeignKey(Channel, on_delete=models.CASCADE, related_name="deliveries")
    status = models.CharField(max_length=8, choices=Status.choices, default=Status.QUEUED, db_index=True)
    attempts = models.PositiveIntegerField(default=0)
    next_attempt_at = models.DateTimeField(null=True, blank=True)
    claimed_by = models.CharField(max_length=100, blank=True, default="")
    claimed_until = models.DateTimeField(null=True, blank=True)
    sent_at = models.DateTimeField(null=True, blank=True)
    last_status = models.PositiveSmallIntegerField(null=True, blank=True, help_text="The receiver's last HTTP status.")
    last_error = models.TextField(blank=True, default="")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-id"]
        verbose_name_plural = "deliveries"
        constraints = [models.UniqueConstraint(fields=["event", "channel"], name="one_delivery_per_event_channel")]

    def __str__(self) -> str:
        return f"{self.event} → {self.channel.name}"
