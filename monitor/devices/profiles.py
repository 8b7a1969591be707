"""The device profiles of this installation: built-in plus MONITOR_PROFILE_DIRS, loaded once per process."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

from django.conf import settings

from collectors.profiles import BUILTIN_DIR, Profile, load_profiles_collecting


def directories() -> list[Path]:
    return [BUILTIN_DIR, *(Path(d) for d in settings.MONITOR_PROFILE_DIRS)]


@lru_cache(maxsize=1)
def registry() -> dict[str, Profile]:
    """Every valid profile by name (problems are reported by the system check, not here)."""
    profiles, _errors = load_profiles_collecting(directories())
    return profiles


def problems() -> list[str]:
    """Every problem in the profile files, plus graph templates a profile offers but nobody defines."""
    from monitor.timeseries.templates import TEMPLATES

    profiles, errors = load_profiles_collecting(directories())
    for profile in profiles.values():
        for offer in profile.graphs:
            if offer.template not in TEMPLATES:
                errors.append(f"{profile.path}: graphs: template {offer.template!r} is not a known graph template")
    return errors


def choices() -> list[tuple[str, str]]:
    return [(name, f"{name} — {p.description}") for name, p in sorted(registry().items()) if not p.abstract]


def is_array(device) -> bool:
    """An array is a device whose profile reads volumes (its iSCSI path, its array page, its kind on the map)."""
    profile = registry().get(device.profile)
    return profile is not None and any(t.measurement == "volume" for t in profile.tables)
