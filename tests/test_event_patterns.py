"""Event-rule patterns are run by google-re2 (linear time): a pattern that makes Python's backtracking `re` run for
hours, saved in a rule, stops no event of the real receivers (processes of their own, as deployed) and still matches
what it should; the form refuses what re2 cannot run and says why; an old rule it cannot run is reported, not fatal."""

from __future__ import annotations

import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
from django.core import checks
from django.utils import timezone
from hypothesis import example, given
from hypothesis import settings as hypothesis_settings
from hypothesis import strategies as st

from monitor.alerts import eventrules, patterns
from monitor.alerts.forms import RuleForm
from monitor.alerts.models import AlertState, Rule
from monitor.alerts.models import Event as AlertEvent
from monitor.devstack.processes import Process, free_port, free_udp_port
from monitor.events.models import Event, ReceiverCount
from monitor.models import Device, Interface
from tests import eventkit as kit
from tests.conftest import wait_for

pytestmark = pytest.mark.django_db(transaction=True)
REPO = Path(__file__).resolve().parent.parent
HOSTILE = r"(\w+\s?)+$"  # nested quantifiers: 2^n paths for a run of n word characters that is not at the end
FLOOD = 2000


def receiver(kind: str, port: int, env: dict, stack_dir: Path) -> Process:
    """`manage.py receive_<kind>` as its own process on the test stack, as docker compose runs it."""
    argv = [sys.executable, "manage.py", f"receive_{kind}", "--bind", "127.0.0.1", "--port", str(port),
            "--name", f"{kind}@patterns"]  # fmt: skip
    return Process(f"receive-{kind}", argv, stack_dir / "log" / f"receive-{kind}-{time.time_ns()}.log", env, REPO)


def inform(port: int, down: bool) -> bool:
    """Net-SNMP's snmpinform of a linkDown or linkUp: True once the receiver acknowledged it (it holds it then)."""
    args = ["snmpinform", "-t", "3", "-r", "0", *kit.link_trap_args(port, 5, down=down)]
    return subprocess.run(args, capture_output=True, timeout=30).returncode == 0


def counts(kind: str) -> dict[str, int]:
    """The receiver's own counts by reason, as flushed to its rows."""
    rows = ReceiverCount.objects.filter(receiver__name=f"{kind}@patterns")
    return dict(rows.values_list("reason", "count"))


def connects(port: int) -> socket.socket | None:
    try:
        return socket.create_connection(("127.0.0.1", port), timeout=30)
    except OSError:
        return None


def test_a_backtracking_pattern_stops_no_event_and_still_matches(clean_backends, stack_dir):
    device = Device.objects.create(name="flood-switch", host="127.0.0.1", community="traps")
    Interface.objects.create(device=device, name="1/g5", if_index=5)
    rule = Rule.objects.create(name="ends in a word", metric="event", scope="device", device=device, for_polls=1,
                               fire_level=0.5, clear_level=0.5, event_pattern=HOSTILE,
                               recipient_emails="ops@example.com")  # fmt: skip
    syslog_port, trap_port = free_port(), free_udp_port()
    running = [receiver("syslog", syslog_port, clean_backends, stack_dir),
               receiver("traps", trap_port, clean_backends, stack_dir)]  # fmt: skip
    try:
        wait_for(lambda: inform(trap_port, down=True), 60, "the trap receiver acknowledging an inform", interval=0.5)
        stream = wait_for(lambda: connects(syslog_port), 60, "the syslog receiver's TCP port")
        # Ordinary lines ending in a full stop: the pattern fails on each after 2^(letters before it) tries in `re`.
        lines = [f"<27>Nov 28 07:00:00 flood-switch raidd: disk {n} of the array is rebuilding on controller zero."
                 for n in range(FLOOD)]  # fmt: skip
        lines.insert(FLOOD // 2, "<26>Nov 28 07:00:01 flood-switch raidd: RAID set 2 degraded on controller zero")
        with stream:
            stream.sendall("".join(f"{line}\n" for line in lines).encode())
        acknowledged = 1 + sum(inform(trap_port, down=n % 2 == 1) for n in range(6))  # during the flood's writing
        assert acknowledged == 7
        wait_for(lambda: Event.objects.filter(device=device, source="syslog").count() >= FLOOD + 1, 90,
                 f"the {FLOOD + 1} lines stored")  # fmt: skip
        traps = wait_for(lambda: Event.objects.filter(device=device, source="trap").count() >= 7
                         and counts("traps").get("stored", 0) >= 7 and counts("traps"),
                         30, "the informs stored and counted")  # fmt: skip
        lines_counted = wait_for(lambda: counts("syslog").get("stored", 0) >= FLOOD + 1 and counts("syslog"), 30,
                                 "the syslog receiver's counts")  # fmt: skip
    finally:
        for process in running:
            process.stop()
    assert Event.objects.filter(device=device, source="syslog").count() == FLOOD + 1
    assert lines_counted == {"stored": FLOOD + 1}  # nothing dropped: no queue_full, no other reason
    assert traps.get("stored", 0) == Event.objects.filter(device=device, source="trap").count() >= 7, traps
    assert "queue_full" not in traps, traps
    fired = list(AlertEvent.objects.filter(rule=rule, kind="fire").values_list("detail", flat=True))
    assert fired == ["raidd: RAID set 2 degraded on controller zero"]  # the one line that ends in a word
    assert AlertState.objects.get(rule=rule).state == "firing"


@pytest.mark.parametrize(
    "pattern, message",
    [
        (r"(a)\1", r"backreferences (\1, (?P=name)) are not supported"),
        (r"link(?=down)", "lookarounds ((?=, (?!, (?<=, (?<!) are not supported"),
        (r"(?<!admin )down", "lookarounds ((?=, (?!, (?<=, (?<!) are not supported"),
        ("(unclosed", "missing ): (unclosed"),
        ("a{1001}", "invalid repetition size: {1001} (counts up to 1000, nested ones multiplied)"),
        (r"(\w{100}){100}", "invalid repetition size: {100} (counts up to 1000, nested ones multiplied)"),
        (r"\pL{1000}", "the pattern is too large (it would need more than 8 MB)"),
    ],
)
def test_the_form_refuses_what_re2_cannot_run_and_says_why(pattern, message, stack_env):
    device = Device.objects.create(name="form-switch", host="127.0.0.1", community="x")
    data = {"name": "r", "enabled": "on", "metric": "event", "scope": "device", "device": device.pk,
            "event_kind": "syslog", "event_pattern": pattern, "quiet_minutes": 15, "for_polls": 1,
            "repeat_minutes": 0, "recipient_emails": "ops@example.com", "direction": "above",
            "unit": "absolute"}  # fmt: skip
    form = RuleForm(data)
    assert not form.is_valid()
    assert form.errors["event_pattern"] == [f"Not a pattern this monitor can run: {message}."]
    assert RuleForm(data | {"event_pattern": r"(?i)link\s+down on \d+/g\d+$"}).is_valid()


def test_an_old_rule_re2_cannot_run_is_reported_and_stops_nothing(stack_env):
    device = Device.objects.create(name="old-switch", host="127.0.0.1", community="x")
    old = Rule.objects.create(name="from before re2", metric="event", scope="device", device=device, for_polls=1,
                              fire_level=0.5, clear_level=0.5, event_pattern=r"(\w+) \1",
                              recipient_emails="ops@example.com")  # fmt: skip
    fine = Rule.objects.create(name="degraded", metric="event", scope="device", device=device, for_polls=1,
                               fire_level=0.5, clear_level=0.5, event_pattern="DEGRADED",
                               recipient_emails="ops@example.com")  # fmt: skip
    found = [m for m in checks.run_checks(databases=["default"]) if m.id == "alerts.W001"]
    assert len(found) == 1 and found[0].level == checks.WARNING
    assert found[0].msg == (
        f"Alert rule {old.pk} ('from before re2') has an event pattern this monitor cannot run "
        r"(backreferences (\1, (?P=name)) are not supported); it matches no event until it is fixed."
    )
    stored = Event.objects.create(device=device, time=timezone.now(), source="syslog", kind="syslog", severity=3,
                                  text="raidd: raid raid set degraded")  # fmt: skip
    eventrules.evaluate_events([stored])  # no exception: the old rule matches nothing, the others go on
    assert not AlertState.objects.filter(rule=old).exclude(state="ok").exists()
    assert AlertState.objects.get(rule=fine).state == "firing"


def test_a_pattern_sees_at_most_the_first_characters_of_a_text():
    assert patterns.matches("tail$", "x" * (patterns.TEXT_MAX - 4) + "tail")
    assert not patterns.matches("tail$", "x" * patterns.TEXT_MAX + "tail")
    assert patterns.matches("LINK DOWN", "link down on 1/g5")  # case-insensitive, as before


ANY_CHARACTER = st.characters(blacklist_categories=())  # surrogates and controls too


@hypothesis_settings(max_examples=300, deadline=None)
@given(pattern=st.text(ANY_CHARACTER, max_size=200), text=st.text(ANY_CHARACTER, max_size=2500))
@example(pattern="down\ud800", text="link down")
@example(pattern="down", text="link down \udcff on 1/g5")
def test_any_pattern_is_run_or_refused_with_a_reason_and_matching_never_raises(pattern, text):
    try:
        patterns.compile_pattern(pattern)
    except patterns.PatternError as exc:
        assert str(exc)
        assert patterns.problem(pattern) == str(exc) and not patterns.matches(pattern, text)
    else:
        assert patterns.problem(pattern) == ""
        assert patterns.matches(pattern, text) in (True, False)
