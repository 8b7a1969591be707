"""Unused ports (issue 42's port inventory): down now and for at least 30, 90 or 180 days, by the polls' own record
(the newest port_down event of the port, else since the monitor first saw it down), across the devices a reader may
see or of one device, and as CSV whose cells a spreadsheet cannot run."""

from __future__ import annotations

import csv
import io
import re
from datetime import timedelta

import pytest
from django.test import Client
from django.utils import timezone

from monitor.events.record import make, store
from monitor.models import Device, Interface

pytestmark = pytest.mark.django_db


@pytest.fixture
def ports():
    now = timezone.now()
    switch = Device.objects.create(name="sw-a", host="127.0.0.1", community="x")
    other = Device.objects.create(name="sw-b", host="127.0.0.2", community="x")
    made = {}
    for device, name, index, up, alias in (
        (switch, "1/g1", 1, False, "=HYPERLINK(1)"),  # went down 200 days ago
        (switch, "1/g2", 2, False, "printer"),  # went down 40 days ago
        (switch, "1/g3", 3, True, ""),  # up
        (switch, "1/g4", 4, False, ""),  # never seen going down: down since first seen, 100 days ago
        (other, "1/g1", 1, False, ""),  # went down 10 days ago, and 95 days ago before that
    ):
        made[(device.name, name)] = Interface.objects.create(
            device=device, name=name, if_index=index, oper_up=up, alias=alias
        )
    Interface.objects.filter(pk=made[("sw-a", "1/g4")].pk).update(first_seen=now - timedelta(days=100))
    store(
        [
            make(switch.pk, "port_down", "1/g1 went down", port="1/g1", time=now - timedelta(days=200)),
            make(switch.pk, "port_down", "1/g2 went down", port="1/g2", time=now - timedelta(days=40)),
            make(other.pk, "port_down", "1/g1 went down", port="1/g1", time=now - timedelta(days=95)),
            make(other.pk, "port_down", "1/g1 went down", port="1/g1", time=now - timedelta(days=10)),
        ]
    )
    return switch, other


def listed(client: Client, **params) -> list[tuple[str, str, str]]:
    """(device, port, days) of each row of the page's table."""
    page = client.get("/ports/unused/", params).content.decode()
    body = page.split('<table class="list" id="unused-ports">')[1].split("</tbody>")[0]
    rows = [re.findall(r"<td>(.*?)</td>", row) for row in re.findall(r"<tr><td>.*?</tr>", body)]
    return [(re.sub(r"<[^>]+>", "", cells[0]), cells[1], cells[4]) for cells in rows]


def test_ports_down_for_the_days_asked_the_longest_first(ports, admin_user):
    client = Client()
    client.force_login(admin_user)
    assert listed(client, days=30) == [("sw-a", "1/g1", "200"), ("sw-a", "1/g4", "100"), ("sw-a", "1/g2", "40")]
    assert listed(client, days=90) == [("sw-a", "1/g1", "200"), ("sw-a", "1/g4", "100")]
    assert listed(client, days=180) == [("sw-a", "1/g1", "200")]
    page = client.get("/ports/unused/", {"days": 90}).content.decode()
    assert page.count("or before") == 1  # 1/g4: no poll saw it go down
    _, other = ports
    assert listed(client, days=30, device=other.pk) == []  # down again 10 days ago: not unused


def test_the_csv_says_the_same_and_its_cells_cannot_run_as_formulas(ports, admin_user):
    client = Client()
    client.force_login(admin_user)
    answer = client.get("/ports/unused/", {"days": 30, "format": "csv"})
    assert answer["Content-Type"].startswith("text/csv")
    rows = list(csv.reader(io.StringIO(answer.content.decode())))
    assert rows[0] == ["device", "port", "alias", "down_since", "days_down", "seen_going_down"]
    assert [(r[0], r[1], r[2], r[4], r[5]) for r in rows[1:]] == [
        ("sw-a", "1/g1", "'=HYPERLINK(1)", "200", "True"),
        ("sw-a", "1/g4", "", "100", "False"),
        ("sw-a", "1/g2", "printer", "40", "True"),
    ]


def test_a_reader_sees_only_devices_they_may_read_and_bad_parameters_are_refused(ports, admin_user, django_user_model):
    reader = django_user_model.objects.create_user("reader", password="x")  # no tree granted
    client = Client()
    client.force_login(reader)
    assert listed(client, days=30) == []
    switch, _ = ports
    assert client.get("/ports/unused/", {"device": switch.pk}).status_code == 404
    client.force_login(admin_user)
    for params in ({"days": 7}, {"days": "x"}, {"device": "1 OR 1"}):
        answer = client.get("/ports/unused/", params)
        assert answer.status_code == 400 and b"must be" in answer.content
    assert Client().get("/ports/unused/").status_code == 302  # sign in first
