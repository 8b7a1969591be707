"""The events a request may see and asks for: visible devices, the page's time range, and the filters
(device, port, kind, source, severity or worse, text); shared by the pages and the API."""

from __future__ import annotations

from django import forms
from django.db.models import QuerySet

from monitor.events.kinds import KIND_CHOICES, SEVERITY_CHOICES, SOURCE_CHOICES
from monitor.events.models import Event
from monitor.graphs.timerange import RangeError, TimeRange, parse_range


class Filters(forms.Form):
    """Bad values get a message next to the field (and nothing is filtered by them)."""

    device = forms.ModelMultipleChoiceField(queryset=None, required=False)
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


def window(params) -> TimeRange:
    """The page's range (?range=1d or ?start=&end=), checked like the graphs' (RangeError says why)."""
    return parse_range(params.get("start"), params.get("end"), params.get("range"))


def in_window(devices: QuerySet, span: TimeRange) -> QuerySet:
    """Events of these devices in the range; a window (maintenance) counts when it overlaps the range."""
    from django.db.models import Q

    return Event.objects.filter(device__in=devices).filter(
        Q(time__gte=span.start, time__lte=span.end) | Q(time__lt=span.start, ends_at__gte=span.start)
    )


__all__ = ["Filters", "RangeError", "in_window", "window"]
