"""Devices, their ports and graphs, as the admin edits them and the poller records them; the admin's CSV imports."""

from __future__ import annotations

from datetime import datetime

from django.conf import settings
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models
from django.utils import timezone

from collectors.snmptypes import SnmpTarget
from monitor.core.secrets import EncryptedTextField

# What a poll writes on its device row (one prepared UPDATE per batch; read-only in the admin).
POLL_STATUS_FIELDS = (
    "last_poll_at",
    "last_success_at",
    "last_error",
    "last_error_at",
    "consecutive_failures",
    "last_poll_duration_s",
    "uptime_s",
    "poll_warnings",
)

# What discovery writes on its device row (read-only in the admin and the API).
DISCOVERY_FIELDS = ("profile", "profile_reason", "sys_name", "sys_descr", "sys_object_id", "discovered_at")


class Device(models.Model):
    """A switch or storage array polled over SNMP."""

    class Version(models.TextChoices):
        V1 = "1", "SNMP v1"
        V2C = "2c", "SNMP v2c"
        V3 = "3", "SNMP v3"

    class SecurityLevel(models.TextChoices):
        NO_AUTH = "noAuthNoPriv", "noAuthNoPriv"
        AUTH = "authNoPriv", "authNoPriv"
        AUTH_PRIV = "authPriv", "authPriv"

    class AuthProtocol(models.TextChoices):
        MD5 = "MD5", "MD5"
        SHA = "SHA", "SHA-1"
        SHA224 = "SHA224", "SHA-224"
        SHA256 = "SHA256", "SHA-256"
        SHA384 = "SHA384", "SHA-384"
        SHA512 = "SHA512", "SHA-512"

    class PrivProtocol(models.TextChoices):
        DES = "DES", "DES"
        AES128 = "AES128", "AES-128"
        AES192 = "AES192", "AES-192"
        AES256 = "AES256", "AES-256"

    name = models.CharField(max_length=100, unique=True)
    host = models.CharField(max_length=255, help_text="IPv4 or IPv6 address, or DNS name.")
    port = models.PositiveIntegerField(default=161, validators=[MinValueValidator(1), MaxValueValidator(65535)])
    snmp_version = models.CharField(max_length=2, choices=Version.choices, default=Version.V2C)
    community = EncryptedTextField(blank=True, default="")
    v3_user = models.CharField("SNMPv3 user", max_length=64, blank=True, default="")
    v3_security_level = models.CharField(
        "SNMPv3 security level", max_length=12, choices=SecurityLevel.choices, default=SecurityLevel.AUTH_PRIV
    )
    v3_auth_protocol = models.CharField(
        "auth protocol", max_length=8, choices=AuthProtocol.choices, blank=True, default=AuthProtocol.SHA256
    )
    v3_auth_key = EncryptedTextField("auth key", blank=True, default="")
    v3_priv_protocol = models.CharField(
        "privacy protocol", max_length=8, choices=PrivProtocol.choices, blank=True, default=PrivProtocol.AES128
    )
    v3_priv_key = EncryptedTextField("privacy key", blank=True, default="")
    timeout_s = models.FloatField(
        "timeout (s)", default=2.0, validators=[MinValueValidator(0.1), MaxValueValidator(60)]
    )
    retries = models.PositiveSmallIntegerField(default=1, validators=[MaxValueValidator(10)])
    max_repetitions = models.PositiveSmallIntegerField(
        default=25,
        validators=[MinValueValidator(1), MaxValueValidator(100)],
        help_text="GETBULK max-repetitions; lower it for agents that answer large requests badly.",
    )
    poll_interval_s = models.PositiveIntegerField(
        "poll interval (s)", default=60, validators=[MinValueValidator(5), MaxValueValidator(3600)]
    )
    # The interval before its last change, and when it changed: pages count the windows the old polls were to write
    # by both intervals for a while (monitor/timeseries/cache.py counted_interval_s).
    previous_poll_interval_s = models.PositiveIntegerField(null=True, blank=True, editable=False)
    poll_interval_changed_at = models.DateTimeField(null=True, blank=True, editable=False)
    enabled = models.BooleanField(default=True)
    poller_group = models.SlugField(
        max_length=50,
        blank=True,
        default="",
        help_text="Celery queue whose workers poll this device (empty: the default queue). "
        "Start a worker for a group with: celery -A monitor worker -Q <group>",
    )

    pinned_profile = models.CharField(
        max_length=100,
        blank=True,
        default="",
        help_text="Use this profile instead of the one discovery chooses (empty: automatic).",
    )

    # What discovery found (written by the poller, read-only in the admin).
    profile = models.CharField(max_length=100, blank=True, default="")
    profile_reason = models.CharField(max_length=200, blank=True, default="")
    sys_descr = models.TextField(blank=True, default="")
    sys_object_id = models.CharField(max_length=200, blank=True, default="")
    sys_name = models.CharField(max_length=255, blank=True, default="")
    discovered_at = models.DateTimeField(null=True, blank=True)
    rediscover = models.BooleanField(default=False, help_text="Rediscover at the next poll.")

    # What the poller last saw (written by the poller, read-only in the admin).
    last_poll_at = models.DateTimeField(null=True, blank=True)
    last_success_at = models.DateTimeField(null=True, blank=True)
    last_error = models.TextField(blank=True, default="")
    last_error_at = models.DateTimeField(null=True, blank=True)
    consecutive_failures = models.PositiveIntegerField(default=0)
    last_poll_duration_s = models.FloatField(null=True, blank=True)
    uptime_s = models.FloatField(null=True, blank=True)
    poll_warnings = models.TextField(blank=True, default="", help_text="Metrics the last poll could not read.")

    class Meta:
        ordering = ["name"]

    def __str__(self) -> str:
        return self.name

    def save(self, *args, **kwargs) -> None:
        """Save, noting a changed poll interval's old value and when it changed (how pages count its windows); a
        save of named fields other than the interval asks nothing more."""
        fields = kwargs.get("update_fields")
        if self.pk is not None and (fields is None or "poll_interval_s" in fields):
            before = Device.objects.filter(pk=self.pk).values_list("poll_interval_s", flat=True).first()
            if before is not None and before != self.poll_interval_s:
                self.previous_poll_interval_s, self.poll_interval_changed_at = before, timezone.now()
                if fields is not None:
                    kwargs["update_fields"] = {*fields, "previous_poll_interval_s", "poll_interval_changed_at"}
        super().save(*args, **kwargs)

    def counted_interval_s(self, now: datetime) -> int:
        """The poll interval pages count its rollup windows as written by at `now` (cache.counted_interval_s)."""
        from monitor.timeseries.cache import counted_interval_s

        changed = self.poll_interval_changed_at
        return counted_interval_s(
            self.poll_interval_s,
            self.previous_poll_interval_s,
            changed.timestamp() if changed is not None else None,
            now.timestamp(),
        )

    @property
    def is_up(self) -> bool:
        return self.last_success_at is not None and self.consecutive_failures == 0

    @property
    def status(self) -> str:
        """What its badge says: "disabled", "waiting" (for a first poll), "down" (not answering) or "up"."""
        if not self.enabled:
            return "disabled"
        if not self.last_poll_at:
            return "waiting"
        return "down" if self.consecutive_failures else "up"

    def snmp_target(self) -> SnmpTarget:
        """The connection parameters for collectors (secrets decrypted in memory only)."""
        level = self.v3_security_level
        return SnmpTarget(
            host=self.host,
            port=self.port,
            version=self.snmp_version,
            community=self.community,
            v3_user=self.v3_user,
            v3_auth_protocol=self.v3_auth_protocol if level != self.SecurityLevel.NO_AUTH else "",
            v3_auth_key=self.v3_auth_key,
            v3_priv_protocol=self.v3_priv_protocol if level == self.SecurityLevel.AUTH_PRIV else "",
            v3_priv_key=self.v3_priv_key,
            timeout=self.timeout_s,
            retries=self.retries,
            max_repetitions=self.max_repetitions,
        )


class Interface(models.Model):
    """A port, identified by its name (ifName or ifDescr) so history survives ifIndex renumbering."""

    device = models.ForeignKey(Device, on_delete=models.CASCADE, related_name="interfaces")
    name = models.CharField(max_length=255)
    if_index = models.PositiveIntegerField()
    alias = models.CharField(max_length=255, blank=True, default="")
    speed_bps = models.BigIntegerField(default=0)
    oper_up = models.BooleanField(null=True)
    hc_counters = models.BooleanField(default=False)
    graphed = models.BooleanField(default=True)
    first_seen = models.DateTimeField(auto_now_add=True)
    last_seen = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["device", "if_index"]
        constraints = [models.UniqueConstraint(fields=["device", "name"], name="unique_port_name_per_device")]

    def __str__(self) -> str:
        return f"{self.device.name} {self.name}"


class InterfaceRename(models.Model):
    """A port whose ifIndex now carries another name: kept so a user can follow its history."""

    device = models.ForeignKey(Device, on_delete=models.CASCADE, related_name="renames")
    if_index = models.PositiveIntegerField()
    old_name = models.CharField(max_length=255)
    new_name = models.CharField(max_length=255)
    seen_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-seen_at"]


class Graph(models.Model):
    """A graph offered for a device: a template applied to one instance (a port) or to the device."""

    device = models.ForeignKey(Device, on_delete=models.CASCADE, related_name="graphs")
    template = models.CharField(max_length=50)
    instance = models.CharField(max_length=255, blank=True, default="")
    title = models.CharField(max_length=300)
    position = models.PositiveIntegerField(default=0)

    class Meta:
        ordering = ["device", "position", "id"]
        constraints = [
            models.UniqueConstraint(fields=["device", "template", "instance"], name="unique_graph_per_instance")
        ]

    def __str__(self) -> str:
        return self.title


class ImportJob(models.Model):
    """One upload of the admin's CSV import (monitor/devices/importrun.py), from the upload to the last line's
    outcome. It holds no secret: the file travels encrypted in the task and is never stored; a line's report is its
    number, name, device and reasons."""

    class State(models.TextChoices):
        QUEUED = "queued", "waiting for a worker"
        RUNNING = "running", "importing"
        DONE = "done", "done"
        FAILED = "failed", "stopped"

    user = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+")
    file_name = models.CharField(max_length=255, blank=True, default="")
    skip_test = models.BooleanField(default=False)
    state = models.CharField(max_length=10, choices=State.choices, default=State.QUEUED)
    rows_total = models.PositiveIntegerField(default=0)
    rows_done = models.PositiveIntegerField(default=0)
    imported = models.PositiveIntegerField(default=0)
    # [{"line": 3, "name": "sw-1", "device": 12 or None, "profile": "...", "errors": ["port: ..."]}], in line order
    report = models.JSONField(default=list, blank=True)
    error = models.TextField(blank=True, default="")  # why the job stopped (state failed)
    created_at = models.DateTimeField(default=timezone.now)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    updated_at = models.DateTimeField(default=timezone.now)  # the last progress written

    class Meta:
        ordering = ["-created_at", "-id"]

    def __str__(self) -> str:
        return f"import {self.pk} of {self.file_name}"

    @property
    def refused(self) -> int:
        return self.rows_done - self.imported

    @property
    def finished(self) -> bool:
        return self.state in (self.State.DONE, self.State.FAILED)

    def visible_to(self, user) -> bool:
        """Only the uploader, or a superuser, sees an import (its names, hosts and reasons)."""
        return user.is_superuser or (self.user_id is not None and self.user_id == user.pk)


from monitor.core.identities import OidcIdentity  # noqa: E402, F401 (registered in this app; see its module)
