"""Admin: rules, maintenance windows and the mail server are edited here; states and events are read-only."""

from __future__ import annotations

from django.contrib import admin, messages
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect
from django.urls import reverse
from django.utils.decorators import method_decorator
from django.views.decorators.debug import sensitive_post_parameters

from monitor.alerts.adminbuttons import SaveThenTest
from monitor.alerts.forms import MaintenanceForm, RuleForm
from monitor.alerts.mailserver import MailNotSent, send_test
from monitor.alerts.mailserverform import MailServerForm
from monitor.alerts.models import AlertState, Event, MailServer, Maintenance, Rule
from monitor.core.adminsecrets import HiddenSecretsAdmin


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


@admin.register(MailServer)
class MailServerAdmin(HiddenSecretsAdmin, SaveThenTest, admin.ModelAdmin):
    """One row, superusers only; "Send a test mail to me" saves the form and then mails the user."""

    form = MailServerForm
    change_form_template = "admin/alerts/mailserver/change_form.html"
    secret_fields = {"password": "Password"}  # read-only, it says whether one is stored, not what
    write_only_fields = ("clear_password",)
    fieldsets = (
        (None, {"fields": ("host", "port", "security", "timeout_s")}),
        ("Login", {"fields": ("username", "password", "clear_password")}),
        ("Sender", {"fields": ("from_email",)}),
    )

    def has_module_permission(self, request: HttpRequest) -> bool:
        return request.user.is_active and request.user.is_superuser

    def has_view_permission(self, request: HttpRequest, obj=None) -> bool:
        return request.user.is_active and request.user.is_superuser

    def has_add_permission(self, request: HttpRequest) -> bool:
        return self.has_view_permission(request) and not MailServer.objects.exists()

    def has_change_permission(self, request: HttpRequest, obj=None) -> bool:
        return self.has_view_permission(request)

    def has_delete_permission(self, request: HttpRequest, obj=None) -> bool:
        return self.has_view_permission(request)

    @method_decorator(sensitive_post_parameters("password"))
    def changeform_view(self, request: HttpRequest, object_id=None, form_url="", extra_context=None) -> HttpResponse:
        """As the admin's, with the typed password hidden from error reports."""
        return super().changeform_view(request, object_id, form_url, extra_context)

    def changelist_view(self, request: HttpRequest, extra_context=None) -> HttpResponse:
        """There is one row: go straight to it (or to the add form while there is none)."""
        if not self.has_view_permission(request):
            raise PermissionDenied
        row = MailServer.objects.first()
        if row is None:
            return redirect("admin:alerts_mailserver_add")
        return redirect("admin:alerts_mailserver_change", row.pk)

    def _send_test(self, request: HttpRequest, obj: MailServer) -> HttpResponse:
        """Mail the logged-in user through the settings just saved; say whether it worked, or the SMTP error."""
        to = request.user.email
        try:
            where = send_test(to, request.user.get_username())
        except MailNotSent as exc:
            self.message_user(request, f"Settings saved. Test mail NOT sent: {exc}", messages.ERROR)
        else:
            self.message_user(request, f"Settings saved. Test mail sent to {to} through {where}.", messages.SUCCESS)
        return redirect(reverse("admin:alerts_mailserver_change", args=[obj.pk]))


from monitor.alerts import channeladmin  # noqa: E402, F401 - registers the channels and their delivery log
