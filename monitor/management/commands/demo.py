"""`manage.py demo`: run the whole product locally (Redis, InfluxDB, simulated fleet, worker, beat, web)."""

from __future__ import annotations

import os
import signal
import sys
import threading
import time
from pathlib import Path

from django.conf import settings
from django.core.management import call_command
from django.core.management.base import BaseCommand, CommandError

from monitor.devstack import campus, demoenv, demotree, fleet, services
from monitor.devstack.processes import Process, StartError, wait_http


def _raise_interrupt(signum, frame):
    raise KeyboardInterrupt


class Command(BaseCommand):
    help = "Start Redis, InfluxDB, snmpsim agents, a Celery worker and beat, and the web server; Ctrl-C stops all."

    def add_arguments(self, parser):
        parser.add_argument("--web-port", type=int, default=int(os.environ.get("DEMO_WEB_PORT", 8000)))
        parser.add_argument("--redis-port", type=int, default=int(os.environ.get("DEMO_REDIS_PORT", 6379)))
        parser.add_argument("--influxdb-port", type=int, default=int(os.environ.get("DEMO_INFLUXDB_PORT", 8086)))
        parser.add_argument("--snmp-port", type=int, default=int(os.environ.get("DEMO_SNMP_PORT", 1161)))
        parser.add_argument("--trap-port", type=int, default=int(os.environ.get("DEMO_TRAP_PORT", 1162)))
        parser.add_argument("--syslog-port", type=int, default=int(os.environ.get("DEMO_SYSLOG_PORT", 1514)))
        parser.add_argument(
            "--campus-snmp-port",
            type=int,
            default=int(os.environ.get("DEMO_CAMPUS_SNMP_PORT", 1163)),
            help="the campus switches' agent (core-demo, access2-demo)",
        )
        parser.add_argument("--poll-interval", type=int, default=60, help="seconds between polls of demo devices")
        parser.add_argument("--history-days", type=int, default=30, help="days of history written at first start")

    def handle(self, *args, **opts):
        var = Path(settings.VAR_DIR)
        logs = var / "log"
        self.children: list[Process] = []
        self._opts = opts
        signal.signal(signal.SIGINT, signal.default_int_handler)  # even when started with SIGINT ignored
        signal.signal(signal.SIGTERM, _raise_interrupt)
        try:
            env = {**self._start_backends(var, logs, opts), **demoenv.web_env(opts["web_port"])}
            os.environ.update(env)
            demoenv.write(var, env)
            self._use_backends(env)
            call_command("migrate", interactive=False, verbosity=0)
            call_command("collectstatic", interactive=False, verbosity=0)
            password = self._admin_password(var)
            self._ensure_demo_devices(opts)
            reader = self._demo_tree(var)
            self._start_app(env, logs, opts)
            self._start_receivers(env, logs, opts)
            self._banner(opts["web_port"], password, logs, reader)
            self._history(var, opts)
            self._watch()
        except StartError as exc:
            raise CommandError(str(exc)) from None
        except KeyboardInterrupt:
            self.stdout.write("\nstopping...")
        finally:
            for child in reversed(self.children):
                child.stop()
            self.stdout.write("all demo processes stopped; data kept in " + str(var))

    def _start_backends(self, var: Path, logs: Path, opts) -> dict[str, str]:
        self.stdout.write("starting Redis, InfluxDB and the simulated fleet...")
        self.children.append(services.start_redis(var / "redis", opts["redis_port"], logs))
        self.children.append(services.start_influxd(var / "influxdb", opts["influxdb_port"], logs))
        setup = services.setup_influxdb(
            f"http://127.0.0.1:{opts['influxdb_port']}",
            settings.INFLUXDB_ORG,
            settings.INFLUXDB_BUCKET,
            var / "influxdb" / "token",
        )
        self.children += campus.start_agents(var, opts["snmp_port"], opts["campus_snmp_port"], logs)
        redis_url = f"redis://127.0.0.1:{opts['redis_port']}/0"
        return {
            **services.influx_env(setup),
            "REDIS_URL": redis_url,
            "CELERY_BROKER_URL": redis_url,
            "MONITOR_VAR_DIR": str(var),
            # Alert mails are captured as files in var/mail and shown at /alerts/mail/; nothing is sent.
            "EMAIL_BACKEND": "django.core.mail.backends.filebased.EmailBackend",
            "EMAIL_FILE_PATH": str(var / "mail"),
        }

    def _use_backends(self, env: dict[str, str]) -> None:
        """This process talks to the services it started too (device signals, the history writer)."""
        from monitor.core import services as clients

        for name in (
            "REDIS_URL",
            "INFLUXDB_URL",
            "INFLUXDB_TOKEN",
            "INFLUXDB_ORG",
            "INFLUXDB_BUCKET",
            "MONITOR_BASE_URL",
        ):
            if name in env:
                setattr(settings, name, env[name])
        clients.reset_clients()

    def _admin_password(self, var: Path) -> str:
        from django.contrib.auth import get_user_model

        password = demotree.kept_password(var / "admin-password")
        users = get_user_model()
        if not users.objects.filter(username="admin").exists():
            users.objects.create_superuser("admin", "admin@localhost", password)
        return password

    def _ensure_demo_devices(self, opts) -> None:
        from django.contrib.auth import get_user_model

        admin = get_user_model().objects.get(username="admin")
        campus.ensure_devices(opts["snmp_port"], opts["campus_snmp_port"], opts["poll_interval"], admin)

    def _demo_tree(self, var: Path) -> tuple[str, str]:
        """The demo tree with both devices and a reader granted it; the aggregate of the array's switch ports is
        added once the first poll has made their graphs (in the background)."""
        from monitor.models import Device

        sims = fleet.demo_fleet()
        switch, array = (Device.objects.get(name=sim.sys_name) for sim in sims)
        tree = demotree.ensure_tree(switch, array, campus.campus_devices())
        reader = demotree.ensure_reader(tree, var)
        ports = [f"1/g{a.switch_port}" for a in fleet.array_attachments(sims[1])]

        def add_aggregate() -> None:
            from django.db import connection

            try:
                if demotree.ensure_aggregate(tree, switch, ports) is None:
                    self.stderr.write("the demo's aggregate was not made: the switch's port graphs did not appear")
            finally:
                connection.close()

        threading.Thread(target=add_aggregate, name="demo-aggregate", daemon=True).start()
        return reader

    def _start_app(self, env: dict[str, str], logs: Path, opts) -> None:
        python = sys.executable
        base = Path(settings.BASE_DIR)
        self.children.append(
            Process(
                "worker",
                [
                    python,
                    "-m",
                    "celery",
                    "-A",
                    "monitor",
                    "worker",
                    "-l",
                    "info",
                    "--concurrency",
                    "4",
                    "-n",
                    "demo@%h",
                ],
                logs / "worker.log",
                env=env,
                cwd=base,
            )
        )
        self.children.append(
            Process(
                "beat",
                [python, "-m", "celery", "-A", "monitor", "beat", "-l", "info"],
                logs / "beat.log",
                env=env,
                cwd=base,
            )
        )
        web = Process(
            "web",
            [
                python,
                "-m",
                "gunicorn",
                "monitor.wsgi",
                "-b",
                f"127.0.0.1:{opts['web_port']}",
                "-w",
                "4",  # a page asks for its graphs in a few requests at once
                "--threads",
                "4",  # a thread waiting on InfluxDB lets the page's scripts be served: first screen 341 -> 215 ms cold
                "--access-logfile",
                "-",
            ],
            logs / "web.log",
            env=env,
            cwd=base,
        )
        self.children.append(web)
        wait_http(web, f"http://127.0.0.1:{opts['web_port']}/healthz")

    def _start_receivers(self, env: dict[str, str], logs: Path, opts) -> None:
        """The trap and syslog receivers on unprivileged loopback ports, and the simulated switch speaking to them."""
        from monitor.devstack import eventsender

        base, python = Path(settings.BASE_DIR), sys.executable
        for kind, port in (("traps", opts["trap_port"]), ("syslog", opts["syslog_port"])):
            argv = [python, "manage.py", f"receive_{kind}", "--bind", "127.0.0.1", "--port", str(port)]
            self.children.append(Process(f"receive-{kind}", argv, logs / f"receive-{kind}.log", env=env, cwd=base))
        switch = fleet.demo_fleet()[0]
        eventsender.start(opts["trap_port"], opts["syslog_port"], switch.community, switch.sys_name)

    def _banner(self, port: int, password: str, logs: Path, reader: tuple[str, str]) -> None:
        devices = "; ".join(
            f"{sim.sys_name} at 127.0.0.1:{self._opts[key]} community {sim.community}"
            for sims, key in ((fleet.demo_fleet(), "snmp_port"), (fleet.campus_fleet(), "campus_snmp_port"))
            for sim in sims
        )
        self.stdout.write(
            self.style.SUCCESS(
                f"\nThe monitor is running at http://127.0.0.1:{port}/\n"
                f"  log in as admin / {password} (everything), or {reader[0]} / {reader[1]} (reads the tree "
                f'"{demotree.TREE}" only)\n'
                f"  devices (SNMP v2c): {devices}\n"
                f"  traps to udp 127.0.0.1:{self._opts['trap_port']}, "
                f"syslog to udp/tcp 127.0.0.1:{self._opts['syslog_port']} (as either device's community)\n"
                f"  one alert when a switch dies: `.venv/bin/python manage.py demo_outage` in another shell stops "
                f"pc6248-demo and the array behind it for 5 minutes (mail at /alerts/mail/)\n"
                f"  logs in {logs}; press Ctrl-C to stop everything\n"
            )
        )

    def _history(self, var: Path, opts) -> None:
        """On the first start only: 30 days of the fleet's history, written in the background."""
        marker = var / "history-written"
        if marker.exists() or opts["history_days"] <= 0:
            return
        self.stdout.write(f"writing {opts['history_days']} days of history in the background (a minute or two)...")

        def run() -> None:
            from django.db import connection

            from collectors.influx import InfluxWriter
            from monitor.devices.profiles import registry
            from monitor.devstack import history
            from monitor.devstack.story import Story
            from monitor.models import Device
            from monitor.timeseries import tiers

            try:
                deadline = time.time() + 120
                sims = {sim.sys_name: sim for sim in fleet.demo_fleet()}
                names = list(sims)
                while time.time() < deadline:  # discovered: its profile known
                    found = list(Device.objects.filter(name__in=names).exclude(profile=""))
                    if len(found) == len(names):
                        break
                    time.sleep(2)
                profiles = registry()
                devices = [(str(d.pk), d.snmp_target(), profiles.get(d.profile)) for d in found]
                stories = {str(d.pk): Story(sims[d.name]) for d in found}  # the past as the agents move now
                # Its own writer, with no spool: if InfluxDB refuses, the history is written again at the next start.
                writer = InfluxWriter(
                    settings.INFLUXDB_URL,
                    settings.INFLUXDB_TOKEN,
                    settings.INFLUXDB_ORG,
                    settings.INFLUXDB_BUCKET,
                    var / "history-spool",
                    timeout_ms=60_000,
                    spool_max_bytes=0,
                    rollup_buckets=tiers.rollup_buckets(),
                )
                try:
                    polls = history.write(
                        writer,
                        devices,
                        time.time(),
                        opts["history_days"],
                        opts["poll_interval"],
                        lambda _: None,
                        stories,
                    )
                finally:
                    writer.close()
                marker.write_text(f"{polls} polls\n")
                self.stdout.write(self.style.SUCCESS(f"history written: {polls} past polls; 1m and 1y views show it"))
            except Exception as exc:  # the live demo goes on without it
                self.stderr.write(f"history not written ({type(exc).__name__}: {exc}); it is retried at the next start")
            finally:
                connection.close()

        threading.Thread(target=run, name="demo-history", daemon=True).start()

    def _watch(self) -> None:
        while True:
            for child in self.children:
                if not child.alive:
                    raise CommandError(f"{child.name} stopped unexpectedly; log {child.log_path}:\n{child.log_tail()}")
            time.sleep(1)
