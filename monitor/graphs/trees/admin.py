"""Admin for trees, aggregate graphs, dashboards and API tokens; adds a tree-placement inline to devices."""

from __future__ import annotations

from django import forms
from django.contrib import admin, messages

from monitor.core.formfields import CHECKED_MANY_TO_MANY
from monitor.devices.admin import DeviceAdmin
from monitor.graphs.trees.models import AggregateGraph, ApiToken, DashboardItem, Tree, TreeNode


class TreeNodeInline(admin.TabularInline):
    model = TreeNode
    extra = 1
    fields = ("parent", "kind", "title", "device", "graph", "aggregate", "position")
    autocomplete_fields = ("device",)
    raw_id_fields = ("graph", "aggregate", "parent")


@admin.register(Tree)
class TreeAdmin(admin.ModelAdmin):
    list_display = ("name", "position")
    filter_horizontal = ("read_groups", "read_users")
    formfield_overrides = CHECKED_MANY_TO_MANY
    inlines = [TreeNodeInline]


@admin.register(TreeNode)
class TreeNodeAdmin(admin.ModelAdmin):
    list_display = ("label", "tree", "kind", "parent", "position")
    list_filter = ("tree", "kind")
    raw_id_fields = ("parent", "graph", "aggregate", "device")


class PlacementForm(forms.ModelForm):
    """A device node: the kind is fixed and the device comes from the page."""

    class Meta:
        model = TreeNode
        fields = ("tree", "parent", "position")

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.instance.kind = TreeNode.Kind.DEVICE
        self.instance.placing = True


class DevicePlacementInline(admin.TabularInline):
    """Where a device appears in the trees: add a row with a header as parent to place it."""

    model = TreeNode
    fk_name = "device"
    extra = 0
    fields = ("tree", "parent", "position")
    raw_id_fields = ("parent",)
    verbose_name = "place in a graph tree"
    verbose_name_plural = "places in graph trees"

    form = PlacementForm


DeviceAdmin.inlines = [*DeviceAdmin.inlines, DevicePlacementInline]


class AggregateGraphForm(forms.ModelForm):
    """An aggregate sums graphs of one template: a member of another template is refused by name."""

    class Meta:
        model = AggregateGraph
        fields = ("title", "template", "members")

    def clean(self) -> dict:
        data = super().clean()
        template, members = data.get("template"), data.get("members")
        if template and members:
            others = [g for g in members if g.template != template]
            if others:
                names = ", ".join(f"{g.title} ({g.template})" for g in others[:5])
                self.add_error(
                    "members", f"Every member must be a {template!r} graph, like the aggregate; not: {names}"
                )
        return data


@admin.register(AggregateGraph)
class AggregateGraphAdmin(admin.ModelAdmin):
    form = AggregateGraphForm
    list_display = ("title", "template")
    filter_horizontal = ("members",)
    formfield_overrides = CHECKED_MANY_TO_MANY


@admin.register(DashboardItem)
class DashboardItemAdmin(admin.ModelAdmin):
    list_display = ("user", "graph", "aggregate", "position")
    list_filter = ("user",)


@admin.register(ApiToken)
class ApiTokenAdmin(admin.ModelAdmin):
    list_display = ("name", "user", "created_at", "last_used_at")
    fields = ("user", "name")

    def has_change_permission(self, request, obj=None) -> bool:
        return obj is None and super().has_change_permission(request, obj)

    def save_model(self, request, obj, form, change) -> None:
        token, raw = ApiToken.issue(form.cleaned_data["user"], form.cleaned_data["name"])
        obj.pk, obj.digest = token.pk, token.digest
        messages.warning(request, f"API token (shown once, copy it now): {raw}")
