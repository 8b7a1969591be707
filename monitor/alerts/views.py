"""Pages: current alerts (acknowledge), history by device, rule and maintenance forms, device defaults."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.core.paginator import Paginator
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils import timezone
from django.views.decorators.http import require_GET, require_POST

from monitor.alerts import defaults, delivery
from monitor.alerts.forms import MaintenanceForm, RuleForm
from monitor.alerts.models import AlertState, Event, Maintenance, Rule
from monitor.models import Device


@login_required
@require_GET
def current(request: HttpRequest) -> HttpResponse:
    states = (
        AlertState.objects.exclude(state=AlertState.State.OK, flapping=False)
        .filter(rule__enabled=True)
        .select_related("rule", "device")
        .order_by("-state", "device__name", "instance")
    )
    context = {
        "states": states,
        "problem": delivery.delivery_problem(),
        "maintenance": Maintenance.objects.filter(ends_at__gt=timezone.now()).select_related("device"),
    }
    return render(request, "alerts/current.html", context)


@login_required
@require_POST
def acknowledge(request: HttpRequest, state_id: int) -> HttpResponse:
    """Acknowledging stops repeat mails until the target clears."""
    AlertState.objects.filter(pk=state_id).exclude(state=AlertState.State.OK).update(
        acknowledged_at=timezone.now(), acknowledged_by=request.user.get_username()[:150]
    )
    return redirect("alerts:current")


@login_required
@require_GET
def history(request: HttpRequest) -> HttpResponse:
    events = Event.objects.select_related("rule", "device")
    device = None
    raw = request.GET.get("device", "")
    if raw.isdigit():
        device = Device.objects.filter(pk=int(raw)).first()
        events = events.filter(device_id=int(raw))
    page = Paginator(events, 100).get_page(request.GET.get("page"))
    context = {"page": page, "device": device, "devices": Device.objects.all()}
    return render(request, "alerts/history.html", context)


@login_required
def rule_edit(request: HttpRequest, rule_id: int | None = None) -> HttpResponse:
    rule = get_object_or_404(Rule, pk=rule_id) if rule_id else None
    if not request.user.has_perm("alerts.change_rule" if rule else "alerts.add_rule"):
        raise PermissionDenied("You may not edit alert rules.")
    initial = {}
    if rule is None and request.GET.get("device", "").isdigit():
        initial = {"device": int(request.GET["device"]), "scope": Rule.Scope.DEVICE, "recipient_users": [request.user]}
    form = RuleForm(request.POST or None, instance=rule, initial=initial)
    if request.method == "POST" and form.is_valid():
        saved = form.save()
        messages.success(request, f"Rule {saved.name!r} saved.")
        return redirect("device", saved.device_id) if saved.device_id else redirect("alerts:current")
    return render(request, "alerts/rule_form.html", {"form": form, "rule": rule})


@login_required
def maintenance_new(request: HttpRequest) -> HttpResponse:
    if not request.user.has_perm("alerts.add_maintenance"):
        raise PermissionDenied("You may not schedule maintenance.")
    initial = {"starts_at": timezone.now()}
    if request.GET.get("device", "").isdigit():
        initial["device"] = int(request.GET["device"])
    form = MaintenanceForm(request.POST or None, initial=initial)
    if request.method == "POST" and form.is_valid():
        form.save()
        return redirect("alerts:current")
    return render(request, "alerts/maintenance_form.html", {"form": form})


@login_required
@require_POST
def device_defaults(request: HttpRequest, device_id: int) -> HttpResponse:
    """Turn the built-in rules on or off for one device (the user turning them on gets the mails)."""
    device = get_object_or_404(Device, pk=device_id)
    wanted = set(request.POST.getlist("default")) & set(defaults.DEFAULTS)
    if wanted and not request.user.email:
        messages.error(request, "Your account has no email address: add one before turning alerts on.")
        return redirect("device", device.pk)
    for key in defaults.DEFAULTS:
        if key in wanted:
            defaults.enable(device, key, request.user)
        else:
            defaults.disable(device, key)
    messages.success(request, "Alert defaults saved.")
    return redirect("device", device.pk)
