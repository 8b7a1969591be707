"""Which rules apply to a device, tree branches (only when monitor.trees is installed) and maintenance."""

from __future__ import annotations

import logging
from datetime import datetime

from django.apps import apps
from django.db.models import Q

log = logging.getLogger(__name__)


def branches_supported() -> bool:
    """True when the graph-trees app is installed and can list the devices under a branch."""
    if not apps.is_installed("monitor.trees"):
        return False
    try:
        from monitor import trees  # optional app, another team's
    except ImportError:
        return False
    return callable(getattr(trees, "device_ids_under", None))


def devices_under_branch(branch: str) -> set[int]:
    """Device ids under a graph-tree branch; empty unless the monitor.trees app is installed.

    Expects monitor.trees to offer `device_ids_under(branch: str) -> Iterable[int]`.
    """
    if not branch or not branches_supported():
        return set()
    try:
        from monitor import trees  # optional app, another team's

        return {int(i) for i in trees.device_ids_under(branch)}
    except Exception as exc:  # the trees app is another team's: never let it break alerting
        log.warning("tree branch %r could not be resolved: %s", branch, exc)
        return set()


def device_profile(device) -> str:
    """The device's profile name where the Device model has one, else ""."""
    return str(getattr(device, "profile", "") or "")


def rules_for(device) -> list:
    """Enabled rules whose scope covers this device."""
    from monitor.alerts.models import Rule

    candidates = Rule.objects.filter(enabled=True).filter(
        Q(scope__in=[Rule.Scope.SERIES, Rule.Scope.DEVICE], device=device)
        | Q(scope__in=[Rule.Scope.ALL, Rule.Scope.PROFILE, Rule.Scope.BRANCH])
    )
    profile = device_profile(device)
    found = []
    for rule in candidates:
        if rule.scope == Rule.Scope.PROFILE and (not profile or rule.profile != profile):
            continue
        if rule.scope == Rule.Scope.BRANCH and device.pk not in devices_under_branch(rule.branch):
            continue
        found.append(rule)
    return found


def in_maintenance(device, now: datetime) -> bool:
    """True while a maintenance window covers the device itself or a branch it is under."""
    from monitor.alerts.models import Maintenance

    windows = Maintenance.objects.filter(starts_at__lte=now, ends_at__gt=now)
    if windows.filter(device=device).exists():
        return True
    branches = windows.exclude(branch="").values_list("branch", flat=True)
    return any(device.pk in devices_under_branch(b) for b in branches)
