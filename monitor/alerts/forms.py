"""Rule and maintenance forms (admin and pages): bad input gets a message next to its field.

The pages pass the user's `Access`: a user who does not see everything chooses among visible devices
and readable tree branches only (the admin, staff only, passes none and offers every device).
"""

from __future__ import annotations

from django import forms
from django.core.exceptions import ValidationError
from django.core.validators import validate_email

from monitor.alerts import patterns
from monitor.alerts.models import Maintenance, Rule
from monitor.alerts.rules import EVENT, METRICS
from monitor.alerts.scopes import branches_supported
from monitor.core.formfields import CheckedModelMultipleChoiceField
from monitor.graphs.access import Access, branch_header
from monitor.models import Device

NARROW_SCOPE = (
    "Choose a device, a series or a tree branch: a rule may watch only devices you can see, and 'every device' "
    "and profile rules watch devices of trees you cannot read."
)
EVENT_DEFAULTS = ("quiet_minutes", "events_needed", "within_minutes")  # left out: the model's default


class VisibleChoices:
    """Limits the device field to visible devices and the branch to readable trees when given an Access."""

    def __init__(self, *args, access: Access | None = None, **kwargs):
        super().__init__(*args, **kwargs)
        self.access = access if access is not None and not access.everything else None
        if self.access is not None:
            self.fields["device"].queryset = self.access.devices()
            self._narrow_scopes()

    def _narrow_scopes(self) -> None:
        """A user who does not see everything picks no scope that covers devices they cannot see (all, profile)."""
        scope = self.fields.get("scope")
        if scope is None:
            return
        wide = {Rule.Scope.ALL, Rule.Scope.PROFILE}
        scope.choices = [(value, label) for value, label in scope.choices if value not in wide]
        scope.error_messages["invalid_choice"] = NARROW_SCOPE

    def clean_branch(self) -> str:
        """A branch is the id of a tree header the user can read; it is kept as the header's id."""
        branch = self.cleaned_data.get("branch", "")
        if not branch or not branches_supported():
            return branch  # clean() says when there are no trees to name a branch of
        from monitor.graphs.trees.models import TreeNode

        nodes = TreeNode.objects.all() if self.access is None else self.access.nodes()
        node_id = branch_header(nodes, branch)
        if node_id is None:
            raise ValidationError("No such tree branch in the trees you can see.")
        return str(node_id)


class RuleForm(VisibleChoices, forms.ModelForm):
    class Meta:
        model = Rule
        fields = [
            "name",
            "enabled",
            "metric",
            "scope",
            "device",
            "instance",
            "profile",
            "branch",
            "direction",
            "unit",
            "fire_level",
            "clear_level",
            "event_kind",
            "event_severity",
            "event_pattern",
            "quiet_minutes",
            "events_needed",
            "within_minutes",
            "for_polls",
            "repeat_minutes",
            "recipient_users",
            "recipient_emails",
            "channels",
        ]
        widgets = {
            "channels": forms.CheckboxSelectMultiple,
            "recipient_emails": forms.Textarea(attrs={"rows": 3}),
            "recipient_users": forms.CheckboxSelectMultiple,
        }
        field_classes = {"recipient_users": CheckedModelMultipleChoiceField}
        error_messages = {
            "metric": {"invalid_choice": "Unknown metric %(value)s: choose one of the metrics in the list."},
        }

    def clean_recipient_emails(self) -> str:
        text = self.cleaned_data.get("recipient_emails", "")
        addresses = [a.strip() for a in text.replace(",", "\n").splitlines() if a.strip()]
        for address in addresses:
            try:
                validate_email(address)
            except ValidationError:
                raise ValidationError(f"{address[:80]!r} is not an email address.") from None
        return "\n".join(addresses)

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        # Event rules have no levels (a match is the breach); forms from before event rules leave out quiet_minutes
        # and the hold of events. The admin builds a view-only user's form with none of these fields.
        for name in ("fire_level", "clear_level", *EVENT_DEFAULTS):
            if name in self.fields:
                self.fields[name].required = False

    def clean_event_pattern(self) -> str:
        """A pattern re2 can run (linear time: no backreferences nor lookarounds), or why not."""
        pattern = self.cleaned_data.get("event_pattern", "")
        try:
            patterns.compile_pattern(pattern)
        except patterns.PatternError as exc:
            raise ValidationError(f"Not a pattern this monitor can run: {exc}.") from None
        return pattern

    def clean(self) -> dict:
        data = super().clean()
        for name in EVENT_DEFAULTS:
            if data.get(name) is None and name not in self.errors:
                data[name] = Rule._meta.get_field(name).default
        if data.get("metric") == EVENT:
            data["fire_level"] = data["clear_level"] = 0.5  # a match (1) is above, a clear (0) below
            self.instance.fire_level = self.instance.clear_level = 0.5
        else:
            for name in ("fire_level", "clear_level"):
                if data.get(name) is None and name not in self.errors:
                    self.add_error(name, "This field is required.")
        self._check_recipients(data)
        self._check_scope(data)
        self._check_levels(data)
        return data

    def _check_recipients(self, data: dict) -> None:
        users = list(data.get("recipient_users") or [])
        for user in users:
            if not user.email:
                self.add_error("recipient_users", f"User {user.get_username()} has no email address.")
        nobody = not users and not data.get("recipient_emails") and not data.get("channels")
        if nobody and "recipient_emails" not in self.errors:
            self.add_error("recipient_emails", "Add at least one recipient: a user, an email address or a channel.")

    def _check_scope(self, data: dict) -> None:
        scope = data.get("scope")
        if scope in (Rule.Scope.SERIES, Rule.Scope.DEVICE) and not data.get("device"):
            self.add_error("device", "Choose the device this rule watches.")
        if scope == Rule.Scope.SERIES and not data.get("instance"):
            self.add_error("instance", "Name the port, volume or sensor (for example 1/g1).")
        if scope == Rule.Scope.PROFILE:
            if not any(f.name == "profile" for f in Device._meta.get_fields()):
                self.add_error("scope", "Devices have no profile yet: choose another scope.")
            elif not data.get("profile"):
                self.add_error("profile", "Name the device profile.")
        if scope == Rule.Scope.BRANCH:
            if not branches_supported():
                self.add_error("scope", "Tree branches need the graph trees app, which cannot list branches yet.")
            elif not data.get("branch"):
                self.add_error("branch", "Name the tree branch.")

    def _check_levels(self, data: dict) -> None:
        metric = METRICS.get(data.get("metric") or "")
        unit = data.get("unit")
        if metric is not None and unit == Rule.Unit.PERCENT and not metric.speed_field:
            self.add_error("unit", f"Percent of port speed only applies to port metrics, not {metric.label}.")
        if metric is not None and unit == Rule.Unit.WARNING and not metric.warning_field:
            self.add_error("unit", f"{metric.label} has no device warning threshold to be relative to.")
        fire, clear, direction = data.get("fire_level"), data.get("clear_level"), data.get("direction")
        if fire is None or clear is None:
            return
        if direction == Rule.Direction.ABOVE and clear > fire:
            self.add_error(
                "clear_level", f"For an 'above' rule the clear level must be at or below the fire level ({fire:g})."
            )
        if direction == Rule.Direction.BELOW and clear < fire:
            self.add_error(
                "clear_level", f"For a 'below' rule the clear level must be at or above the fire level ({fire:g})."
            )


class MaintenanceForm(VisibleChoices, forms.ModelForm):
    class Meta:
        model = Maintenance
        fields = ["device", "branch", "starts_at", "ends_at", "reason"]
        widgets = {
            "starts_at": forms.DateTimeInput(attrs={"type": "datetime-local"}, format="%Y-%m-%dT%H:%M"),
            "ends_at": forms.DateTimeInput(attrs={"type": "datetime-local"}, format="%Y-%m-%dT%H:%M"),
        }

    def clean(self) -> dict:
        data = super().clean()
        if bool(data.get("device")) == bool(data.get("branch")):
            self.add_error("device", "Choose a device or a tree branch (one of the two).")
        if data.get("branch") and not branches_supported():
            self.add_error("branch", "Tree branches need the graph trees app, which cannot list branches yet.")
        starts, ends = data.get("starts_at"), data.get("ends_at")
        if starts and ends and ends <= starts:
            self.add_error("ends_at", "The end must be after the start.")
        return data
