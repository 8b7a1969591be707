"""Rules, their per-target state, every state change (the mail outbox) and maintenance windows."""

from __future__ import annotations

from django.conf import settings
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models

from monitor.alerts.rules import EVENT, METRIC_CHOICES
from monitor.core.secrets import EncryptedTextField
from monitor.events.kinds import RULE_KINDS, SEVERITY_CHOICES
from monitor.models import Device


class Rule(models.Model):
    """What to watch (a metric over a scope) and when it fires, clears, repeats and who is told."""

    class Scope(models.TextChoices):
        SERIES = "series", "one series of one device (a port, a volume, a sensor)"
        DEVICE = "device", "every series of the metric on one device"
        PROFILE = "profile", "every device of a profile"
        ALL = "all", "every device"
        BRANCH = "branch", "every device under a tree branch"

    class Direction(models.TextChoices):
        ABOVE = "above", "above"
        BELOW = "below", "below"

    class Unit(models.TextChoices):
        ABSOLUTE = "absolute", "absolute value"
        PERCENT = "percent", "percent of port speed"
        WARNING = "warning", "offset from the device's own warning threshold"

    name = models.CharField(max_length=200)
    metric = models.CharField(max_length=40, choices=METRIC_CHOICES)
    scope = models.CharField(max_length=10, choices=Scope.choices, default=Scope.DEVICE)
    device = models.ForeignKey(Device, null=True, blank=True, on_delete=models.CASCADE, related_name="alert_rules")
    instance = models.CharField(
        max_length=255, blank=True, default="", help_text="Port, volume or sensor name (one-series scope only)."
    )
    profile = models.CharField(max_length=100, blank=True, default="")
    branch = models.CharField(max_length=100, blank=True, default="", help_text="Tree branch id (branch scope).")
    direction = models.CharField(max_length=5, choices=Direction.choices, default=Direction.ABOVE)
    unit = models.CharField(max_length=8, choices=Unit.choices, default=Unit.ABSOLUTE)
    fire_level = models.FloatField()
    clear_level = models.FloatField(help_text="Hysteresis: the value must come back past this level to clear.")
    for_polls = models.PositiveSmallIntegerField(
        "for (polls)",
        default=3,
        validators=[MinValueValidator(1), MaxValueValidator(1000)],
        help_text="Threshold rules: the condition must hold this many polls in a row.",
    )
    repeat_minutes = models.PositiveIntegerField(
        default=0, validators=[MaxValueValidator(10080)], help_text="Re-send while still firing; 0: never."
    )
    # Rules on events (metric "event"): which events match; each match is a breach, a clearing event or quiet
    # time clears (monitor/alerts/eventrules.py).
    event_kind = models.CharField(
        max_length=20, choices=RULE_KINDS, blank=True, default="", help_text="Event rules: which kind (empty: any)."
    )
    event_severity = models.PositiveSmallIntegerField(
        choices=SEVERITY_CHOICES, null=True, blank=True, help_text="Event rules: this severity or worse (empty: any)."
    )
    event_pattern = models.CharField(
        max_length=200,
        blank=True,
        default="",
        help_text="Event rules: a regular expression the text must contain, case-insensitive (RE2 syntax: no "
        "backreferences or lookarounds).",
    )
    events_needed = models.PositiveSmallIntegerField(
        "events needed",
        default=1,
        validators=[MinValueValidator(1), MaxValueValidator(1000)],
        help_text="Event rules: fire once this many matching events came within the window (1: on the first).",
    )
    within_minutes = models.PositiveIntegerField(
        "within (minutes)",
        default=10,
        validators=[MinValueValidator(1), MaxValueValidator(10080)],
        help_text="Event rules: the window, from the first match, the events needed must fall in.",
    )
    quiet_minutes = models.PositiveIntegerField(
        default=15,
        validators=[MinValueValidator(1), MaxValueValidator(10080)],
        help_text="Event rules without a clearing event (linkUp clears linkDown): clear after this long quiet.",
    )
    recipient_users = models.ManyToManyField(settings.AUTH_USER_MODEL, blank=True, related_name="alert_rules")
    recipient_emails = models.TextField(blank=True, default="", help_text="Email addresses, one per line or commas.")
    channels = models.ManyToManyField(
        "alerts.Channel", blank=True, related_name="rules", help_text="Webhook, Slack or Teams channels to notify too."
    )
    enabled = models.BooleanField(default=True)
    builtin = models.CharField(max_length=30, blank=True, default="", help_text="Which built-in default this is.")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["name", "id"]

    def __str__(self) -> str:
        return self.name

    def hold(self) -> int:
        """How many breaches in a row fire the rule: events for an event rule, polls for a threshold rule."""
        return self.events_needed if self.metric == EVENT else self.for_polls

    def recipients(self) -> list[str]:
        """Every address to mail: the users' emails plus the listed addresses, without duplicates."""
        found = [u.email for u in self.recipient_users.all() if u.email]
        found += [a.strip() for a in self.recipient_emails.replace(",", "\n").splitlines() if a.strip()]
        return list(dict.fromkeys(found))


class AlertState(models.Model):
    """Where one rule stands for one target (device + series), between polls."""

    class State(models.TextChoices):
        OK = "ok", "OK"
        PENDING = "pending", "pending"
        FIRING = "firing", "firing"

    rule = models.ForeignKey(Rule, on_delete=models.CASCADE, related_name="states")
    device = models.ForeignKey(Device, on_delete=models.CASCADE, related_name="alert_states")
    instance = models.CharField(max_length=255, blank=True, default="")
    state = models.CharField(max_length=8, choices=State.choices, default=State.OK)
    count = models.PositiveIntegerField(default=0)
    since = models.DateTimeField(null=True, blank=True)
    value = models.FloatField(null=True, blank=True)
    fire_level = models.FloatField(null=True, blank=True)
    alerted = models.BooleanField(default=False)
    flapping = models.BooleanField(default=False)
    changes = models.JSONField(default=list, blank=True)
    last_notified_at = models.DateTimeField(null=True, blank=True)
    acknowledged_at = models.DateTimeField(null=True, blank=True)
    acknowledged_by = models.CharField(max_length=150, blank=True, default="")
    updated_at = models.DateTimeField(auto_now=True)
    seen_at = models.DateTimeField(null=True, blank=True, help_text="The newest poll that read this target.")
    missed = models.PositiveIntegerField(default=0, help_text="Polls in a row that answered without this target.")

    class Meta:
        ordering = ["device", "rule", "instance"]
        constraints = [
            models.UniqueConstraint(fields=["rule", "device", "instance"], name="one_alert_state_per_target")
        ]

    def __str__(self) -> str:
        return f"{self.rule} {self.device} {self.instance}".strip()


class Event(models.Model):
    """One state change, stored before any mail: sending claims the row, so nothing is lost or sent twice."""

    class Kind(models.TextChoices):
        PENDING = "pending", "pending"
        CANCELLED = "cancelled", "pending, back to OK"
        FIRE = "fire", "firing"
        CLEAR = "clear", "recovered"
        REPEAT = "repeat", "still firing"
        FLAPPING = "flapping", "flapping"
        SETTLED = "settled", "stopped flapping"

    class Mail(models.TextChoices):
        NONE = "none", "no mail"
        QUEUED = "queued", "waiting to be sent"
        SENT = "sent", "sent"
        MUTED = "muted", "muted (maintenance)"
        SUPPRESSED = "suppressed", "suppressed (flapping)"
        NO_RECIPIENT = "norecipient", "no recipient"

    state = models.ForeignKey(AlertState, on_delete=models.CASCADE, related_name="events")
    rule = models.ForeignKey(Rule, on_delete=models.CASCADE, related_name="events")
    device = models.ForeignKey(Device, on_delete=models.CASCADE, related_name="alert_events")
    instance = models.CharField(max_length=255, blank=True, default="")
    kind = models.CharField(max_length=10, choices=Kind.choices)
    to_state = models.CharField(max_length=8, choices=AlertState.State.choices)
    value = models.FloatField(null=True, blank=True)
    fire_level = models.FloatField(null=True, blank=True)
    clear_level = models.FloatField(null=True, blank=True)
    since = models.DateTimeField(null=True, blank=True, help_text="When the condition started.")
    created_at = models.DateTimeField(auto_now_add=True, db_index=True)
    mail = models.CharField(max_length=12, choices=Mail.choices, default=Mail.NONE, db_index=True)
    attempts = models.PositiveIntegerField(default=0)
    next_attempt_at = models.DateTimeField(null=True, blank=True)
    claimed_by = models.CharField(max_length=100, blank=True, default="")
    claimed_until = models.DateTimeField(null=True, blank=True)
    sent_at = models.DateTimeField(null=True, blank=True)
    last_error = models.TextField(blank=True, default="")
    detail = models.TextField(blank=True, default="", help_text="Event rules: the text of the event that matched.")

    class Meta:
        ordering = ["-created_at", "-id"]

    def __str__(self) -> str:
        return f"{self.get_kind_display()}: {self.rule} {self.device} {self.instance}".strip()


class Maintenance(models.Model):
    """A period during which what fires for a device (or a tree branch) is recorded but not mailed."""

    device = models.ForeignKey(
        Device, null=True, blank=True, on_delete=models.CASCADE, related_name="maintenance_windows"
    )
    branch = models.CharField(max_length=100, blank=True, default="", help_text="Tree branch id instead of a device.")
    starts_at = models.DateTimeField()
    ends_at = models.DateTimeField()
    reason = models.CharField(max_length=300, blank=True, default="")

    class Meta:
        ordering = ["-starts_at"]

    def __str__(self) -> str:
        return f"maintenance {self.device or self.branch} {self.starts_at:%Y-%m-%d %H:%M}"


class MailServer(models.Model):
    """The SMTP server set in the admin (one row); with a host it overrides the EMAIL_* environment settings."""

    class Security(models.TextChoices):
        NONE = "none", "none (plain SMTP)"
        STARTTLS = "starttls", "STARTTLS (usually port 587)"
        TLS = "tls", "TLS from the first byte (usually port 465)"

    id = models.PositiveSmallIntegerField(primary_key=True, default=1, editable=False)
    host = models.CharField(
        max_length=253, blank=True, default="", help_text="Empty: the EMAIL_* environment settings apply."
    )
    port = models.PositiveIntegerField(default=587, validators=[MinValueValidator(1), MaxValueValidator(65535)])
    security = models.CharField(max_length=8, choices=Security.choices, default=Security.STARTTLS)
    username = models.CharField("user", max_length=254, blank=True, default="", help_text="Empty: no login.")
    password = EncryptedTextField(blank=True, default="")
    from_email = models.CharField(
        "from address",
        max_length=254,
        blank=True,
        default="",
        help_text="monitor@example.com or Name <monitor@example.com>. Empty: DEFAULT_FROM_EMAIL.",
    )
    timeout_s = models.PositiveIntegerField(
        "timeout (s)", default=20, validators=[MinValueValidator(1), MaxValueValidator(300)]
    )
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        verbose_name = "mail server"
        verbose_name_plural = "mail server"
        constraints = [models.CheckConstraint(condition=models.Q(id=1), name="one_mail_server_row")]

    def __str__(self) -> str:
        return f"{self.host}:{self.port}" if self.host else "mail server (environment settings)"

    @classmethod
    def active(cls) -> MailServer | None:
        """The row that overrides the environment, or None (no row, or no host in it)."""
        return cls.objects.exclude(host="").first()


from monitor.alerts.channel_models import Channel, Delivery  # noqa: E402 - the app's other models, kept apart

__all__ = ["AlertState", "Channel", "Delivery", "Event", "MailServer", "Maintenance", "Rule"]


def open_problems(devices) -> models.QuerySet:
    """The alert states of enabled rules on `devices` that are firing, pending or flapping: firing first, then by
    device and target (what the current-alerts page and the home page's panel list)."""
    firing_first = models.Case(
        models.When(state=AlertState.State.FIRING, then=0), default=1, output_field=models.IntegerField()
    )
    return (
        AlertState.objects.filter(device__in=devices, rule__enabled=True)
        .exclude(state=AlertState.State.OK, flapping=False)
        .select_related("rule", "device")
        .order_by(firing_first, "device__name", "instance")
    )
