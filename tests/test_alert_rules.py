"""Rules over the metrics profiles add (sensors, volumes, CPU) and over scopes, fed real Sample rows."""

from __future__ import annotations

import time

import pytest
from django.utils import timezone

from collectors.samples import Sample
from monitor.alerts import defaults
from monitor.alerts.evaluator import evaluate
from monitor.alerts.models import AlertState, Event, Rule
from monitor.models import Device

pytestmark = pytest.mark.django_db


@pytest.fixture
def user(django_user_model):
    return django_user_model.objects.create_user("ops", "ops@example.com", "pw-for-tests-only")


def device(name: str, **extra) -> Device:
    return Device.objects.create(name=name, host="127.0.0.1", **extra)


def feed(dev: Device, samples_for, polls: int) -> None:
    for _ in range(polls):
        evaluate(dev, samples_for(dev), "")


def mails(rule: Rule) -> list[tuple[str, str, str]]:
    return list(Event.objects.filter(rule=rule, mail="queued").order_by("id").values_list("kind", "instance", "mail"))


def sensor(dev: Device, value: float, warning: float | None = 60.0, kind: str = "temperature") -> Sample:
    fields = {"value": value} if warning is None else {"value": value, "warning_high": warning}
    return Sample("sensor", {"device": str(dev.pk), "kind": kind, "name": "inlet"}, fields, time.time())


def test_temperature_default_uses_the_device_s_own_warning_threshold(user):
    dev = device("array")
    rule = defaults.enable(dev, "temperature", user)
    feed(dev, lambda d: [sensor(d, 65.0), sensor(d, 99.0, kind="fan")], 3)
    assert mails(rule) == [("fire", "inlet", "queued")]
    assert AlertState.objects.get(rule=rule).fire_level == 60.0
    feed(dev, lambda d: [sensor(d, 58.0)], 1)  # below the warning but above warning - 3: still firing
    assert AlertState.objects.get(rule=rule).state == "firing"
    feed(dev, lambda d: [sensor(d, 56.0)], 1)
    assert [k for k, _, _ in mails(rule)] == ["fire", "clear"]


def test_a_sensor_without_a_warning_threshold_is_not_judged(user):
    dev = device("quiet")
    rule = defaults.enable(dev, "temperature", user)
    feed(dev, lambda d: [sensor(d, 95.0, warning=None)], 4)
    assert not AlertState.objects.filter(rule=rule).exists()


def test_volume_latency_and_cpu_defaults(user):
    dev = device("eql")
    volume = defaults.enable(dev, "volume_latency", user)
    cpu = defaults.enable(dev, "cpu", user)

    def samples(d):
        return [
            Sample(
                "volume", {"device": str(d.pk), "volume": "vol1"}, {"read_latency_ms": 3.0, "write_latency_ms": 72.0}, 0
            ),
            Sample(
                "volume", {"device": str(d.pk), "volume": "vol2"}, {"read_latency_ms": 4.0, "write_latency_ms": 5.0}, 0
            ),
            Sample("system", {"device": str(d.pk)}, {"uptime_s": 10.0, "cpu_util": 95.5}, 0),
        ]

    feed(dev, samples, 3)
    assert mails(volume) == [("fire", "vol1", "queued")]
    assert mails(cpu) == [("fire", "", "queued")]


def test_profile_and_all_device_scopes_match_the_right_devices(user):
    a, b = device("pc-a", profile="powerconnect"), device("eql-b", profile="equallogic")
    rule = Rule.objects.create(
        name="busy switches", metric="cpu", scope="profile", profile="powerconnect", fire_level=50, clear_level=40,
        for_polls=1, recipient_emails="noc@example.com",
    )  # fmt: skip
    everyone = Rule.objects.create(
        name="any cpu", metric="cpu", scope="all", fire_level=50, clear_level=40, for_polls=1,
        recipient_emails="noc@example.com",
    )  # fmt: skip
    for dev in (a, b):
        evaluate(dev, [Sample("system", {"device": str(dev.pk)}, {"cpu_util": 70.0}, 0)], "")
    assert set(AlertState.objects.filter(rule=rule).values_list("device__name", flat=True)) == {"pc-a"}
    assert set(AlertState.objects.filter(rule=everyone).values_list("device__name", flat=True)) == {"pc-a", "eql-b"}


def test_rules_without_reachable_recipients_record_but_do_not_queue(user):
    dev = device("nobody")
    rule = Rule.objects.create(
        name="cpu", metric="cpu", scope="device", device=dev, fire_level=50, clear_level=40, for_polls=1
    )
    evaluate(dev, [Sample("system", {"device": str(dev.pk)}, {"cpu_util": 70.0}, 0)], "", now=timezone.now())
    assert list(Event.objects.filter(rule=rule).values_list("kind", "mail")) == [("fire", "norecipient")]


def test_a_gap_changes_nothing(user):
    dev = device("gappy")
    rule = defaults.enable(dev, "port_util", user)
    port = {"device": "1", "port": "1/g1"}
    evaluate(dev, [Sample("interface", port, {"in_bps": 9e8, "out_bps": 1e6, "speed_bps": 10**9}, 0)], "")
    evaluate(dev, [Sample("interface", port, {"speed_bps": 10**9, "oper_up": 1}, 0)], "")  # no rate: a gap
    state = AlertState.objects.get(rule=rule)
    assert (state.state, state.count, state.value) == ("pending", 1, 90.0)
