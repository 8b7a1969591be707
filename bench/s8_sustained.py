"""Scenario 8: N simulated 52-port switches every 60 s, sustained, with everything production runs on one machine.

Redis, InfluxDB, PostgreSQL, a Celery worker (prefork, fast engine) and beat, gunicorn (4 workers) serving the
device pages, and the simulated switches (bench/simagent.py: counters that move). Once every switch has had its
first poll and one interval more, for `minutes`: every tick of every switch must be polled (the `poller` points),
every 5-minute and 1-hour rollup window written within one window of its end (bench/s8_checks.py), and a user
opening device pages must get the first screen's data within 300 ms and every graph's within 1 s (p95,
bench/s8_pages.py); CPU and memory of each component are sampled all along (bench/s8_resources.py).

    .venv/bin/python bench/run.py --only s8 --switches 2000 --minutes 30
    .venv/bin/python bench/run.py --only s8 --find            # 500, 1000, 2000, 3000, 4000 for 12 minutes each,
                                                              # then the largest that passed for --minutes
"""

from __future__ import annotations

import math
import multiprocessing
import os
import re
import secrets
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

from bench import s8_checks, s8_history, stack
from bench.common import REPO, InfluxdRunning, git_revision, start_backends
from bench.pgserver import Postgres, available
from bench.s8_pages import PageLoad
from bench.s8_resources import Sampler, influx_storage
from bench.simagent import SimAgents
from monitor.devstack import services
from monitor.devstack.processes import Process, free_port, wait_http

INTERVAL = 60
FIRST_SCREEN_S, EVERY_GRAPH_S = 0.3, 1.0
FIND_SIZES = (500, 1000, 2000, 3000, 4000)
ACCESS_LOG = '%(t)s "%(r)s" %(s)s %(b)s %(M)sms'  # each request's duration: where a slow view's time went


def gunicorn(env: dict[str, str], log: Path, port: int, workers: int = 4) -> Process:
    """The web server as deployed (Dockerfile, docker-compose.yml), with `workers` sync workers."""
    argv = [sys.executable, "-m", "gunicorn", "monitor.wsgi", "-b", f"127.0.0.1:{port}", "-w", str(workers)]
    logged = ["--access-logfile", "-", "--access-logformat", ACCESS_LOG]
    process = Process("gunicorn", [*argv, *logged], log / "s8-gunicorn.log", env=env, cwd=REPO)
    wait_http(process, f"http://127.0.0.1:{port}/healthz", timeout=60)
    return process


def _wait_for_first_polls(count: int, timeout: float) -> float:
    """Seconds until every switch has had a good poll (discovered, first counters kept); raises after `timeout`."""
    from monitor.models import Device

    started = time.time()
    while time.time() - started < timeout:
        done = Device.objects.filter(last_success_at__isnull=False).count()
        if done >= count:
            return time.time() - started
        time.sleep(5)
    raise RuntimeError(f"only {done} of {count} switches had a good poll within {timeout:.0f} s")


def _progress(start: float, stop: float, sampler: Sampler, pages: PageLoad) -> None:
    """One line a minute while the measured window runs."""
    from monitor.models import Device

    while time.time() < stop:
        time.sleep(min(60.0, max(0.0, stop - time.time())))
        late = Device.objects.filter(consecutive_failures__gt=0).count()
        row = sampler.samples[-1][1] if sampler.samples else {}
        cpu = ", ".join(f"{name} {values[0]:.0f} s" for name, values in row.items())
        go = sampler.go_memory[-1][1] if sampler.go_memory else {}
        memory = ", ".join(f"{name} {value:.0f}" for name, value in go.items())
        print(
            f"s8 +{(time.time() - start) / 60:.0f} min: {len(pages.views)} page views, {late} switches failing; "
            f"CPU so far: {cpu}; InfluxDB MB: {memory}",
            flush=True,
        )


def measure(work: Path, switches: int, minutes: float, **options) -> dict:
    """run() in a newly spawned interpreter: each run configures Django for its own fresh database."""
    context = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(1, mp_context=context) as pool:
        return pool.submit(run, work, switches, minutes, **options).result()


def run(work: Path, switches: int, minutes: float, **options) -> dict:
    """One sustained run at `switches` for `minutes` on fresh services; returns its figures and verdict (in a
    process of its own: measure())."""
    base = work / "s8"
    log = base / "log"
    agents_count = options.get("agents") or max(1, math.ceil(switches / 1500))
    postgres = web = worker = beat = agents = influxd = redis = None
    try:
        if options.get("database", "postgres") == "postgres" and available():
            postgres = Postgres(base / "pg", log)
            os.environ["DATABASE_URL"] = postgres.url  # before start_backends: its bucket set-up loads the settings
        redis, influxd, influx, redis_url = start_backends(base / "run")
        env = stack.configure(
            base / "django", redis_url, influx, "fast", database_url=postgres.url if postgres else None
        )
        env |= {"MONITOR_SCHEDULE_REFRESH_S": "5", "MONITOR_RAW_RETENTION_DAYS": "14"}  # production defaults
        agents = SimAgents(agents_count, log)
        user = _superuser()
        rows = stack.add_switches(agents.switches(switches), INTERVAL)
        added = time.time()
        ids = [row.pk for row in rows]
        processes = str(options.get("processes", 8))
        worker = stack.celery("worker", env, log, "-c", processes, "-n", "bench-s8@%h", "-l", "info")  # as deployed
        beat = stack.celery("beat", env, log, "-s", str(base / "beat-schedule"))
        web_port = free_port()
        web = gunicorn(env, log, web_port)
        components = {
            "influxdb": [influxd.popen.pid],
            "redis": [redis.popen.pid],
            "postgres": [postgres.pid] if postgres else [],
            "celery worker": [worker.popen.pid],
            "celery beat": [beat.popen.pid],
            "gunicorn": [web.popen.pid],
            "agents": agents.pids,
        }
        sampler = Sampler({name: pids for name, pids in components.items() if pids}, influx_url=influx.url)
        sampler.start()
        first_polls_s = _wait_for_first_polls(switches, timeout=max(600.0, switches * 0.3))
        time.sleep(INTERVAL + 10)  # the start-up wave (every switch discovered at once) is over; rates flow
        page_ids = ids[: options.get("history_switches", 20)] or ids
        days = options.get("history_days", 1.0)
        history = s8_history.backfill(influx, page_ids, days, until=int(added) // 60 * 60) if days else None
        start = (int(time.time()) // 60 + 1) * 60.0
        time.sleep(max(0.0, start - time.time()))
        stop = start + minutes * 60
        checker = s8_checks.RollupChecker(influx, start, stop, str(ids[0]), options.get("schema", "auto"))
        checker.start()
        pages = PageLoad("127.0.0.1", web_port, user, page_ids, think_s=options.get("think_s", 5.0))
        pages.start()
        _progress(start, stop, sampler, pages)
        pages.stop_event.set()
        pages.join(timeout=120)
        time.sleep(45)  # the last ticks' polls written
        polling_s = time.time() - added
        ticks = s8_checks.tick_report(influx, ids, INTERVAL, start, stop)
        rollups = checker.finish(time.time())
        sampler.stop_event.set()
        sampler.join(timeout=30)
        resources = sampler.summary(start, stop)
        influx_memory = {**sampler.go_summary(start, stop), "gomemlimit": services.influxd_memory_limit()}
        if history:  # after the measured window: the rollup tiers of the history, for their disk per switch and day
            history["rollups"] = s8_history.rollups(influx, page_ids, days, int(added) // 60 * 60, base / "spool")
        storage = influx_storage(influx, base / "run" / "influxdb" / "engine")
        errors = _device_errors()
        rollup_tasks = _task_seconds(worker.log_path, "rollup")
        for process in (web, beat, worker):
            process.stop()
        telegraf = (
            _telegraf_anchor(options, agents, switches, influx, influxd, base) if options.get("telegraf") else None
        )
        compacted = _compacted_storage(influxd, influx, base) if options.get("compact", True) else None
    finally:
        for process in (web, beat, worker, agents, postgres, influxd, redis):
            if process is not None:
                process.stop()
    result = {
        "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
        "revision": git_revision(),
        "switches": switches,
        "minutes": minutes,
        "interval_s": INTERVAL,
        "agents": agents_count,
        "worker_processes": int(processes),
        "database": "postgres" if postgres else "sqlite",
        "first_polls_s": first_polls_s,
        "history": history,
        "ticks": ticks,
        "rollups": rollups,
        "pages": pages.summary(),
        "resources": resources,
        "influxdb_memory": influx_memory,
        "storage": storage,
        "storage_compacted": compacted,
        "polling_s": polling_s,
        "device_errors": errors,
        "rollup_task_s": rollup_tasks,
        "telegraf": telegraf,
    }
    result["verdict"] = verdict(result)
    return result


def _superuser() -> tuple[str, str]:
    from django.contrib.auth import get_user_model

    password = secrets.token_urlsafe(16)
    get_user_model().objects.create_superuser("bench-s8", "bench@localhost", password)
    return "bench-s8", password


def _device_errors() -> list[str]:
    from collections import Counter

    from monitor.models import Device

    found = Counter(Device.objects.exclude(last_error="").values_list("last_error", flat=True))
    return [f"{count} x {text[:120]}" for text, count in found.most_common(3)]


def _task_seconds(log: Path, name: str) -> dict:
    """How long the worker's tasks whose name contains `name` took (its info log: `succeeded in 1.2s`), and how many
    failed: the Celery rollup job of the older schema; none once the pollers write the rollups."""
    pattern = re.compile(rf"Task \S*{name}\S*\[[^\]]+\] (succeeded in ([0-9.]+)s|raised)")
    found = [m for m in pattern.finditer(log.read_text(errors="replace"))] if log.exists() else []
    seconds = [float(m.group(2)) for m in found if m.group(2)]
    return {"runs": len(seconds), "failed": len(found) - len(seconds), "max_s": max(seconds, default=None)}


def _telegraf_anchor(options: dict, agents: SimAgents, switches: int, influx, influxd, base: Path) -> dict | None:
    """Telegraf on the same switches and InfluxDB, once the product's worker, beat and web server are stopped."""
    from bench import s8_telegraf

    binary = options["telegraf"]
    return s8_telegraf.run(
        binary, agents.switches(switches), influx, influxd.popen.pid, base, options.get("telegraf_minutes", 10)
    )


def _compacted_storage(influxd: Process, influx, base: Path) -> dict:
    """Restart InfluxDB with short cold durations so the cache is snapshotted and the shards fully compacted, as
    they are hours after their last write; then the bytes per bucket are what the data will keep taking."""
    again = InfluxdRunning(influxd, base / "run", influx.url)
    again.restart_compacting()
    try:
        engine, sizes = base / "run" / "influxdb" / "engine", []
        for _ in range(30):  # until the files stop changing
            time.sleep(10)
            sizes.append(influx_storage(influx, engine))
            if len(sizes) > 3 and sizes[-1]["buckets"] == sizes[-3]["buckets"]:
                break
        return sizes[-1]
    finally:
        again.stop()


def verdict(result: dict) -> dict:
    """Pass or fail of each criterion, and of the run."""
    ticks, pages = result["ticks"], result["pages"]
    tiers = result["rollups"]["tiers"]
    rollups_checked = tiers["5m"]["due"] > 0
    rollups_ok = rollups_checked and all(t["late"] == 0 and t["missing"] == 0 for t in tiers.values())
    page_ok = pages["failure_count"] == 0 and all(
        pages[f"{r}_first_screen_p95_s"] <= FIRST_SCREEN_S and pages[f"{r}_every_graph_p95_s"] <= EVERY_GRAPH_S
        for r in ("1d", "1y")
    )
    out = {
        "ticks": ticks["missed"] == 0 and ticks["failed"] == 0,
        "rollups": rollups_ok,
        "rollups_checked": rollups_checked,
        "pages": page_ok,
    }
    out["pass"] = out["ticks"] and out["rollups"] and out["pages"]
    return out


def find(work: Path, minutes: float, sizes: tuple[int, ...] = FIND_SIZES, try_minutes: float = 12, **options) -> dict:
    """Each size for `try_minutes` (fresh services each) until ticks or rollups fail (the pages' verdict does not
    stop the search: one user's page load hardly depends on the fleet); then the largest size that passed
    everything, else the largest whose ticks and rollups held, again for `minutes`."""
    tries, passing, polling = [], None, None
    for size in sizes:
        result = measure(work, size, try_minutes, **{**options, "telegraf": None, "compact": False})
        tries.append(result)
        verdict = result["verdict"]
        print(f"s8 find: {size} switches: {verdict}", flush=True)
        if not (verdict["ticks"] and verdict["rollups"]):
            break
        polling = size
        passing = size if verdict["pass"] else passing
    best = passing or polling
    confirmed = measure(work, best, minutes, **options) if best else None
    return {"tries": tries, "largest_passing": passing, "largest_polling": polling, "confirmed": confirmed}
