"""Adding many devices at once on real snmpsim agents: a CSV through the command and the admin (bad rows named by
line and reason, the good ones imported and placed in a tree), and a loopback range searched for agents."""

from __future__ import annotations

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from monitor.devstack import services
from monitor.devstack.processes import free_udp_port
from monitor.graphs.trees.models import Tree, TreeNode
from monitor.models import Device, Interface

pytestmark = pytest.mark.django_db
HEADER = "name,host,port,version,community,timeout_s,retries,interval,group,tree\n"


HOSTS = tuple(f"127.0.0.{n}" for n in range(11, 31))  # one switch each: a second device at one host, port and
# community would be refused as a duplicate (its traps and syslog could not be told apart)


@pytest.fixture(scope="module")
def switches(agent, stack_dir):
    """The agent's recordings served on twenty loopback hosts: twenty switches at twenty addresses."""
    port = free_udp_port()
    process = services.start_snmpsim(stack_dir / "agent" / "data", port, stack_dir / "log", name="snmpsim-hosts",
                                     hosts=HOSTS)  # fmt: skip
    yield port
    process.stop()


def good_row(port: int, name: str, host: str = "127.0.0.1") -> str:
    return f"{name},{host},{port},2c,switch,1,0,60,,Network/Imported\n"


def run(path, *extra) -> tuple[str, str]:
    """The command's output, and its error ('' when every row was imported)."""
    from io import StringIO

    out = StringIO()
    try:
        call_command("import_devices", str(path), *extra, stdout=out)
    except CommandError as exc:
        return out.getvalue(), str(exc)
    return out.getvalue(), ""


def test_a_csv_with_three_bad_rows_of_twenty_imports_seventeen_and_names_the_three(
    agent, switches, tmp_path, clean_backends
):
    rows = [good_row(switches, f"sw-{i:02d}", HOSTS[i]) for i in range(1, 18)]
    rows.insert(3, f"bad-host,no-such-host.invalid,{agent.port},2c,switch,1,0,60,,Network/Imported\n")  # line 5
    rows.insert(9, f"bad-community,127.0.0.1,{agent.port},2c,Wr0ng-c0mmunity,0.3,0,60,,Network/Imported\n")  # line 11
    rows.insert(15, f"bad-interval,127.0.0.1,{agent.port},2c,switch,1,0,often,,Network/Imported\n")  # line 17
    path = tmp_path / "devices.csv"
    path.write_text(HEADER + "".join(rows))
    out, error = run(path)

    assert error == "3 row(s) refused (listed above); the other rows were imported"
    assert "17 imported, 3 refused" in out
    refused = [line for line in out.splitlines() if "refused '" in line]
    assert [line.split(":")[0] for line in refused] == ["line 5", "line 11", "line 17"]
    assert "host: 'no-such-host.invalid' does not resolve" in refused[0]
    assert "community: no SNMP response" in refused[1] and "Wr0ng-c0mmunity" not in out
    assert refused[1].endswith("Check the host, port and credentials, or import again with --skip-test.")
    assert "Save without testing" not in out
    assert "poll_interval_s: Enter a whole number." in refused[2]
    assert Device.objects.count() == 17
    assert set(Device.objects.values_list("profile", flat=True)) == {"dell-powerconnect-62xx"}
    assert Interface.objects.filter(device__name="sw-01").count() == 8  # discovered as the admin form does
    header = TreeNode.objects.get(tree=Tree.objects.get(name="Network"), kind="header", title="Imported")
    assert TreeNode.objects.filter(parent=header, kind="device").count() == 17

    again, error = run(path)  # the same file twice: every row is now a duplicate name, nothing changes
    assert "0 imported, 20 refused" in again and "name: Device with this Name already exists." in again
    assert Device.objects.count() == 17


@pytest.mark.parametrize(
    ("content", "words"),
    [
        (b"name,host,colour\nx,127.0.0.1,red\n", "unknown column(s) 'colour'"),
        (b"name,port\nx,161\n", "the header lacks the column(s) host"),
        (b"", "the file is empty"),
        (b"name,host\ncaf\xe9,127.0.0.1\n", "the file is not UTF-8 text"),
        (b"name,host,version,snmp_version\nx,h,2c,1\n", "columns 'version' and 'snmp_version' both set snmp_version"),
        (b"name,host,name\nx,h,y\n", "the column 'name' appears twice"),
        (b'name,host\n"sw-1",127.0.0.1\n"sw-"2,127.0.0.1\n', "line 3: not valid CSV (',' expected after '\"')"),
    ],
)
def test_an_unusable_file_is_refused_whole_with_the_reason(tmp_path, content, words):
    path = tmp_path / "bad.csv"
    path.write_bytes(content)
    _, error = run(path)
    assert words in error and error.endswith("nothing imported")
    assert not Device.objects.exists()


def test_rows_with_a_wrong_shape_a_repeated_name_or_a_bad_tree_are_refused(agent, tmp_path):
    path = tmp_path / "rows.csv"
    path.write_text(
        HEADER
        + good_row(agent.port, "one")
        + "short,127.0.0.1\n"
        + good_row(agent.port, "ONE")
        + f"treeless,127.0.0.1,{agent.port},2c,switch,1,0,60,,Network//x\n"
    )
    out, _ = run(path, "--skip-test")
    assert "1 imported, 3 refused" in out
    assert "line 3: refused 'short': 10 columns expected as in the header" in out
    assert "line 4: refused 'ONE': name 'ONE' appears on an earlier line" in out
    assert "line 5: refused 'treeless': tree 'Network//x' must be" in out


def test_the_admin_imports_an_uploaded_csv_and_lists_the_refused_rows(
    agent, switches, admin_client, django_capture_on_commit_callbacks
):
    """The upload is queued as a job (its task run here, in Celery's eager mode) and the admin is sent to its page,
    which lists every line (tests/test_import_jobs.py: in a real worker, behind gunicorn, in Chromium)."""
    from django.core.files.uploadedfile import SimpleUploadedFile

    from monitor.celery import app
    from monitor.models import ImportJob

    page = admin_client.get("/admin/monitor/device/")
    assert 'id="import-devices"' in page.content.decode()
    body = HEADER + good_row(switches, "up-1", HOSTS[0]) + "up-2,127.0.0.1,notaport,2c,switch,1,0,60,,\n"
    body += good_row(switches, "up-3", HOSTS[1])
    body += f"up-4,127.0.0.1,{agent.port},2c,Wr0ng-c0mmunity,0.3,0,60,,\n"
    upload = SimpleUploadedFile("devices.csv", body.encode(), content_type="text/csv")
    app.conf.task_always_eager = True
    try:
        with django_capture_on_commit_callbacks(execute=True):
            response = admin_client.post("/admin/monitor/device/import/", {"file": upload})
    finally:
        app.conf.task_always_eager = False
    job = ImportJob.objects.get()
    assert response.status_code == 302 and response["Location"] == f"/admin/monitor/device/import/{job.pk}/"
    html = admin_client.get(response["Location"]).content.decode()
    assert 'data-state="done"' in html and "4 lines: 2 imported, 2 refused." in html
    assert html.count('class="imported"') == 2 and html.count('class="refused"') == 2
    assert "or tick &quot;Save devices that cannot be reached now&quot;." in html and "--skip-test" not in html
    assert "<td>3</td><td>up-2</td>" in html and "port: Enter a whole number." in html
    assert sorted(Device.objects.values_list("name", flat=True)) == ["up-1", "up-3"]
    bad = admin_client.post("/admin/monitor/device/import/", {"file": SimpleUploadedFile("x.csv", b"nope\n")})
    assert bad.status_code == 400 and "unknown column(s) &#x27;nope&#x27;" in bad.content.decode()
    assert ImportJob.objects.count() == 1  # a refused file makes no job


def test_a_row_is_refused_for_its_own_fields_before_any_test_and_only_for_them(tmp_path):
    """Port 99999 and a community nobody answers: the port is named, the community is never tried."""
    path = tmp_path / "far.csv"
    path.write_text(HEADER + "far,127.0.0.1,99999,2c,Wr0ng-c0mmunity,0.3,0,60,,\n"
                    + "worse,127.0.0.1,99999,2c,Wr0ng-c0mmunity,0.3,-1,60,,\n")  # fmt: skip
    out, error = run(path)
    refused = [line for line in out.splitlines() if "refused '" in line]
    assert error.startswith("2 row(s) refused")
    assert refused[0] == "line 2: refused 'far': port: Ensure this value is less than or equal to 65535."
    assert refused[1].startswith("line 3: refused 'worse': ")
    assert sorted(refused[1].removeprefix("line 3: refused 'worse': ").split("; ")) == [
        "port: Ensure this value is less than or equal to 65535.",
        "retries: Ensure this value is greater than or equal to 0.",
    ]


def test_discover_subnet_adds_the_agents_that_answer_in_a_loopback_range(agent, stack_dir, clean_backends):
    from io import StringIO

    port = free_udp_port()
    hosts = ("127.0.0.2", "127.0.0.5", "127.0.0.9")
    process = services.start_snmpsim(
        stack_dir / "agent" / "data", port, stack_dir / "log", name="snmpsim-subnet", hosts=hosts
    )
    try:
        out = StringIO()
        call_command(
            "discover_subnet", "127.0.0.0/28", "--community", "switch", "--port", str(port), "--timeout", "0.5",
            "--tree", "Network/Found", stdout=out,
        )  # fmt: skip
        text = out.getvalue()
        assert "3 agent(s) answered in 127.0.0.0/28, 3 added" in text
        assert sorted(Device.objects.values_list("host", flat=True)) == list(hosts)
        names = sorted(Device.objects.values_list("name", flat=True))
        assert names == ["test-switch", "test-switch-127.0.0.5", "test-switch-127.0.0.9"]  # sysName, made unique
        assert all(d.profile == "dell-powerconnect-62xx" for d in Device.objects.all())
        assert TreeNode.objects.filter(parent__title="Found", kind="device").count() == 3
        out = StringIO()
        call_command("discover_subnet", "127.0.0.0/28", "--community", "switch", "--port", str(port), stdout=out)
        assert out.getvalue().count("already monitored") == 3 and Device.objects.count() == 3
    finally:
        process.stop()
    with pytest.raises(CommandError, match="at most 4096 at a time"):
        call_command("discover_subnet", "10.0.0.0/8", "--community", "x")
    with pytest.raises(CommandError, match="needs --community"):
        call_command("discover_subnet", "127.0.0.0/30")
    with pytest.raises(CommandError, match="is not a CIDR range"):
        call_command("discover_subnet", "127.0.0.0/33", "--community", "x")
