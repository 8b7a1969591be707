"""Admin: heatmap levels per device (Admin → Storage → Heatmap levels); learned paths and part states read-only."""

from django.contrib import admin

from monitor.storage.models import HeatmapLevels, PartState, PathLink


@admin.register(HeatmapLevels)
class HeatmapLevelsAdmin(admin.ModelAdmin):
    list_display = ("device", "warning_ms", "problem_ms")
    autocomplete_fields = ()
    raw_id_fields = ()


@admin.register(PathLink)
class PathLinkAdmin(admin.ModelAdmin):
    list_display = ("array", "array_port", "switch", "switch_port", "via", "mac", "learned_at")
    list_filter = ("array", "switch")

    def has_add_permission(self, request) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False


@admin.register(PartState)
class PartStateAdmin(admin.ModelAdmin):
    """What the polls last read of each array part (monitor/storage/partstates.py): kept by the polls, not by hand."""

    list_display = ("device", "part", "state", "word", "since", "seen_at")
    list_filter = ("state", "device")
    search_fields = ("part",)

    def has_add_permission(self, request) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False
