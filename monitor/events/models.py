"""Events (one table: traps, syslog and the monitor's own), trap credentials per device, receivers' counters."""

from __future__ import annotations

from django.db import models

from monitor.core.secrets import EncryptedTextField
from monitor.events.kinds import KIND_CHOICES, SEVERITY_CHOICES, SOURCE_CHOICES, facility_name, severity_name
from monitor.models import Device

TEXT_MAX = 2000  # a message's text is kept up to this many characters (syslog lines are rarely longer)


class Event(models.Model):
    """Something that happened to a device at a moment: drawn as a marker on its graphs and listed on its pages."""

    time = models.DateTimeField(help_text="When the monitor received or saw it (device clocks are often wrong).")
    device = models.ForeignKey(Device, on_delete=models.CASCADE, related_name="timeline")
    port = models.CharField(max_length=255, blank=True, default="", help_text="The port's name, for port events.")
    source = models.CharField(max_length=8, choices=SOURCE_CHOICES)
    kind = models.CharField(max_length=20, choices=KIND_CHOICES)
    severity = models.PositiveSmallIntegerField(choices=SEVERITY_CHOICES)
    facility = models.PositiveSmallIntegerField(null=True, blank=True)
    name = models.CharField(max_length=100, blank=True, default="", help_text="Trap name or syslog program.")
    text = models.TextField(help_text="What happened, as a person reads it (device strings kept as text).")
    detail = models.JSONField(default=dict, blank=True, help_text="Varbinds, syslog fields; never a secret.")
    ends_at = models.DateTimeField(null=True, blank=True, help_text="The end of a window (maintenance).")
    ref = models.CharField(max_length=64, blank=True, default="", help_text="Key of the monitor's own events.")

    class Meta:
        ordering = ["-time", "-id"]
        indexes = [
            models.Index(fields=["device", "time"], name="event_device_time"),
            models.Index(fields=["time"], name="event_time"),
            models.Index(fields=["ref"], name="event_ref", condition=~models.Q(ref="")),
        ]

    def __str__(self) -> str:
        return f"{self.time:%Y-%m-%d %H:%M:%S} {self.device_id} {self.kind} {self.text[:60]}"

    @property
    def severity_name(self) -> str:
        return severity_name(self.severity)

    @property
    def facility_name(self) -> str:
        """The syslog facility by its RFC 5424 name (23: local7); its number when outside the table."""
        return facility_name(self.facility) or ("" if self.facility is None else f"facility {self.facility}")


class TrapCredential(models.Model):
    """How a device's traps and informs authenticate, when it is not with its polling credentials."""

    AuthProtocol = Device.AuthProtocol  # the polling credentials' choices

    class PrivProtocol(models.TextChoices):
        NONE = "", "none"
        DES = "DES", "DES"
        AES128 = "AES128", "AES-128"
        AES192 = "AES192", "AES-192"
        AES256 = "AES256", "AES-256"

    device = models.OneToOneField(Device, on_delete=models.CASCADE, related_name="trap_credential")
    community = EncryptedTextField(
        blank=True, default="", help_text="v1/v2c trap community (empty: the device's polling community)."
    )
    v3_user = models.CharField("SNMPv3 user", max_length=64, blank=True, default="")
    v3_engine_id = models.CharField(
        "SNMPv3 engine ID",
        max_length=66,
        blank=True,
        default="",
        help_text="The device's snmpEngineID in hex (needed for v3 traps; informs need none).",
    )
    v3_auth_protocol = models.CharField(max_length=8, choices=AuthProtocol.choices, blank=True, default="SHA")
    v3_auth_key = EncryptedTextField("auth key", blank=True, default="")
    v3_priv_protocol = models.CharField(max_length=8, choices=PrivProtocol.choices, blank=True, default="AES128")
    v3_priv_key = EncryptedTextField("privacy key", blank=True, default="")

    def __str__(self) -> str:
        return f"trap credentials of {self.device}"


class Receiver(models.Model):
    """A running trap or syslog listener (several may run, on other machines): seen alive, and its counts."""

    name = models.CharField(max_length=200, unique=True, help_text="kind@host:port")
    kind = models.CharField(max_length=8)
    started_at = models.DateTimeField()
    last_seen = models.DateTimeField()

    class Meta:
        ordering = ["name"]

    def __str__(self) -> str:
        return self.name


class ReceiverCount(models.Model):
    """How many messages a receiver stored or dropped, by reason (flushed every few seconds)."""

    receiver = models.ForeignKey(Receiver, on_delete=models.CASCADE, related_name="counts")
    reason = models.CharField(max_length=40)
    count = models.BigIntegerField(default=0)
    last_at = models.DateTimeField()
    note = models.CharField(max_length=300, blank=True, default="", help_text="e.g. the last unknown source.")

    class Meta:
        ordering = ["receiver", "reason"]
        constraints = [models.UniqueConstraint(fields=["receiver", "reason"], name="one_count_per_reason")]
