"""Hosts seen on switch ports: one row per (MAC, switch, port), with its VLAN and when it was first and last seen there,
so a host that moved keeps its history and a port keeps what was plugged into it; the IP addresses the devices' ARP
caches resolved to MACs; the links between devices, and where each user put the devices on the map."""

from __future__ import annotations

from django.conf import settings
from django.db import models

from monitor.models import Device


class Sighting(models.Model):
    """A MAC address learned on a switch's edge port (monitor/topology/edges.py), never on an uplink."""

    mac = models.CharField(max_length=17, help_text="aa:bb:cc:dd:ee:ff")
    switch = models.ForeignKey(Device, on_delete=models.CASCADE, related_name="sightings")
    port = models.CharField(max_length=255)
    vlan = models.PositiveIntegerField(null=True, blank=True)
    first_seen = models.DateTimeField()
    last_seen = models.DateTimeField()

    class Meta:
        ordering = ["mac", "-last_seen"]
        constraints = [
            models.UniqueConstraint(fields=["mac", "switch", "port"], name="unique_sighting"),
        ]
        indexes = [models.Index(fields=["mac", "last_seen"], name="sighting_mac_seen")]

    def __str__(self) -> str:
        return f"{self.mac} on {self.switch} {self.port}"


class Address(models.Model):
    """An IP address a layer-3 device resolved to a MAC (its ARP or IPv6 neighbour cache), with when first and last."""

    ip = models.GenericIPAddressField()
    mac = models.CharField(max_length=17)
    router = models.ForeignKey(Device, on_delete=models.CASCADE, related_name="addresses")
    first_seen = models.DateTimeField()
    last_seen = models.DateTimeField()

    class Meta:
        ordering = ["ip", "-last_seen"]
        constraints = [models.UniqueConstraint(fields=["ip", "mac", "router"], name="unique_address")]
        indexes = [models.Index(fields=["ip", "last_seen"], name="address_ip_seen")]

    def __str__(self) -> str:
        return f"{self.ip} is {self.mac} (by {self.router})"


class Link(models.Model):
    """A cable between two monitored devices' ports, as the daily layer-2 read found it (monitor/topology/links.py):
    one row per unordered pair of ports, stored with a.pk < b.pk. Never deleted when it is not seen: `checked_at` is
    the newest read in which both ends answered, so a link last seen before it is gone, and one whose end is silent
    is only unconfirmed."""

    a = models.ForeignKey(Device, on_delete=models.CASCADE, related_name="links_a")
    a_port = models.CharField(max_length=255)
    b = models.ForeignKey(Device, on_delete=models.CASCADE, related_name="links_b")
    b_port = models.CharField(max_length=255)
    via_lldp = models.BooleanField(default=False)
    via_fdb = models.BooleanField(default=False)
    first_seen = models.DateTimeField()
    last_seen = models.DateTimeField()
    checked_at = models.DateTimeField(help_text="The newest read in which both ends answered.")

    class Meta:
        ordering = ["a", "a_port", "b", "b_port"]
        constraints = [models.UniqueConstraint(fields=["a", "a_port", "b", "b_port"], name="unique_link")]

    def __str__(self) -> str:
        return f"{self.a} {self.a_port} - {self.b} {self.b_port}"

    @property
    def gone(self) -> bool:
        """The newest read that could see it (both ends answered) did not."""
        return self.checked_at > self.last_seen


class MapPlace(models.Model):
    """Where a user put a device on a map (the whole map, or one tree's: `tree`), kept for them on any browser."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    tree = models.ForeignKey("trees.Tree", on_delete=models.CASCADE, null=True, blank=True, related_name="+")
    device = models.ForeignKey(Device, on_delete=models.CASCADE, related_name="+")
    x = models.FloatField()
    y = models.FloatField()

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["user", "tree", "device"], name="unique_map_place"),
            models.UniqueConstraint(
                fields=["user", "device"], condition=models.Q(tree__isnull=True), name="unique_map_place_whole"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.device} at ({self.x:g}, {self.y:g}) for {self.user}"


class Upstream(models.Model):
    """The admin's word on which device the poller reaches a device through (monitor/topology/dependencies.py):
    a chosen parent, or none (the poller reaches it directly). Devices without a row get theirs from the links."""

    device = models.OneToOneField(Device, on_delete=models.CASCADE, related_name="upstream_override")
    parent = models.ForeignKey(
        Device,
        on_delete=models.CASCADE,
        null=True,
        blank=True,
        related_name="+",
        help_text="The device the poller reaches it through; empty: the poller reaches it directly.",
    )

    class Meta:
        ordering = ["device"]
        verbose_name = "upstream device"
        verbose_name_plural = "upstream devices (dependencies)"

    def clean(self) -> None:
        from django.core.exceptions import ValidationError

        if self.parent_id is not None and self.parent_id == self.device_id:
            raise ValidationError({"parent": "A device cannot be its own upstream device."})

    def __str__(self) -> str:
        return f"{self.device} through {self.parent or 'the poller directly'}"


class PortState(models.Model):
    """What a switch said of a port at the daily layer-2 read (collectors/portfacts.py): admin status, duplex, VLANs."""

    device = models.ForeignKey(Device, on_delete=models.CASCADE, related_name="port_states")
    port = models.CharField(max_length=255)
    admin_up = models.BooleanField(null=True)
    duplex = models.CharField(max_length=4, blank=True, default="", help_text='"full", "half", or "" unknown')
    pvid = models.PositiveIntegerField(null=True, blank=True)
    vlans = models.JSONField(default=list, blank=True, help_text="VLAN ids the port carries (egress member)")
    untagged = models.JSONField(default=list, blank=True, help_text="Of which untagged")
    read_at = models.DateTimeField()

    class Meta:
        ordering = ["device", "port"]
        constraints = [models.UniqueConstraint(fields=["device", "port"], name="unique_port_state")]

    def __str__(self) -> str:
        return f"{self.device} {self.port}"


class ChassisRecord(models.Model):
    """A chassis a device is made of, as ENTITY-MIB described it at the daily layer-2 read (collectors/chassis.py):
    one for a switch, one a member for a stack."""

    device = models.ForeignKey(Device, on_delete=models.CASCADE, related_name="chassis")
    index = models.PositiveIntegerField(help_text="entPhysicalIndex")
    description = models.CharField(max_length=255, blank=True, default="")
    name = models.CharField(max_length=255, blank=True, default="")
    model = models.CharField(max_length=255, blank=True, default="")
    serial = models.CharField(max_length=255, blank=True, default="")
    maker = models.CharField(max_length=255, blank=True, default="")
    hardware = models.CharField(max_length=255, blank=True, default="")
    firmware = models.CharField(max_length=255, blank=True, default="")
    software = models.CharField(max_length=255, blank=True, default="")
    read_at = models.DateTimeField()

    class Meta:
        ordering = ["device", "index"]
        constraints = [models.UniqueConstraint(fields=["device", "index"], name="unique_chassis")]
        indexes = [models.Index(fields=["serial"], name="chassis_serial")]

    def __str__(self) -> str:
        return f"{self.device} {self.model or self.description} {self.serial}".strip()
