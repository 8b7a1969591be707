"""Storage rows keyed to devices: heatmap levels, the latency unit the polls found, and the iSCSI path."""

from __future__ import annotations

from django.core.exceptions import ValidationError
from django.core.validators import MinValueValidator
from django.db import models

from monitor.models import Device

WARNING_MS = 20.0  # VMware's guidance: sustained datastore latency above 20 ms is a problem worth a look,
PROBLEM_MS = 50.0  # above 50 ms a serious one (and the built-in volume latency alert's level)


class HeatmapLevels(models.Model):
    """The latency heatmap's absolute scale for one array: green below `warning_ms`, red from `problem_ms`."""

    device = models.OneToOneField(Device, on_delete=models.CASCADE, related_name="heatmap_levels")
    warning_ms = models.FloatField("warning level (ms)", default=WARNING_MS, validators=[MinValueValidator(0.01)])
    problem_ms = models.FloatField("problem level (ms)", default=PROBLEM_MS, validators=[MinValueValidator(0.01)])

    class Meta:
        verbose_name = "heatmap levels"
        verbose_name_plural = "heatmap levels"

    def __str__(self) -> str:
        return f"{self.device}: {self.warning_ms:g} / {self.problem_ms:g} ms"

    def clean(self) -> None:
        if self.problem_ms is not None and self.warning_ms is not None and self.problem_ms <= self.warning_ms:
            raise ValidationError({"problem_ms": "the problem level must be above the warning level"})

    @staticmethod
    def for_device(device_id: int) -> tuple[float, float]:
        row = HeatmapLevels.objects.filter(device_id=device_id).values_list("warning_ms", "problem_ms").first()
        return row or (WARNING_MS, PROBLEM_MS)


class LatencyUnit(models.Model):
    """What the polls found about a latency sum's unit (collectors/latencyunit.py): the unit, and the evidence."""

    device = models.ForeignKey(Device, on_delete=models.CASCADE, related_name="latency_units")
    table = models.CharField(max_length=100)
    metric = models.CharField(max_length=100)
    unit = models.CharField(max_length=50)
    scale = models.FloatField()
    decided = models.BooleanField(default=False, help_text="the array's gauges decided it (else the default)")
    rows_checked = models.PositiveIntegerField(default=0)
    rows_agreeing = models.PositiveIntegerField(default=0)
    sum_per_op = models.FloatField(null=True, blank=True)
    gauge_ms = models.FloatField(null=True, blank=True)
    checked_at = models.DateTimeField()
    decided_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["device", "table", "metric"]
        constraints = [models.UniqueConstraint(fields=["device", "table", "metric"], name="unique_latency_unit")]


class PathLink(models.Model):
    """An array port reached through a switch port, learned from forwarding tables and/or LLDP."""

    array = models.ForeignKey(Device, on_delete=models.CASCADE, related_name="path_links")
    array_port = models.CharField(max_length=255)
    switch = models.ForeignKey(Device, on_delete=models.CASCADE, related_name="carried_paths")
    switch_port = models.CharField(max_length=255)
    via_fdb = models.BooleanField(default=False)
    via_lldp = models.BooleanField(default=False)
    mac = models.CharField(max_length=17, blank=True, default="")
    vlan = models.PositiveIntegerField(null=True, blank=True)
    learned_at = models.DateTimeField()

    class Meta:
        ordering = ["array", "array_port", "switch", "switch_port"]
        constraints = [
            models.UniqueConstraint(fields=["array", "array_port", "switch", "switch_port"], name="unique_path_link")
        ]

    @property
    def via(self) -> str:
        return " and ".join(name for name, on in (("forwarding table", self.via_fdb), ("LLDP", self.via_lldp)) if on)


class PathRefresh(models.Model):
    """When an array's path was last learned, and what went wrong with any device read for it."""

    array = models.OneToOneField(Device, on_delete=models.CASCADE, related_name="path_refresh")
    refreshed_at = models.DateTimeField()
    switches_read = models.PositiveIntegerField(default=0)
    problems = models.TextField(blank=True, default="")


class PartState(models.Model):
    """An array part's state as the polls last read it (monitor/storage/partstates.py): a change of it is an event
    on the device's timeline, and the device page says what is not ok without asking InfluxDB."""

    device = models.ForeignKey(Device, on_delete=models.CASCADE, related_name="part_states")
    part = models.CharField(max_length=255, help_text="As the health panel and the alert name it: “Disk 1”.")
    state = models.CharField(max_length=16, help_text="ok, warning, degraded, rebuilding or failed.")
    word = models.CharField(max_length=100, blank=True, default="", help_text="The array's own word for it.")
    since = models.DateTimeField(help_text="The poll that first read this state.")
    seen_at = models.DateTimeField(help_text="The newest poll that read the part.")

    class Meta:
        ordering = ["device", "part"]
        constraints = [models.UniqueConstraint(fields=["device", "part"], name="unique_part_state")]

    def __str__(self) -> str:
        return f"{self.device}: {self.part} {self.state}"
