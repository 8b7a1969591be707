"""Add or change a device the one way the admin, the REST API and the bulk import all use: the device form's
checks (the device is tested and discovered before anything is saved), then what discovery found is recorded."""

from __future__ import annotations

from django.db import transaction
from django.forms.models import model_to_dict
from django.views.decorators.debug import sensitive_variables

from collectors.discovery import Discovery
from monitor.devices.credentials import SECRET_FIELDS
from monitor.devices.forms import ADMIN_SKIP, DeviceForm
from monitor.devices.inventory import record_discovery, sync_ports
from monitor.models import Device, Interface


def form_data(values: dict, instance: Device | None = None) -> dict:
    """The form's fields filled in: from `values`, else the device's current values (a change), else the
    model's defaults (an addition), so an API or CSV caller names only what it sets."""
    base = model_to_dict(instance, fields=DeviceForm._meta.fields) if instance else _defaults()
    for name in SECRET_FIELDS:
        base[name] = ""  # empty keeps the stored secret
    data = {**base, **{k: v for k, v in values.items() if v is not None}}
    return {k: ("" if v is None else v) for k, v in data.items()}  # booleans stay booleans: the widget reads them


def _defaults() -> dict:
    out = {}
    for name in DeviceForm._meta.fields:
        field = Device._meta.get_field(name)
        out[name] = field.get_default() if field.has_default() else ""
    return out


def after_save(device: Device, found: Discovery | None, change: bool, ticked: set[str] | None = None) -> None:
    """Record what discovery found (or ask for it at the first poll); honour ticked ports when a person saw them."""
    if found is None:
        if not change:
            device.rediscover = True
            device.save(update_fields=["rediscover"])
        return
    record_discovery(device, found)
    if ticked is not None:
        sync_ports(device, found.ports)
        for row in Interface.objects.filter(device=device, name__in=[p.name for p in found.ports]):
            if row.graphed != (row.name in ticked):
                row.graphed = row.name in ticked
                row.save(update_fields=["graphed"])


@sensitive_variables("values")  # a CSV row's secrets are plain text (the form and the API read them as Secret)
def save_device(
    values: dict, instance: Device | None = None, skip_hint: str = ADMIN_SKIP
) -> tuple[Device | None, dict[str, list[str]]]:
    """Test, discover and save: (the device, {}) or (None, {field or "__all__": [messages]}) with nothing saved;
    `skip_hint` is how the caller's user saves a device that cannot be reached now."""
    form = DeviceForm(form_data(values, instance), instance=instance, skip_hint=skip_hint)
    if not form.is_valid():
        return None, {name: [str(m) for m in messages] for name, messages in form.errors.items()}
    with transaction.atomic():
        device = form.save()
        after_save(device, form.discovery, change=instance is not None)
    return device, {}
