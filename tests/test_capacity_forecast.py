"""The capacity forecast on history planted in the real InfluxDB: a volume cleaned up forecasts from the trend since
the cleanup, never through it; one cleaned up yesterday says it has too little history since, not a date."""

from __future__ import annotations

import time
from datetime import datetime, timezone

import pytest
from django.conf import settings
from influxdb_client.client.write_api import SYNCHRONOUS

from monitor.models import Device
from monitor.storage.forecast import forecast
from monitor.storage.summary import array_summary
from monitor.timeseries import client as tsclient

pytestmark = pytest.mark.django_db
DAY = 86400
SIZE = 100e9


def cleaned_ten_days_ago(days: float) -> float:
    """Grows 1.9 points a day from 60 % to 98 % at day 20, cleaned to 40 %, then grows 2 points a day (60 % now)."""
    return 60 + 1.9 * days if days < 20 else 40 + 2.0 * (days - 20)


def cleaned_yesterday(days: float) -> float:
    """Grows 2 points a day from 40 % to 98.5 % 18 hours ago, cleaned to 40 %, a little growth since."""
    return 40 + 2.0 * days if days < 29.25 else 40 + 0.5 * (days - 29.25)


def plant(device: Device, volumes: dict, now: int) -> None:
    """Thirty days of hourly 5-minute windows (as the rollups keep them) of each volume's used share."""
    lines = []
    start = now - 30 * DAY
    for t in range(start, now + 1, 3600):
        for volume, used_pct in volumes.items():
            used = used_pct((t - start) / DAY) / 100 * SIZE
            fields = {"used_bytes": used, "size_bytes": SIZE}
            text = ",".join(f"{k}_mean={v},{k}_sum={v},{k}_count=1i,{k}_max={v}" for k, v in fields.items())
            lines.append(f"volume,device={device.pk},volume={volume} {text} {t}")
    tsclient.client().write_api(write_options=SYNCHRONOUS).write(
        bucket=f"{settings.INFLUXDB_BUCKET}_5m", org=settings.INFLUXDB_ORG, record=lines, write_precision="s"
    )


def test_a_cleaned_volume_is_forecast_from_its_growth_since_the_cleanup(clean_backends, client, admin_user):
    device = Device.objects.create(name="arr", host="127.0.0.1", community="x", profile="dell-equallogic")
    now = int(time.time()) // (6 * 3600) * 6 * 3600  # the cleanups fall between two of the forecast's windows
    plant(device, {"vol-cleaned": cleaned_ten_days_ago, "vol-yesterday": cleaned_yesterday}, now)
    summary = array_summary(str(device.pk), datetime.fromtimestamp(now - DAY, timezone.utc), datetime.now(timezone.utc))
    rows = {r.name: r for r in summary.sections[0][2]}

    # The scenario's arithmetic: 60 % used now, growing 2 points a day since the cleanup -> 40 / 2 = 20 days.
    expected_days = (100 - cleaned_ten_days_ago(30)) / 2.0
    cleaned = rows["vol-cleaned"].forecast
    assert cleaned.growth_pct_per_day == pytest.approx(2.0, abs=0.05)  # not the 1.9 before, nor a line through both
    assert expected_days - 0.5 <= cleaned.days_low <= cleaned.days_high <= expected_days + 0.5, cleaned
    assert cleaned.text.startswith("full in ") and "since the drop from 98 % to 40 %" in cleaned.text

    yesterday = rows["vol-yesterday"].forecast
    assert yesterday.days_low is None and yesterday.used_pct == pytest.approx(40.375, abs=0.1)
    assert yesterday.text == "not enough history since the drop from 98 % to 40 %"
    assert [r.name for r in summary.fill_first] == ["vol-cleaned"]

    client.force_login(admin_user)
    html = client.get(f"/storage/arrays/{device.pk}/?range=1d").content.decode()
    assert "since the drop from 98 % to 40 %" in html and "not enough history since the drop" in html


def test_small_dips_are_not_a_cleanup():
    """A volume growing a point a day whose logs are rotated every day (a 3-point dip) is forecast over all 30
    days: only a fall of more than 10 points within a day starts the trend again."""
    points = [(h * 3600, 40 + h / 24 - (3 if h % 24 == 18 else 0), 100) for h in range(0, 30 * 24 + 1, 6)]
    found = forecast(points)
    assert "since the drop" not in found.text and found.growth_pct_per_day == pytest.approx(1.0, abs=0.05)
    # 70 % now, a point a day: 30 days, the dips widen the range a little
    assert 27 <= found.days_low <= 30 <= found.days_high <= 33
    steep = [(d * DAY, 50 + 2 * d if d < 20 else 77 + 2 * (d - 20), 100) for d in range(31)]  # 11 points in a day
    assert "since the drop from 88 % to 77 %" in forecast(steep).text
    halves = [(d * DAY / 4, 60 + d / 4, 100) for d in range(80)] + [(80 * DAY / 4, 70.0, 100)]  # half-cleaned window
    halves += [(d * DAY / 4, 40 + (d - 81) / 8, 100) for d in range(81, 121)]
    found = forecast(halves)
    assert found.drop == (79.75, 40.0) and found.growth_pct_per_day == pytest.approx(0.5)  # the trend after both
    gentle = [(d * DAY, 50 + 2 * d if d < 20 else 79 + 2 * (d - 20), 100) for d in range(31)]  # 9 points
    assert "since the drop" not in forecast(gentle).text
