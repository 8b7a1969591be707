"""Admin pages that never show a stored secret: a user who may only view an object sees whether each secret is set,
not its value (Django shows a view-only user every field of the form as the model's value, in plain text)."""

from __future__ import annotations

from collections.abc import Callable

from django.contrib import admin

SHOWN_AS = "{}_state"  # the read-only stand-in of a secret field on a view-only page


def _state(name: str, label: str) -> Callable:
    """A read-only admin field saying whether `name` holds a value, never the value."""

    @admin.display(description=label)
    def state(self, obj) -> str:
        return "A value is stored (hidden)." if getattr(obj, name, "") else "Not set."

    return state


def _masked(fields, secrets: dict[str, str]):
    """`fields` of a fieldset with each secret replaced by its stand-in (a tuple of fields shown on one line too)."""
    if isinstance(fields, (list, tuple)):
        return type(fields)(_masked(field, secrets) for field in fields)
    return SHOWN_AS.format(fields) if fields in secrets else fields


def _kept(fields, dropped: tuple[str, ...]):
    """`fields` of a fieldset without the form-only fields in `dropped`."""
    return [f for f in fields if f not in dropped] if dropped else fields


class HiddenSecretsAdmin:
    """Mixin for a ModelAdmin: `secret_fields` (field name -> label) are replaced by "stored / not set" on the page of
    a user without the change permission, and `write_only_fields` (form-only fields such as a "clear it" box) left
    out; editors keep the write-only inputs of the form."""

    secret_fields: dict[str, str] = {}
    write_only_fields: tuple[str, ...] = ()

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        for name, label in cls.secret_fields.items():
            setattr(cls, SHOWN_AS.format(name), _state(name, label))

    def get_fieldsets(self, request, obj=None):
        fieldsets = super().get_fieldsets(request, obj)
        if obj is None or self.has_change_permission(request, obj):
            return fieldsets
        return [
            (
                title,
                {**options, "fields": _masked(_kept(options["fields"], self.write_only_fields), self.secret_fields)},
            )
            for title, options in fieldsets
        ]
