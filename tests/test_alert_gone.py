"""A target its device no longer reports (a sensor removed, a volume deleted, an alert the array dropped) closes as
"no longer reported" once no poll has read it for ALERTS_GONE_AFTER_S (or three of the device's polls) while the
device answers; a poll that fails, a target read without a value, and event rules never close that way."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from collectors import histograms
from collectors.samples import Sample
from monitor.alerts import defaults, delivery
from monitor.alerts.evaluator import evaluate, evaluate_many
from monitor.alerts.messages import build_message
from monitor.alerts.models import AlertState, Event, Maintenance, Rule
from monitor.events.models import Event as TimelineEvent
from monitor.models import Device
from monitor.polling.signals import PollEvent
from tests import test_alert_kit as kit

pytestmark = pytest.mark.django_db
smtp = kit.smtp  # fixture: a real SMTP server on loopback
HOUR, SECOND = timedelta(hours=1), timedelta(seconds=1)


@pytest.fixture
def user(django_user_model):
    return django_user_model.objects.create_user("ops", "ops@example.com", "pw-for-tests-only")


def sensor(dev: Device, name: str, value: float) -> Sample:
    return Sample("sensor", {"device": str(dev.pk), "kind": "temperature", "name": name}, {"value": value,
                  "warning_high": 60.0}, 0)  # fmt: skip


def two_hot_sensors(dev: Device, user, **extra) -> tuple[Rule, timezone.datetime]:
    """Both sensors over their warning for three polls a minute apart: two firing targets; the last poll's time."""
    rule = defaults.enable(dev, "temperature", user)
    start = timezone.now() - 3 * HOUR
    for minute in range(3):
        evaluate(dev, [sensor(dev, "inlet", 70.0), sensor(dev, "exhaust", 75.0)], "", start + timedelta(minutes=minute))
    assert dict(AlertState.objects.filter(rule=rule).values_list("instance", "state")) == {
        "inlet": "firing",
        "exhaust": "firing",
    }
    return rule, start + timedelta(minutes=2)


def states(rule: Rule) -> dict[str, str]:
    return dict(AlertState.objects.filter(rule=rule).values_list("instance", "state"))


def test_a_sensor_the_device_stops_serving_closes_after_an_hour_with_a_mail_that_says_so(user, smtp):
    dev = Device.objects.create(name="array-1", host="127.0.0.1", poll_interval_s=300)
    rule, last = two_hot_sensors(dev, user)
    only_inlet = [sensor(dev, "inlet", 71.0)]
    evaluate(dev, only_inlet, "", last + timedelta(minutes=30))
    evaluate(dev, only_inlet, "", last + timedelta(minutes=59))
    assert states(rule) == {"inlet": "firing", "exhaust": "firing"}  # under an hour unread: it may come back
    evaluate(dev, only_inlet, "", last + timedelta(minutes=61))
    assert states(rule) == {"inlet": "firing", "exhaust": "ok"}
    closed = Event.objects.get(rule=rule, instance="exhaust", kind="clear")
    assert closed.mail == "queued" and closed.value == 75.0  # its last value, mailed: its fire was mailed
    assert closed.detail.startswith("no longer reported by the device since ")
    assert closed.since is not None and closed.created_at is not None
    message = build_message(closed)
    assert message.subject.startswith("[NO LONGER REPORTED] array-1 exhaust")
    assert "no longer reported by the device" in message.body and "The alert is closed." in message.body
    assert "back to or below" not in message.body and "RECOVERED" not in message.body
    timeline = TimelineEvent.objects.filter(device=dev, kind="alert_clear").values_list("text", flat=True)
    assert [t for t in timeline if "exhaust" in t] == [
        f"Alert {rule.name!r} on exhaust closed: {closed.detail}"
    ]  # closed, not "recovered"
    assert delivery.send_due()["sent"] == 3
    assert sorted(str(m["Subject"]).strip().split("]")[0] for m in smtp.messages) == [
        "[FIRING",
        "[FIRING",
        "[NO LONGER REPORTED",
    ]
    text = next(m for m in smtp.messages if "NO LONGER" in str(m["Subject"])).get_body(("plain",)).get_content()
    assert "Temperature sensor: no longer reported by the device since" in text and "Last value: 75.0" in text
    evaluate(dev, [sensor(dev, "inlet", 71.0), sensor(dev, "exhaust", 80.0)], "", last + timedelta(minutes=62))
    assert AlertState.objects.get(rule=rule, instance="exhaust").state == "pending"  # back: judged afresh


def test_a_device_that_does_not_answer_closes_nothing(user):
    dev = Device.objects.create(name="array-2", host="127.0.0.1", poll_interval_s=60)
    rule, last = two_hot_sensors(dev, user)
    for hours in (1, 2, 5):
        evaluate(dev, [], "timeout", last + hours * HOUR)
    assert states(rule) == {"inlet": "firing", "exhaust": "firing"}
    evaluate(dev, [sensor(dev, "inlet", 71.0), sensor(dev, "exhaust", 75.0)], "", last + 6 * HOUR)
    assert states(rule) == {"inlet": "firing", "exhaust": "firing"}
    assert not Event.objects.filter(rule=rule, kind="clear").exists()


def test_a_device_polled_hourly_keeps_a_target_for_three_of_its_polls(user):
    dev = Device.objects.create(name="array-3", host="127.0.0.1", poll_interval_s=3600)
    rule, last = two_hot_sensors(dev, user)
    only_inlet = [sensor(dev, "inlet", 71.0)]
    evaluate(dev, only_inlet, "", last + 2 * HOUR)
    evaluate(dev, only_inlet, "", last + 2.9 * HOUR)
    assert states(rule)["exhaust"] == "firing"
    evaluate(dev, only_inlet, "", last + 3.1 * HOUR)
    assert states(rule)["exhaust"] == "ok"


def test_a_volume_idle_for_hours_is_still_there_and_one_missed_poll_later_does_not_close_it(user):
    dev = Device.objects.create(name="nimble-1", host="127.0.0.1", poll_interval_s=60)
    rule = Rule.objects.create(
        name="read p95 over 2 ms", metric="volume_read_p95", scope="device", device=dev, direction="above",
        fire_level=2.0, clear_level=2.0, for_polls=1,
    )  # fmt: skip
    slow = [0.0] * len(histograms.BUCKETS)
    slow[5] = 100.0  # every read of the poll took 2-5 ms
    idle = [0.0] * len(histograms.BUCKETS)

    def volume(counts: list[float]) -> Sample:
        return Sample("volume", {"device": str(dev.pk), "volume": "sql"}, dict(zip(histograms.fields("read"), counts,
                      strict=True)), 0)  # fmt: skip

    start = timezone.now() - 5 * HOUR
    evaluate(dev, [volume(slow)], "", start)
    assert states(rule) == {"sql": "firing"}
    evaluate(dev, [volume(idle)], "", start + 2 * HOUR)  # served, no I/O: no percentile, not gone
    assert states(rule) == {"sql": "firing"}
    evaluate(dev, [], "", start + 2 * HOUR + timedelta(minutes=1))  # one poll without the volume (a short walk)
    assert states(rule) == {"sql": "firing"}
    evaluate(dev, [], "", start + 3 * HOUR + timedelta(minutes=2))  # unread for over an hour, but missed twice
    assert states(rule) == {"sql": "firing"}
    evaluate(dev, [], "", start + 3 * HOUR + timedelta(minutes=3))  # the third poll in a row without it: gone
    assert states(rule) == {"sql": "ok"}


def test_a_pending_target_that_goes_is_cancelled_without_mail(user):
    dev = Device.objects.create(name="array-4", host="127.0.0.1", poll_interval_s=60)
    rule = defaults.enable(dev, "temperature", user)
    start = timezone.now() - 3 * HOUR
    evaluate(dev, [sensor(dev, "inlet", 70.0)], "", start)
    assert states(rule) == {"inlet": "pending"}
    for minute in range(3):
        evaluate(dev, [], "", start + 2 * HOUR + timedelta(minutes=minute))
    assert states(rule) == {"inlet": "ok"}
    kinds = list(Event.objects.filter(rule=rule).values_list("kind", "mail"))
    assert kinds == [("cancelled", "none"), ("pending", "none")]


def test_an_alert_that_fired_in_maintenance_closes_without_a_mail(user):
    dev = Device.objects.create(name="array-5", host="127.0.0.1", poll_interval_s=60)
    rule = defaults.enable(dev, "temperature", user)
    start = timezone.now() - 3 * HOUR
    Maintenance.objects.create(device=dev, starts_at=start - HOUR, ends_at=start + HOUR, reason="disk swap")
    for minute in range(3):
        evaluate(dev, [sensor(dev, "inlet", 70.0)], "", start + timedelta(minutes=minute))
    assert Event.objects.get(rule=rule, kind="fire").mail == "muted"
    for minute in range(3):  # maintenance over, the sensor gone: nothing was mailed, nothing to close
        evaluate(dev, [], "", start + 2 * HOUR + timedelta(minutes=minute))
    assert list(Event.objects.filter(rule=rule, kind="clear").values_list("mail", flat=True)) == ["none"]


def test_an_event_rule_is_not_closed_by_polls(user):
    dev = Device.objects.create(name="switch-1", host="127.0.0.1", poll_interval_s=60)
    rule = Rule.objects.create(
        name="link down", metric="event", scope="device", device=dev, direction="above", fire_level=0.5,
        clear_level=0.5, for_polls=1, event_kind="link_down",
    )  # fmt: skip
    AlertState.objects.create(rule=rule, device=dev, instance="1/g1", state="firing",
                              seen_at=timezone.now() - 5 * HOUR)  # fmt: skip
    evaluate(dev, [sensor(dev, "inlet", 20.0)], "", timezone.now())
    assert states(rule) == {"1/g1": "firing"}


def test_a_poll_that_could_not_read_a_table_whole_misses_nothing_of_it(user):
    """A table walk that failed or stopped at its row limit (PollEvent.unread) says nothing of what the table lacks:
    after hours of such polls, and after the device was away for hours, it takes three polls that read the sensors
    whole and lack one to close it."""
    dev = Device.objects.create(name="array-6", host="127.0.0.1", poll_interval_s=60)
    rule, last = two_hot_sensors(dev, user)
    only_inlet = [sensor(dev, "inlet", 71.0)]
    for minute in range(0, 180, 20):  # three hours of polls whose sensor table stopped short
        evaluate_many([PollEvent(dev, only_inlet, "", unread=frozenset({"sensor"}))], last + timedelta(minutes=minute))
    assert states(rule) == {"inlet": "firing", "exhaust": "firing"}
    for minute in range(200, 260, 20):  # away an hour
        evaluate(dev, [], "timeout", last + timedelta(minutes=minute))
    evaluate(dev, only_inlet, "", last + 5 * HOUR)  # one whole poll without it, hours after it was last read
    evaluate_many([PollEvent(dev, only_inlet, "", unread=frozenset({"interface"}))], last + 5 * HOUR + 60 * SECOND)
    assert states(rule)["exhaust"] == "firing"  # two polls read the sensors whole (the other's failure was its ports)
    evaluate(dev, only_inlet, "", last + 5 * HOUR + 120 * SECOND)
    assert states(rule)["exhaust"] == "ok"
