"""Admin registrations: devices are added, tested, discovered and edited here."""

from __future__ import annotations

from django.contrib import admin, messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.urls import path, reverse
from django.utils.decorators import method_decorator
from django.utils.html import format_html
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.debug import sensitive_post_parameters

from monitor.core.adminsecrets import HiddenSecretsAdmin
from monitor.devices import importviews
from monitor.devices.forms import DeviceForm
from monitor.devices.saving import after_save
from monitor.models import DISCOVERY_FIELDS, POLL_STATUS_FIELDS, Device, Graph, Interface, InterfaceRename

# Posted device secrets are replaced by stars in error reports (a 500 mailed to admins, DEBUG pages).
sensitive_secrets = method_decorator(sensitive_post_parameters("community", "v3_auth_key", "v3_priv_key"))


class InterfaceInline(admin.TabularInline):
    model = Interface
    extra = 0
    fields = ("name", "if_index", "alias", "speed_bps", "oper_up", "hc_counters", "graphed")
    readonly_fields = ("name", "if_index", "alias", "speed_bps", "oper_up", "hc_counters")
    can_delete = False

    def has_add_permission(self, request, obj=None) -> bool:
        return False


class RenameInline(admin.TabularInline):
    model = InterfaceRename
    extra = 0
    fields = ("if_index", "old_name", "new_name", "seen_at")
    readonly_fields = fields
    can_delete = False

    def has_add_permission(self, request, obj=None) -> bool:
        return False


@admin.register(Device)
class DeviceAdmin(HiddenSecretsAdmin, admin.ModelAdmin):
    """Editors type the secrets in write-only inputs; a view-only user sees whether each is stored, never its value."""

    form = DeviceForm
    secret_fields = {"community": "Community", "v3_auth_key": "Auth key", "v3_priv_key": "Privacy key"}
    change_form_template = "admin/monitor/device/change_form.html"
    change_list_template = "admin/monitor/device/change_list.html"
    list_display = ("name", "host", "profile", "poll_interval_s", "enabled", "status", "last_poll_at", "page")
    list_filter = ("enabled", "snmp_version", "profile")
    search_fields = ("name", "host", "sys_name")
    readonly_fields = POLL_STATUS_FIELDS + DISCOVERY_FIELDS
    inlines = [InterfaceInline, RenameInline]
    actions = ["rediscover"]
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
                )
            },
        ),
        ("Profile", {"fields": ("pinned_profile", "skip_test")}),
        ("Discovered", {"fields": DISCOVERY_FIELDS}),
        ("Last poll", {"fields": POLL_STATUS_FIELDS}),
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

    @admin.action(description="Rediscover at the next poll")
    def rediscover(self, request: HttpRequest, queryset) -> None:
        count = queryset.update(rediscover=True)
        self.message_user(request, f"{count} device(s) will be rediscovered at their next poll.", messages.INFO)

    @sensitive_secrets
    def changeform_view(self, request, object_id=None, form_url="", extra_context=None):
        """The add and change pages (add_view and change_view both come here)."""
        return super().changeform_view(request, object_id, form_url, extra_context)

    def get_urls(self):
        view = self.admin_site.admin_view(self.discover_view)
        wrap = self.admin_site.admin_view
        return [
            # CSRF is checked by the view itself, once it has capped what the upload may read (importviews)
            path("import/", wrap(csrf_exempt(self.import_view)), name="monitor_device_import"),
            path("import/<int:job_id>/", wrap(self.import_job_view), name="monitor_device_import_job"),
            path("import/<int:job_id>/report.csv", wrap(self.import_report_view), name="monitor_device_import_report"),
            path("discover/", view, name="monitor_device_discover"),
            path("<int:object_id>/discover/", view, name="monitor_device_discover_existing"),
            *super().get_urls(),
        ]

    @sensitive_secrets
    def discover_view(self, request: HttpRequest, object_id: int | None = None) -> HttpResponse:
        """Test and discover with the form as filled in (nothing is saved): a fragment the page shows."""
        obj = self.get_object(request, str(object_id)) if object_id else None
        if request.method != "POST":
            return HttpResponse("POST the device form here", status=405)
        allowed = self.has_change_permission(request, obj) if obj else self.has_add_permission(request)
        if not allowed:
            return HttpResponse("not allowed", status=403)
        data = request.POST.copy()
        data["skip_test"] = ""
        form = self.get_form(request, obj)(data, instance=obj)
        valid = form.is_valid()
        ports = form.discovery.ports if form.discovery else []
        graphed = {row.name: row.graphed for row in obj.interfaces.all()} if obj else {}
        rows = [(port, graphed.get(port.name, not port.pseudo)) for port in ports]
        context = {"form": form, "valid": valid, "found": form.discovery, "rows": rows}
        return render(request, "admin/monitor/device/_discovery.html", context, status=200 if valid else 400)

    @sensitive_secrets
    def import_view(self, request: HttpRequest) -> HttpResponse:
        """Upload a CSV of devices: checked whole, then imported by a worker (each row tested like this form)."""
        return importviews.upload(self, request)

    def import_job_view(self, request: HttpRequest, job_id: int) -> HttpResponse:
        """An import's progress, then its per-line report (its uploader and superusers only)."""
        return importviews.job_page(self, request, job_id)

    def import_report_view(self, request: HttpRequest, job_id: int) -> HttpResponse:
        return importviews.job_report(self, request, job_id)

    def save_model(self, request: HttpRequest, obj: Device, form: DeviceForm, change: bool) -> None:
        super().save_model(request, obj, form, change)
        # The user saw the port list: honour the ticks.
        ticked = set(request.POST.getlist("graph_port")) if "discovered_ports" in request.POST else None
        after_save(obj, form.discovery, change, ticked)


@admin.register(Graph)
class GraphAdmin(admin.ModelAdmin):
    list_display = ("title", "device", "template", "instance", "position")
    list_filter = ("template",)
    search_fields = ("title", "instance", "device__name")
