"""Admin registrations: devices are added and edited here."""

from __future__ import annotations

from django.contrib import admin
from django.urls import reverse
from django.utils.html import format_html

from monitor.forms import DeviceForm
from monitor.models import Device, Graph, Interface

STATUS_FIELDS = (
    "last_poll_at",
    "last_success_at",
    "last_error",
    "last_error_at",
    "consecutive_failures",
    "last_poll_duration_s",
    "uptime_s",
)


class InterfaceInline(admin.TabularInline):
    model = Interface
    extra = 0
    fields = ("name", "if_index", "alias", "speed_bps", "oper_up", "hc_counters", "graphed")
    readonly_fields = ("name", "if_index", "alias", "speed_bps", "oper_up", "hc_counters")
    can_delete = False

    def has_add_permission(self, request, obj=None) -> bool:
        return False


@admin.register(Device)
class DeviceAdmin(admin.ModelAdmin):
    form = DeviceForm
    list_display = ("name", "host", "snmp_version", "poll_interval_s", "enabled", "status", "last_poll_at", "page")
    list_filter = ("enabled", "snmp_version")
    search_fields = ("name", "host")
    readonly_fields = STATUS_FIELDS
    inlines = [InterfaceInline]
    fieldsets = (
        (None, {"fields": ("name", "host", "port", "enabled", "poll_interval_s", "poller_group")}),
        ("SNMP", {"fields": ("snmp_version", "community", "timeout_s", "retries", "max_repetitions")}),
        (
            "SNMPv3",
            {
                "fields": (
                    "v3_user",
                    "v3_security_level",
                    "v3_auth_protocol",
                    "v3_auth_key",
                    "v3_priv_protocol",
                    "v3_priv_key",
                ),
                "classes": ("collapse",),
            },
        ),
        ("Last poll", {"fields": STATUS_FIELDS}),
    )

    @admin.display(description="status")
    def status(self, obj: Device) -> str:
        if obj.last_poll_at is None:
            return "not polled yet"
        if obj.consecutive_failures:
            return format_html("<span style='color:#b00'>failing: {}</span>", obj.last_error[:120])
        return "ok"

    @admin.display(description="graphs")
    def page(self, obj: Device) -> str:
        return format_html("<a href='{}'>open</a>", reverse("device", args=[obj.pk]))


@admin.register(Graph)
class GraphAdmin(admin.ModelAdmin):
    list_display = ("title", "device", "template", "instance", "position")
    list_filter = ("template",)
    search_fields = ("title", "instance", "device__name")
