"""Which rules apply to a device, tree branches (only when monitor.graphs.trees is installed) and maintenance."""

from __future__ import annotations

import logging
from datetime import datetime

from django.apps import apps
from django.db.models import Q

log = logging.getLogger(__name__)


def branches_supported() -> bool:
    """True when the graph-trees app is installed and can list the devices under a branch."""
    if not apps.is_installed("monitor.graphs.trees"):
        return False
    try:
        from monitor.graphs import trees  # optional app, another team's
    except ImportError:
        return False
    return callable(getattr(trees, "device_ids_under", None))


def devices_under_branch(branch: str) -> set[int]:
    """Device ids under a graph-tree branch; empty unless the monitor.graphs.trees app is installed.

    Expects monitor.graphs.trees to offer `device_ids_under(branch: str) -> Iterable[int]`.
    """
    if not branch or not branches_supported():
        return set()
    try:
        from monitor.graphs import trees  # optional app, another team's

        return {int(i) for i in trees.device_ids_under(branch)}
    except Exception as exc:  # the trees app is another team's: never let it break alerting
        log.warning("tree branch %r could not be resolved: %s", branch, exc)
        return set()


def device_profile(device) -> str:
    """The device's profile name where the Device model has one, else ""."""
    return str(getattr(device, "profile", "") or "")


class Scopes:
    """The enabled rules and open maintenance windows, read once for a batch of polls, with branches resolved once."""

    def __init__(self, now: datetime, device_ids: list[int] | None = None):
        from monitor.alerts.models import Maintenance, Rule

        rules = Rule.objects.filter(enabled=True)
        if device_ids is not None and len(device_ids) == 1:
            rules = rules.filter(
                Q(scope__in=[Rule.Scope.SERIES, Rule.Scope.DEVICE], device_id__in=device_ids)
                | Q(scope__in=[Rule.Scope.ALL, Rule.Scope.PROFILE, Rule.Scope.BRANCH])
            )
        # For a batch, every enabled rule in one plain query: rules_for() picks a device's own, and the
        # query compiles far faster than one listing the batch's devices.
        self.rules = list(rules)
        self.windows = list(Maintenance.objects.filter(starts_at__lte=now, ends_at__gt=now))
        self._branches: dict[str, set[int]] = {}

    def _under(self, branch: str) -> set[int]:
        if branch not in self._branches:
            self._branches[branch] = devices_under_branch(branch)
        return self._branches[branch]

    def rules_for(self, device) -> list:
        """Enabled rules whose scope covers this device."""
        from monitor.alerts.models import Rule

        profile = device_profile(device)
        found = []
        for rule in self.rules:
            if rule.scope in (Rule.Scope.SERIES, Rule.Scope.DEVICE) and rule.device_id != device.pk:
                continue
            if rule.scope == Rule.Scope.PROFILE and (not profile or rule.profile != profile):
                continue
            if rule.scope == Rule.Scope.BRANCH and device.pk not in self._under(rule.branch):
                continue
            found.append(rule)
        return found

    def in_maintenance(self, device) -> bool:
        """True while a maintenance window covers the device itself or a branch it is under."""
        return any(w.device_id == device.pk or (w.branch and device.pk in self._under(w.branch)) for w in self.windows)
