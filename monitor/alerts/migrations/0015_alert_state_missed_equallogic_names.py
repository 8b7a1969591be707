"""Counting the polls that answered without a target (a target is closed as no longer reported only after
GONE_POLLS of them); and an EqualLogic's disks, sensors, fans and power supplies are named by their member first
from here on ("Disk eql-member-1 0", "eql-member-1 Backplane sensor 0"): before, two members' "Disk 0" were one
series, a failed disk hidden behind a healthy one. The states kept under the bare names would never be observed
again; they are set back to ok here, without a mail (their history stays), and a part still not ok fires again under
its new name at the next poll."""

from django.db import migrations, models

EQUALLOGIC = ("dell-equallogic",)
# Array health parts whose names now start with their member's (monitor/storage/health.py LABELS)
RENAMED_PARTS = ("Disk ", "Temperature ", "Fan ", "Power supply ")


def close_bare_names(apps, schema_editor):
    AlertState = apps.get_model("alerts", "AlertState")
    states = AlertState.objects.filter(device__profile__in=EQUALLOGIC).exclude(state="ok")
    sensors = states.filter(rule__metric="temperature")
    parts = states.filter(rule__metric="array_health")
    stale = [row.pk for row in parts if row.instance.startswith(RENAMED_PARTS)]
    sensors.update(state="ok", count=0, alerted=False, flapping=False)
    AlertState.objects.filter(pk__in=stale).update(state="ok", count=0, alerted=False, flapping=False)


class Migration(migrations.Migration):
    dependencies = [
        ("alerts", "0014_rule_metric_disk_life_equallogic"),
    ]

    operations = [
        migrations.AddField(
            model_name="alertstate",
            name="missed",
            field=models.PositiveIntegerField(default=0, help_text="Polls in a row that answered without this target."),
        ),
        migrations.RunPython(close_bare_names, migrations.RunPython.noop),
    ]
