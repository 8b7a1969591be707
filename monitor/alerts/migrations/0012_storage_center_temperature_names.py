"""A Dell SC's temperature sensors are named after their controller or enclosure in alert rules from 0011 on ("SN 60001
CPU One"): before, two controllers' "CPU One" were one series flipping between them. The states kept under the bare
names would never be observed again and so never clear; they are set back to ok here (their history stays), and a
sensor still too hot fires again under its new name at the next polls."""

from django.db import migrations

STORAGE_CENTER = ("dell-storage-sc",)


def close_bare_names(apps, schema_editor):
    AlertState = apps.get_model("alerts", "AlertState")
    stale = AlertState.objects.filter(rule__metric="temperature", device__profile__in=STORAGE_CENTER).exclude(
        state="ok"
    )
    stale.update(state="ok", count=0, alerted=False, flapping=False)


class Migration(migrations.Migration):
    dependencies = [
        ("alerts", "0011_rule_metric_replication_lag_disk_life"),
        ("monitor", "0006_poll_interval_change"),
    ]

    operations = [migrations.RunPython(close_bare_names, migrations.RunPython.noop)]
