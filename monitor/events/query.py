"""The events a request asks for: the filters (device, port, kind, source, severity or worse, text) and a time
window over the devices it may read; shared by the pages and the API (which parse the range and the permissions)."""

from __future__ import annotations

from datetime import datetime

from django import forms
from django.db.models import Q, QuerySet

from monitor.core.ids import parse_id
from monitor.events.kinds import KIND_CHOICES, SEVERITY_CHOICES, SOURCE_CHOICES
from monitor.events.models import Event


class DeviceChoices(forms.ModelMultipleChoiceField):
    """Device ids: one that is no id (or past the database's integers) is a message, never a query that raises."""

    def _check_values(self, value):
        for raw in value:
            if parse_id(str(raw)) is None:
                raise forms.ValidationError(
                    self.error_messages["invalid_pk_value"], code="invalid_pk_value", params={"pk": str(raw)[:20]}
                )
        return super()._check_values(value)


class Filters(forms.Form):
    """Bad values get a message next to the field (and nothing is filtered by them)."""

    device = DeviceChoices(queryset=None, required=False)
    port = forms.CharField(required=False, max_length=255)
    kind = forms.MultipleChoiceField(choices=KIND_CHOICES, required=False)
    source = forms.ChoiceField(choices=[("", "any"), *SOURCE_CHOICES], required=False)
    severity = forms.TypedChoiceField(
        choices=[("", "any"), *((n, f"{name} or worse") for n, name in SEVERITY_CHOICES)],
        coerce=int,
        empty_value=None,
        required=False,
        label="Severity",
    )
    q = forms.CharField(required=False, max_length=200, label="Text")

    def __init__(self, data, devices: QuerySet, **kwargs):
        super().__init__(data, **kwargs)
        self.fields["device"].queryset = devices

    def apply(self, events: QuerySet) -> QuerySet:
        """The events the valid filters keep (an invalid filter filters nothing; the form shows why)."""
        data = self.cleaned_data if self.is_valid() else {}
        if data.get("device"):
            events = events.filter(device__in=data["device"])
        if data.get("port"):
            events = events.filter(port=data["port"])
        if data.get("kind"):
            events = events.filter(kind__in=data["kind"])
        if data.get("source"):
            events = events.filter(source=data["source"])
        if data.get("severity") is not None:
            events = events.filter(severity__lte=data["severity"])
        if data.get("q"):
            events = events.filter(text__icontains=data["q"])
        return events


def in_window(devices: QuerySet, start: datetime, end: datetime) -> QuerySet:
    """Events of these devices from start to end; a window (maintenance) counts when it overlaps them."""
    return Event.objects.filter(device__in=devices).filter(
        Q(time__gte=start, time__lte=end) | Q(time__lt=start, ends_at__gte=start)
    )
