"""Pages: current alerts (acknowledge), history by device, rule and maintenance forms, device defaults.

Every page shows only the devices the user may read (monitor.graphs.access); what they may not read is a 404.
"""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.core.paginator import Paginator
from django.db.models import Q
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils import timezone
from django.views.decorators.http import require_GET, require_POST

from monitor.alerts import channels, defaults, delivery, timeline
from monitor.alerts.forms import MaintenanceForm, RuleForm
from monitor.alerts.models import AlertState, Event, Maintenance, Rule, open_problems
from monitor.core.ids import parse_id
from monitor.graphs.access import Access, access_for


def _visible_maintenance(access: Access):
    windows = Maintenance.objects.filter(ends_at__gt=timezone.now()).select_related("device")
    if access.everything:
        return windows
    return windows.filter(Q(device__in=access.devices()) | Q(device=None, branch__in=access.branch_ids()))


def _visible_rules(access: Access):
    """Rules on a visible device or on a readable branch; rules naming neither (a profile, every device) watch
    devices of trees the user may not read, so only users who see everything read or change them."""
    if access.everything:
        return Rule.objects.all()
    on_branch = Q(device=None, branch__in=access.branch_ids())
    return Rule.objects.filter(Q(device__in=access.devices()) | on_branch)


@login_required
@require_GET
def current(request: HttpRequest) -> HttpResponse:
    access = access_for(request)
    context = {
        "states": open_problems(access.devices()),
        "problem": delivery.delivery_problem(),
        "channel_problems": channels.failing(),
        "maintenance": _visible_maintenance(access),
    }
    return render(request, "alerts/current.html", context)


@login_required
@require_POST
def acknowledge(request: HttpRequest, state_id: int) -> HttpResponse:
    """Acknowledging stops repeat mails until the target clears; only a visible device's state (404 otherwise)."""
    state = get_object_or_404(AlertState.objects.filter(device__in=access_for(request).devices()), pk=state_id)
    changed = (
        AlertState.objects.filter(pk=state.pk)
        .exclude(state=AlertState.State.OK)
        .update(acknowledged_at=timezone.now(), acknowledged_by=request.user.get_username()[:150])
    )
    if changed:
        timeline.acknowledged(state, request.user.get_username()[:150])
    return redirect("alerts:current")


@login_required
@require_GET
def history(request: HttpRequest) -> HttpResponse:
    """Every change on the visible devices; ?device=<id> narrows it (an invisible id finds nothing)."""
    visible = access_for(request).devices()
    events = Event.objects.filter(device__in=visible).select_related("rule", "device")
    device = None
    device_id = parse_id(request.GET.get("device"))
    if device_id is not None:
        device = visible.filter(pk=device_id).first()
        events = events.filter(device_id=device_id)
    page = Paginator(events, 100).get_page(request.GET.get("page"))
    context = {"page": page, "device": device, "devices": visible}
    return render(request, "alerts/history.html", context)


@login_required
def rule_edit(request: HttpRequest, rule_id: int | None = None) -> HttpResponse:
    """Needs the model permission (403 before anything is looked up); only visible devices can be chosen."""
    if not request.user.has_perm("alerts.change_rule" if rule_id else "alerts.add_rule"):
        raise PermissionDenied("You may not edit alert rules.")
    access = access_for(request)
    rule = get_object_or_404(_visible_rules(access), pk=rule_id) if rule_id else None
    initial = {}
    device_id = parse_id(request.GET.get("device"))
    if rule is None and device_id is not None:
        initial = {"device": device_id, "scope": Rule.Scope.DEVICE, "recipient_users": [request.user]}
    form = RuleForm(request.POST or None, instance=rule, initial=initial, access=access)
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
    device_id = parse_id(request.GET.get("device"))
    if device_id is not None:
        initial["device"] = device_id
    form = MaintenanceForm(request.POST or None, initial=initial, access=access_for(request))
    if request.method == "POST" and form.is_valid():
        form.save()
        return redirect("alerts:current")
    return render(request, "alerts/maintenance_form.html", {"form": form})


@login_required
@require_POST
def device_defaults(request: HttpRequest, device_id: int) -> HttpResponse:
    """Join or leave the built-in rules of one device: a ticked box mails the caller, an unticked one stops only
    the caller's mails (a rule goes off when its last recipient leaves)."""
    device = get_object_or_404(access_for(request).devices(), pk=device_id)
    wanted = set(request.POST.getlist("default")) & set(defaults.DEFAULTS)
    if wanted and not request.user.email:
        messages.error(request, "Your account has no email address: add one before turning alerts on.")
        return redirect("device", device.pk)
    for key in defaults.DEFAULTS:
        if key in wanted:
            defaults.enable(device, key, request.user)
        else:
            defaults.leave(device, key, request.user)
    messages.success(request, "Alert defaults saved.")
    return redirect("device", device.pk)
