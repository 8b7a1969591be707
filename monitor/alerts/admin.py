"""Admin: rules and maintenance windows are edited here; states and events are read-only records."""

from __future__ import annotations

from django.contrib import admin

from monitor.alerts.forms import MaintenanceForm, RuleForm
from monitor.alerts.models import AlertState, Event, Maintenance, Rule


@admin.register(Rule)
class RuleAdmin(admin.ModelAdmin):
    form = RuleForm
    list_display = ("name", "metric", "scope", "device", "direction", "fire_level", "clear_level", "enabled")
    list_filter = ("enabled", "metric", "scope")
    search_fields = ("name", "device__name", "instance")


@admin.register(Maintenance)
class MaintenanceAdmin(admin.ModelAdmin):
    form = MaintenanceForm
    list_display = ("device", "branch", "starts_at", "ends_at", "reason")


class ReadOnly(admin.ModelAdmin):
    def has_add_permission(self, request) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False


@admin.register(AlertState)
class AlertStateAdmin(ReadOnly):
    list_display = ("rule", "device", "instance", "state", "value", "flapping", "acknowledged_by", "updated_at")
    list_filter = ("state", "flapping")


@admin.register(Event)
class EventAdmin(ReadOnly):
    list_display = ("created_at", "kind", "rule", "device", "instance", "value", "mail", "attempts", "sent_at")
    list_filter = ("kind", "mail")
    search_fields = ("device__name", "instance", "rule__name")
