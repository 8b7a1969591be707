"""System check: alert rules saved before patterns ran on re2 whose pattern re2 cannot run are named at every
start (migrate and check run it); such a rule matches no event until it is fixed, and stops nothing else."""

from __future__ import annotations

from django.core.checks import Warning, register


@register("database")
def check_event_patterns(app_configs, databases=None, **kwargs) -> list[Warning]:
    """One warning per rule whose event pattern re2 refuses (only when the database is to be checked)."""
    if not databases:
        return []
    from django.db import DatabaseError

    from monitor.alerts.models import Rule
    from monitor.alerts.patterns import problem

    try:
        rules = list(Rule.objects.exclude(event_pattern="").values_list("pk", "name", "event_pattern"))
    except DatabaseError:  # not migrated yet: nothing to check
        return []
    found = []
    for pk, name, pattern in rules:
        why = problem(pattern)
        if why:
            found.append(
                Warning(
                    f"Alert rule {pk} ({name!r}) has an event pattern this monitor cannot run ({why}); it matches no "
                    "event until it is fixed.",
                    hint="Edit the rule's pattern: google-re2 syntax, without backreferences or lookarounds.",
                    id="alerts.W001",
                )
            )
    return found
