"""The Celery worker yields a contended CPU to the web pages: its processes and its session run niced."""

from __future__ import annotations

import os
import subprocess
import sys

from tests.conftest import REPO

SHOW = (
    "import os, sys; from collectors.procs import lower_priority; lower_priority(int(sys.argv[1]));"
    "print(os.getpriority(os.PRIO_PROCESS, 0)); print(open('/proc/self/autogroup').read().strip())"
)


def run(nice: int, *, own_session: bool, start_at: int = 0) -> tuple[int, str]:
    """Call lower_priority(nice) in a fresh Python; return its niceness and its autogroup line after."""

    def start() -> None:
        if start_at:
            os.nice(start_at)

    done = subprocess.run(
        [sys.executable, "-c", SHOW, str(nice)],
        cwd=REPO,
        capture_output=True,
        text=True,
        check=True,
        start_new_session=own_session,
        preexec_fn=start,
    )
    process, _, group = done.stdout.partition("\n")
    return int(process), group.strip()


def autogroup() -> str:
    """This process's autogroup line ("/autogroup-4 nice 0"); empty in the root group (a session of init's)."""
    with open("/proc/self/autogroup", encoding="ascii") as handle:
        return handle.read().strip()


def nice_of(group: str) -> int:
    return int(group.rsplit("nice", 1)[1])


def test_a_worker_leading_its_own_session_nices_itself_and_its_session():
    ours = os.getpriority(os.PRIO_PROCESS, 0)
    process, group = run(10, own_session=True)
    assert (process, nice_of(group)) == (max(10, ours), 10)


def test_a_worker_started_from_a_shell_leaves_the_shells_session_alone():
    before = autogroup()
    process, group = run(10, own_session=False)
    assert process == max(10, os.getpriority(os.PRIO_PROCESS, 0))
    assert group == before == autogroup()  # the same group, its nice unchanged (or both the root group's "")


def test_a_worker_already_nicer_is_not_raised_and_zero_leaves_it_as_started():
    assert run(5, own_session=True, start_at=12)[0] == max(12, os.getpriority(os.PRIO_PROCESS, 0))
    process, group = run(0, own_session=True)
    assert (process, nice_of(group)) == (os.getpriority(os.PRIO_PROCESS, 0), 0)
