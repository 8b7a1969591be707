"""Admin for trees, aggregate graphs, dashboards and API tokens; adds a tree-placement inline to devices."""

from __future__ import annotations

from django import forms
from django.conf import settings
from django.contrib import admin, messages
from django.utils import timezone

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


class ApiTokenForm(forms.ModelForm):
    """A new token: its name, scope and lifetime (up to API_TOKEN_MAX_DAYS); whose, for a superuser only."""

    days = forms.IntegerField(label="Lifetime (days)", min_value=1, required=False)

    class Meta:
        model = ApiToken
        fields = ("user", "name", "scope")

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["days"].initial = settings.API_TOKEN_DAYS
        self.fields[
            "days"
        ].help_text = (
            f"Refused after this: at most {settings.API_TOKEN_MAX_DAYS}, {settings.API_TOKEN_DAYS} if left empty."
        )
        if "scope" in self.fields:
            self.fields["scope"].help_text = "A read-only token is refused (403) on anything but a read."

    def clean_days(self) -> int:
        days = self.cleaned_data["days"] or settings.API_TOKEN_DAYS
        if days > settings.API_TOKEN_MAX_DAYS:
            raise forms.ValidationError(f"A token lives at most {settings.API_TOKEN_MAX_DAYS} days.")
        return days


@admin.register(ApiToken)
class ApiTokenAdmin(admin.ModelAdmin):
    """Tokens are made, read and deleted, never changed; the secret is shown once. A superuser makes tokens for anyone
    and sees them all, any other user only for themself (a token is never more than its maker)."""

    form = ApiTokenForm
    list_display = ("name", "user", "scope", "created_at", "last_used_at", "expires_at", "valid")
    list_select_related = ("user",)

    def get_queryset(self, request):
        found = super().get_queryset(request)
        return found if request.user.is_superuser else found.filter(user=request.user)

    def get_fields(self, request, obj=None):
        if obj is not None:
            return ("user", "name", "scope", "created_at", "expires_at", "last_used_at")
        return (("user",) if request.user.is_superuser else ()) + ("name", "scope", "days")

    def get_readonly_fields(self, request, obj=None):
        return self.get_fields(request, obj) if obj is not None else ()

    def has_change_permission(self, request, obj=None) -> bool:
        return obj is None and super().has_change_permission(request, obj)

    @admin.display(boolean=True, description="valid")
    def valid(self, token: ApiToken) -> bool:
        return token.expires_at > timezone.now() and token.user.is_active

    def save_model(self, request, obj, form, change) -> None:
        if not request.user.is_superuser:
            obj.user = request.user
        raw = obj.arm(form.cleaned_data["days"])
        obj.save()
        messages.warning(request, f"API token (shown once, copy it now): {raw}")
