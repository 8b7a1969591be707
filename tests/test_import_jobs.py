"""The admin's CSV import runs in a real Celery worker, behind gunicorn with a short timeout as deployed: rows that
point at unreachable loopback ports take longer than a request may, yet the upload answers at once and a real
Chromium follows the progress page until the whole per-line report; the file's communities never reach the job
row, the page, the report or the broker in clear."""

from __future__ import annotations

import base64
import json
import sys

import pytest
from django.db import connection

from monitor.devstack.processes import Process, free_port, free_udp_port, wait_http
from monitor.models import Device, ImportJob
from tests.browser import chromium_page, log_in
from tests.conftest import REPO, start_celery, wait_for

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]
HEADER = "name,host,port,version,community,timeout_s,retries,interval\n"
WEB_TIMEOUT_S = 8  # gunicorn's --timeout, as deployed (30 s) but shorter: the slow rows below take 18 s or more


@pytest.fixture(autouse=True)
def _playwright_beside_the_orm(monkeypatch):
    monkeypatch.setenv("DJANGO_ALLOW_ASYNC_UNSAFE", "true")


@pytest.fixture
def web(clean_backends, stack_dir):
    """The project's WSGI app under gunicorn with a short worker timeout, on the test database and services."""
    port = free_port()
    argv = [sys.executable, "-m", "gunicorn", "monitor.wsgi", "-b", f"127.0.0.1:{port}", "-w", "2"]
    argv += ["--timeout", str(WEB_TIMEOUT_S), "--preload"]
    process = Process("gunicorn-import", argv, stack_dir / "log" / f"gunicorn-import-{port}.log", clean_backends, REPO)
    wait_http(process, f"http://127.0.0.1:{port}/healthz")
    yield f"http://127.0.0.1:{port}"
    process.stop()


@pytest.fixture
def worker(clean_backends, stack_dir):
    from monitor.celery import app

    process = start_celery("worker", clean_backends, stack_dir / "log", "--concurrency", "1", "-n", "imports@%h")
    wait_for(lambda: app.control.ping(timeout=0.5), 60, "the worker to start")
    yield process
    process.stop()


def slow_csv(agent) -> tuple[str, list[str]]:
    """Two devices that answer, six on ports where nothing listens (1.5 s x 2 tries each), one bad port number; every
    row with its own community."""
    dead = free_udp_port()
    communities = [f"c0mmunity-{n}-s3cret" for n in range(9)]
    rows = [f"alive-1,127.0.0.1,{agent.port},2c,switch,1,0,60\n"]
    rows += [f"dead-{n},127.0.0.1,{dead},2c,{communities[n]},1.5,1,60\n" for n in range(1, 7)]
    rows += [
        f"bad-port,127.0.0.1,notaport,2c,{communities[7]},1,0,60\n",
        f"alive-2,127.0.0.1,{agent.port},2c,legacy,1,0,60\n",  # another agent there: switch again is a duplicate
    ]
    return HEADER + "".join(rows), communities


def job_state(page) -> dict:
    return page.evaluate(
        "() => { const d = document.querySelector('#import-job').dataset;"
        " return {state: d.state, done: +d.done, total: +d.total}; }"
    )


def test_a_slow_import_answers_at_once_and_its_page_follows_it_to_the_whole_report(agent, web, worker, admin_user):
    body, communities = slow_csv(agent)
    with chromium_page() as page:
        log_in(page, web, "admin", "password", "/admin/monitor/device/import/")
        page.goto(f"{web}/admin/monitor/device/import/")
        page.set_input_files(
            "input[name=file]", {"name": "devices.csv", "mimeType": "text/csv", "buffer": body.encode()}
        )
        page.click("#import-form input[type=submit]")
        page.wait_for_url("**/admin/monitor/device/import/*/", timeout=WEB_TIMEOUT_S * 1000)
        job = ImportJob.objects.get()
        assert page.url.endswith(f"/admin/monitor/device/import/{job.pk}/")
        assert job.rows_total == 9 and job.state in ("queued", "running") and job.rows_done < 9  # answered before
        page.evaluate("window.stayedOnThePage = true")  # a reload or a navigation would forget it
        page.wait_for_function(
            "() => { const d = document.querySelector('#import-job').dataset;"
            " return d.state === 'running' && +d.done >= 2 && +d.done < +d.total; }",
            timeout=60_000,
        )
        progress = page.locator("#import-summary").inner_text()
        assert "of 9 lines done" in progress and "so far" in page.locator("#import-summary").inner_text()
        page.wait_for_function("document.querySelector('#import-job').dataset.state === 'done'", timeout=120_000)
        assert page.evaluate("window.stayedOnThePage") is True  # it updated itself in place
        assert job_state(page) == {"state": "done", "done": 9, "total": 9}
        assert page.locator("#import-summary").inner_text() == "9 lines: 2 imported, 7 refused."
        rows = page.locator("#import-results tbody tr").all_inner_texts()
        html = page.content()
    assert len(rows) == 9 and [r.split("\t")[0] for r in rows] == [str(n) for n in range(2, 11)]
    assert rows[0].startswith("2\talive-1\timported") and rows[8].startswith("10\talive-2\timported")
    assert all("refused: community: no SNMP response" in rows[n] for n in range(1, 7)), rows
    assert "refused: port: Enter a whole number." in rows[7]
    assert sorted(Device.objects.values_list("name", flat=True)) == ["alive-1", "alive-2"]
    job.refresh_from_db()
    assert (job.finished_at - job.started_at).total_seconds() > WEB_TIMEOUT_S  # longer than a request may take
    stored = json.dumps(raw_row(job.pk), default=str)
    for secret in communities:
        assert secret not in html and secret not in stored


def raw_row(pk: int) -> list:
    """The job's row as the database holds it, every column."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT * FROM monitor_importjob WHERE id = %s", [pk])
        return list(cursor.fetchone())


def test_the_broker_carries_the_file_sealed_never_its_communities(agent, clean_backends, client, admin_user, stack_dir):
    """No worker yet: the task waits in Redis, as it would behind a busy queue; whoever reads Redis finds the upload
    encrypted. A worker started later imports it."""
    from django.core.files.uploadedfile import SimpleUploadedFile

    from monitor.core import services

    community = "Br0ker-must-not-see-this"
    body = HEADER + f"sealed-1,127.0.0.1,{agent.port},2c,{community},1,0,60\n"
    client.force_login(admin_user)
    response = client.post("/admin/monitor/device/import/", {"file": SimpleUploadedFile("d.csv", body.encode())})
    assert response.status_code == 302
    redis = services.redis_client()
    queued = wait_for(lambda: redis.lrange("celery", 0, -1), 10, "the task in the broker")
    assert len(queued) == 1
    envelope = json.loads(queued[0])
    message = base64.b64decode(envelope["body"]).decode()
    assert "devices.import_csv" in json.dumps(envelope["headers"]) and "enc1:" in message
    assert community not in message and community not in queued[0].decode(errors="replace")
    job = ImportJob.objects.get()
    assert job.state == "queued" and client.get(f"/admin/monitor/device/import/{job.pk}/").status_code == 200
    assert "waiting for a worker" in client.get(f"/admin/monitor/device/import/{job.pk}/").content.decode()

    late = start_celery("worker", clean_backends, stack_dir / "log", "--concurrency", "1", "-n", "late@%h")
    try:
        wait_for(lambda: ImportJob.objects.get(pk=job.pk).state == "done", 90, "the late worker to import it")
    finally:
        late.stop()
    job.refresh_from_db()
    assert [(r["line"], r["name"], r["errors"][0][:31]) for r in job.report] == [
        (2, "sealed-1", "community: no SNMP response bef")
    ]
    assert community not in json.dumps(raw_row(job.pk), default=str)
