"""The admin's CSV import as an attacker (or a careless admin) plays it: files too large to read, binary garbage, a
field of 200,000 characters, an unclosed quote, 100,000 rows, names that are spreadsheet formulas or markup, and
other staff users looking at someone's import. Each gets a clear error or nothing, and nothing is lost or leaked.
The import task runs in this process (Celery's eager mode; tests/test_import_jobs.py runs it in a real worker)."""

from __future__ import annotations

import csv
import io
import json
import random

import pytest
from django.contrib.auth.models import Permission
from django.core.files.uploadedfile import SimpleUploadedFile
from django.db import connection

from monitor.devices.importing import MAX_BYTES
from monitor.models import Device, ImportJob

pytestmark = pytest.mark.django_db(transaction=True)
URL = "/admin/monitor/device/import/"
HEADER = "name,host,port,version,community,timeout_s,retries,interval\n"


@pytest.fixture
def eager(clean_backends):
    from monitor.celery import app

    app.conf.task_always_eager = True
    yield
    app.conf.task_always_eager = False


def upload(client, body: bytes | str, name: str = "devices.csv", skip_test: bool = False):
    data = body.encode() if isinstance(body, str) else body
    form = {"file": SimpleUploadedFile(name, data, content_type="text/csv")}
    if skip_test:
        form["skip_test"] = "on"
    return client.post(URL, form)


class Body:
    """A request body of `size` bytes made as it is read (the network), counting what the server took."""

    def __init__(self, head: bytes, size: int):
        self.head, self.size, self.taken = head, size, 0

    def read(self, n: int = -1) -> bytes:
        left = self.size - self.taken
        n = left if n is None or n < 0 else min(n, left)
        chunk = (self.head[self.taken : self.taken + n] + b"a" * n)[:n]
        self.taken += n
        return chunk

    def readline(self, n: int = -1) -> bytes:
        return self.read(n if n and n > 0 else 65536)


def multipart_post(client, size: int) -> tuple[object, Body]:
    boundary = "xXxXboundaryXxXx"
    head = (
        f'--{boundary}\r\nContent-Disposition: form-data; name="file"; filename="big.csv"\r\n'
        "Content-Type: text/csv\r\n\r\nname,host\r\n"
    ).encode()
    body = Body(head, size)
    environ = {
        "wsgi.input": body,
        "CONTENT_LENGTH": str(size),
        "CONTENT_TYPE": f"multipart/form-data; boundary={boundary}",
    }
    response = client.generic("POST", URL, **environ)
    return response, body


def test_a_huge_upload_is_refused_without_reading_it(client, admin_user, settings, tmp_path):
    """64 MB announced: refused before a byte of it is read (no memory, no temporary file); 5 MB and a little, just
    under what the announcement check lets through: read up to the limit only, then refused, nothing written."""
    settings.FILE_UPLOAD_TEMP_DIR = str(tmp_path)
    client.force_login(admin_user)
    response, body = multipart_post(client, 64 * 1024 * 1024)
    assert response.status_code == 413 and body.taken == 0
    assert "the file is larger than 5 MB; nothing imported" in response.content.decode()
    response, body = multipart_post(client, MAX_BYTES + 40_000)
    assert response.status_code == 413 and MAX_BYTES < body.taken <= MAX_BYTES + 40_000
    assert "the file is larger than 5 MB; nothing imported" in response.content.decode()
    assert list(tmp_path.iterdir()) == [] and not ImportJob.objects.exists() and not Device.objects.exists()


def hundred_thousand_rows() -> bytes:
    return ("name,host\n" + "".join(f"d{n},127.0.0.1\n" for n in range(100_000))).encode()


@pytest.mark.parametrize(
    ("body", "words"),
    [
        (random.Random(40).randbytes(4096), "the file is not UTF-8 text"),
        (b"name,host\nsw\x00,127.0.0.1\n", "line 2 holds a NUL byte: this is not a CSV text file"),
        (b"name,host\n" + b"x" * 200_000 + b",127.0.0.1\n", "line 2: a field is longer than 10000 characters"),
        (b'name,host\n"sw-1,127.0.0.1\nsw-2,127.0.0.1\n', "line 2: a quoted field is never closed"),
        (hundred_thousand_rows(), "more than 10000 rows: split the file"),
        (b"name,host,=cmd|' /C calc'!A0\nx,h,y\n", "unknown column(s) &quot;=cmd|&#x27; /c calc&#x27;!a0&quot;"),
        (b"\xef\xbb\xbf", "the file is empty"),
    ],
    ids=["binary", "nul", "giant-field", "open-quote", "100k-rows", "formula-column", "only-a-bom"],
)
def test_an_unusable_file_is_refused_whole_with_a_clear_reason(client, admin_user, body, words):
    client.force_login(admin_user)
    response = upload(client, body)
    html = response.content.decode()
    assert response.status_code == 400 and words in html and "nothing imported" in html, html[-3000:]
    assert not ImportJob.objects.exists() and not Device.objects.exists()


def test_formulas_and_markup_in_names_are_shown_escaped_and_exported_inert(eager, client, admin_user):
    names = ["=cmd|' /C calc'!A0", "+SUM(1+1)", '@HYPERLINK("http://x.invalid")', "-2+3", "<script>alert(1)</script>"]
    # each its own community: the same host, port and community twice is one device twice (refused as a duplicate)
    rows = "".join(f'"{n.replace(chr(34), chr(34) * 2)}",127.0.0.1,161,2c,x{i},1,0,60\n' for i, n in enumerate(names))
    rows += "\"=cmd|' /C calc'!A0\",127.0.0.1,161,2c,x9,1,0,60\n"  # the same name again: refused, named in the reason
    client.force_login(admin_user)
    response = upload(client, HEADER + rows, name="=evil<b>.csv", skip_test=True)
    assert response.status_code == 302
    job = ImportJob.objects.get()
    html = client.get(response["Location"]).content.decode()
    assert "<script>alert(1)" not in html and "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    assert "<b>.csv" not in html and "=evil&lt;b&gt;.csv" in html
    report = client.get(f"{URL}{job.pk}/report.csv")
    assert report["Content-Type"].startswith("text/csv") and report["Content-Disposition"] == (
        f'attachment; filename="import-{job.pk}-report.csv"'
    )
    table = list(csv.reader(io.StringIO(report.content.decode())))
    assert table[0] == ["line", "name", "outcome", "reason"]
    assert [row[1] for row in table[1:]] == [
        "'=cmd|' /C calc'!A0", "'+SUM(1+1)", "'@HYPERLINK(\"http://x.invalid\")", "'-2+3", "<script>alert(1)</script>",
        "'=cmd|' /C calc'!A0",
    ]  # fmt: skip
    assert table[6][2:] == ["refused", "name \"=cmd|' /C calc'!A0\" appears on an earlier line"]
    assert all(cell[:1] not in "=+-@" for row in table for cell in row if cell)
    assert Device.objects.count() == 5


def staff(django_user_model, name: str, can_add: bool = True, superuser: bool = False):
    if superuser:
        return django_user_model.objects.create_superuser(name, f"{name}@example.com", "s3cret-pass-123")
    user = django_user_model.objects.create_user(name, f"{name}@example.com", "s3cret-pass-123", is_staff=True)
    if can_add:
        user.user_permissions.add(Permission.objects.get(codename="add_device"))
    return user


def test_only_the_uploader_or_a_superuser_sees_an_import(eager, client, django_user_model):
    alice, bob = staff(django_user_model, "alice"), staff(django_user_model, "bob")
    client.force_login(alice)
    assert upload(client, HEADER + "alice-sw,127.0.0.1,161,2c,x,1,0,60\n", skip_test=True).status_code == 302
    job = ImportJob.objects.get()
    pages = [f"{URL}{job.pk}/", f"{URL}{job.pk}/?part=progress", f"{URL}{job.pk}/report.csv"]
    assert [client.get(p).status_code for p in pages] == [200, 200, 200]
    assert f'href="{URL}{job.pk}/"' in client.get(URL).content.decode()  # her recent imports
    client.force_login(bob)  # staff who may add devices too, but not his import
    assert [client.get(p).status_code for p in pages] == [404, 404, 404]
    assert f"{URL}{job.pk}/" not in client.get(URL).content.decode()
    assert client.get(f"{URL}{job.pk + 1}/").status_code == 404
    client.force_login(staff(django_user_model, "carol", can_add=False))
    assert client.post(URL, {"file": SimpleUploadedFile("d.csv", b"name,host\n")}).status_code == 403
    assert client.get(pages[0]).status_code == 404
    client.force_login(django_user_model.objects.create_user("dave", "d@example.com", "s3cret-pass-123"))
    assert client.get(pages[0]).status_code == 302  # not staff: the admin's login
    client.logout()
    assert client.get(pages[0]).status_code == 302
    client.force_login(staff(django_user_model, "root", superuser=True))
    assert [client.get(p).status_code for p in pages] == [200, 200, 200]


def test_no_secret_of_the_file_reaches_the_job_its_page_its_report_or_the_log(eager, agent, client, admin_user, caplog):
    secrets = ["Wr0ng-c0mmunity", "auth-k3y-0123456789", "sh0rtK", "priv-k3y-0123456789", "t1nyK"]
    rows = [
        f"good,127.0.0.1,{agent.port},2c,switch,1,0,60,,,,,,\n",
        f"wrong,127.0.0.1,{agent.port},2c,{secrets[0]},0.3,0,60,,,,,,\n",
        f"v3-short,127.0.0.1,{agent.port},3,,1,0,60,u,authPriv,SHA,{secrets[2]},AES128,{secrets[4]}\n",
        f"v3-silent,127.0.0.1,{agent.port},3,,0.3,0,60,u,authPriv,SHA,{secrets[1]},AES128,{secrets[3]}\n",
    ]
    header = HEADER.strip() + ",v3_user,v3_security_level,v3_auth_protocol,v3_auth_key,v3_priv_protocol,v3_priv_key\n"
    client.force_login(admin_user)
    caplog.set_level("DEBUG")
    response = upload(client, header + "".join(rows))
    job = ImportJob.objects.get()
    assert response.status_code == 302 and job.state == "done"
    outcomes = {r["name"]: r["errors"] for r in job.report}
    assert outcomes["good"] == [] and "community: no SNMP response" in outcomes["wrong"][0]
    assert "v3_auth_key: The auth key must be at least 8 characters." in outcomes["v3-short"]
    assert outcomes["v3-silent"] and Device.objects.get().name == "good"
    page = client.get(f"{URL}{job.pk}/").content.decode()
    report = client.get(f"{URL}{job.pk}/report.csv").content.decode()
    with connection.cursor() as cursor:
        cursor.execute("SELECT * FROM monitor_importjob")
        stored = json.dumps(cursor.fetchall(), default=str)
    for secret in secrets:
        for where, text in (("row", stored), ("page", page), ("report", report), ("log", caplog.text)):
            assert secret not in text, (secret, where)
