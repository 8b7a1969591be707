"""`manage.py demo_outage`: the demo's access switch dies for a while (its agent, and the array's behind it, pause)."""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from monitor.devstack.campus import STORY_PID


class Command(BaseCommand):
    help = (
        "Pause the agent of pc6248-demo and eql-demo (the array behind it) while `make demo` runs: the pollers get no "
        "answer, so the demo's 'not answering' rule sends one alert for pc6248-demo that names eql-demo, whose own "
        "alert waits. Ctrl-C ends the outage sooner."
    )

    def add_arguments(self, parser):
        parser.add_argument("--minutes", type=float, default=5.0, help="how long the outage lasts (default 5)")

    def handle(self, *args, **opts):
        if not 0 < opts["minutes"] <= 120:
            raise CommandError("--minutes must be more than 0 and at most 120")
        path = Path(settings.VAR_DIR) / "fleet" / STORY_PID
        try:
            pid = int(path.read_text().strip())
            os.killpg(pid, 0)
        except (OSError, ValueError):
            raise CommandError(f"no running demo agent found ({path}); start `make demo` first") from None
        os.killpg(pid, signal.SIGSTOP)
        self.stdout.write(f"pc6248-demo and eql-demo stop answering for {opts['minutes']:g} min (Ctrl-C ends it)...")
        try:
            time.sleep(opts["minutes"] * 60)
        except KeyboardInterrupt:
            pass
        finally:
            os.killpg(pid, signal.SIGCONT)
        self.stdout.write("they answer again; the alert clears at the next poll")
