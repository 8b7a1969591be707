"""Stored secrets in the admin's read-only view: Django shows a user with only the view permission each field's
stored value as text, so a secret field is swapped there for a line that says only whether a value is stored."""

from __future__ import annotations

from django.contrib import admin
from django.http import HttpRequest

STORED, NOT_SET = "stored (hidden)", "not set"


def stored_display(name: str, label: str):
    """A read-only admin field for the secret `name`: "stored (hidden)" or "not set", never the value."""

    @admin.display(description=label)
    def shown(self, obj) -> str:
        return STORED if getattr(obj, name, "") else NOT_SET

    shown.__name__ = f"{name}_stored"
    return shown


class HidesStoredSecrets:
    """An admin whose `secret_fields` a user who cannot change the object sees as stored or not, never as text."""

    secret_fields: tuple[str, ...] = ()
    write_only_fields: tuple[str, ...] = ()  # form-only fields (a "clear it" box): nothing to show a viewer

    def get_fieldsets(self, request: HttpRequest, obj=None) -> list:
        fieldsets = super().get_fieldsets(request, obj)
        if obj is None or self.has_change_permission(request, obj):
            return fieldsets
        return [(title, {**options, "fields": self._viewed(options["fields"])}) for title, options in fieldsets]

    def _viewed(self, names) -> list:
        """A fieldset's names for a viewer: write-only fields left out, secrets masked."""
        return [self._masked(name) for name in names if name not in self.write_only_fields]

    def _masked(self, name):
        if isinstance(name, (list, tuple)):
            return type(name)(self._masked(n) for n in name)
        return f"{name}_stored" if name in self.secret_fields else name
