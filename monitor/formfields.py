"""Form fields that refuse bad input with a message instead of a database error."""

from __future__ import annotations

from django import forms
from django.core.exceptions import ValidationError
from django.db import models

INT64 = (-(2**63), 2**63 - 1)


class CheckedModelMultipleChoiceField(forms.ModelMultipleChoiceField):
    """A multiple choice of rows whose ids are range-checked first.

    Django looks the chosen ids up with `pk__in`, which SQLite (and PostgreSQL) refuse with an
    OverflowError or DataError for an integer beyond 64 bits: a 500 for a tampered form. Here such an
    id is an invalid choice, shown next to the field like any other.
    """

    def _check_values(self, value):
        key = self.to_field_name or "pk"
        meta = self.queryset.model._meta
        field = meta.pk if key == "pk" else meta.get_field(key)
        if isinstance(field, models.IntegerField):
            for item in value:
                try:
                    number = int(str(item))
                except ValueError:
                    continue  # not a number at all: Django's own check says so
                if not INT64[0] <= number <= INT64[1]:
                    raise ValidationError(
                        self.error_messages["invalid_choice"], code="invalid_choice", params={"value": str(item)[:40]}
                    )
        return super()._check_values(value)


# For ModelAdmin.formfield_overrides: every many-to-many field of the admin gets the checked field.
CHECKED_MANY_TO_MANY = {models.ManyToManyField: {"form_class": CheckedModelMultipleChoiceField}}
