"""Form fields that refuse bad input with a message instead of a database error."""

from __future__ import annotations

from django import forms
from django.core.exceptions import ValidationError
from django.db import models

from monitor.core.ids import parse_id
from monitor.core.secrets import masked


class CheckedModelMultipleChoiceField(forms.ModelMultipleChoiceField):
    """A multiple choice of rows whose ids are checked with monitor.core.ids.parse_id first.

    Django looks the chosen ids up with `pk__in`, which SQLite (and PostgreSQL) refuse with an
    OverflowError or DataError for an integer beyond 64 bits: a 500 for a tampered form. Here such an
    id (or any number that is not plain ASCII digits in range, '-1' or a fullwidth digit) is an invalid choice,
    shown next to the field like any other; text that is no number at all gets Django's own message.
    """

    def _check_values(self, value):
        key = self.to_field_name or "pk"
        meta = self.queryset.model._meta
        field = meta.pk if key == "pk" else meta.get_field(key)
        if isinstance(field, models.IntegerField):
            for item in value:
                text = str(item)
                if parse_id(text) is not None or not _is_number(text):
                    continue  # a valid id, or not a number at all: Django's own check says which
                raise ValidationError(
                    self.error_messages["invalid_choice"], code="invalid_choice", params={"value": text[:40]}
                )
        return super()._check_values(value)


def _is_number(text: str) -> bool:
    """True for what int() reads (Django's lookup would turn it into a number)."""
    try:
        int(text)
    except ValueError:
        return False
    return True


# For ModelAdmin.formfield_overrides: every many-to-many field of the admin gets the checked field.
CHECKED_MANY_TO_MANY = {models.ManyToManyField: {"form_class": CheckedModelMultipleChoiceField}}


class SecretField(forms.CharField):
    """A write-only text input: rendered empty, never echoed back, spaces kept as typed, its value a Secret (masked in
    tracebacks and debug pages from the moment it is read)."""

    def __init__(self, **kwargs):
        kwargs.setdefault("required", False)
        kwargs.setdefault("strip", False)
        kwargs.setdefault("widget", forms.PasswordInput(render_value=False))
        super().__init__(**kwargs)

    def to_python(self, value):
        return masked(super().to_python(value))
