"""The admin's overrides of which device the poller reaches a device through (monitor/topology/dependencies.py)."""

from django.contrib import admin

from monitor.topology.models import Upstream


@admin.register(Upstream)
class UpstreamAdmin(admin.ModelAdmin):
    list_display = ("device", "parent")
    list_select_related = ("device", "parent")
    search_fields = ("device__name", "parent__name")
