"""Scenario 8's page load: a user opening device pages on the live web server, timed as a browser would see them.

One view: GET /devices/<id>/?range=<r> (HTML, logged in with a session), then the data of every graph on the page
in page order, as static/js/graphs.js fetches it (gunicorn's sync workers close each connection), a point per two
pixels (300 points), as columns:
- with the batch endpoint (GET /api/series?graph=<id>&graph=<id>...&p95=later): the first screen (the first 6
  graphs, the request the page's head preloads) in one request, alone, then the rest a device and template a
  request (bench.common.page_batches), four requests in flight, once its answer is in (as the page sends them);
  then the 95th percentiles the page asks for afterwards (p95=only), those of the 12 charts it draws (in view
  and within a screen of it: a chart's percentile is asked for once it is drawn);
- without it (a 404 that is not JSON): one GET /api/graphs/<id>/series per graph.
Times run from the start of the HTML request: first screen = the first 6 graphs' data in hand, every graph = all
charts' data, p95 = the percentiles too. The endpoint is probed once, at the first view.
"""

from __future__ import annotations

import http.client
import json
import random
import re
import threading
import time
import urllib.parse
from concurrent.futures import ThreadPoolExecutor

from bench.common import page_batches, percentile

GRAPH_ID = re.compile(r'data-graph-id="(\d+)"[^>]*? data-reads="([^"]*)"')
CSRF = re.compile(r'name="csrfmiddlewaretoken" value="([^"]+)"')
WINDOWS = ("1d", "1y")


class Browser:
    """Plain HTTP/1.1 against one host with a cookie jar of its own (no keep-alive: sync workers close)."""

    def __init__(self, host: str, port: int):
        self.host, self.port = host, port
        self.cookies: dict[str, str] = {}

    def request(self, method: str, path: str, body: dict | None = None) -> tuple[int, str, bytes]:
        """(status, content type, body)."""
        conn = http.client.HTTPConnection(self.host, self.port, timeout=60)
        headers = {"Host": f"{self.host}:{self.port}", "Accept": "text/html,application/json"}
        if self.cookies:
            headers["Cookie"] = "; ".join(f"{k}={v}" for k, v in self.cookies.items())
        data = None
        if body is not None:
            data = urllib.parse.urlencode(body).encode()
            headers["Content-Type"] = "application/x-www-form-urlencoded"
        try:
            conn.request(method, path, body=data, headers=headers)
            response = conn.getresponse()
            payload = response.read()
            for name, value in response.getheaders():
                if name.lower() == "set-cookie":
                    key, _, rest = value.partition("=")
                    self.cookies[key.strip()] = rest.split(";", 1)[0]
            return response.status, response.getheader("Content-Type", ""), payload
        finally:
            conn.close()

    def login(self, username: str, password: str) -> None:
        status, _, page = self.request("GET", "/login/")
        token = CSRF.search(page.decode(errors="replace"))
        if status != 200 or token is None:
            raise RuntimeError(f"login page: HTTP {status}")
        form = {"username": username, "password": password, "csrfmiddlewaretoken": token.group(1), "next": "/"}
        status, _, _ = self.request("POST", "/login/", form)
        if status != 302 or "sessionid" not in self.cookies:
            raise RuntimeError(f"login refused: HTTP {status}")


class PageLoad(threading.Thread):
    """Opens device pages one after another (a user with `think_s` between views), alternating 1d and 1y."""

    def __init__(self, host: str, port: int, user: tuple[str, str], device_ids: list[int], think_s: float = 5.0):
        super().__init__(name="page-load", daemon=True)
        self.browser = Browser(host, port)
        self.user, self.device_ids, self.think_s = user, list(device_ids), think_s
        self.stop_event = threading.Event()
        self.points, self.first, self.batch, self.drawn = 300, 6, 52, 12
        self.p95_batch = 20  # as the page asks for percentiles
        self.batch_endpoint: bool | None = None
        self.views: list[dict] = []
        self.failures: list[str] = []
        self.failure_count = 0

    def run(self) -> None:
        try:
            self.browser.login(*self.user)
        except Exception as exc:  # no session, no pages: the run's page verdict fails with the reason
            self._fail(f"login: {type(exc).__name__}: {str(exc)[:100]}")
            return
        shuffled = random.Random(8).sample(self.device_ids, len(self.device_ids))
        with ThreadPoolExecutor(4) as pool:
            n = 0
            while not self.stop_event.is_set():
                label = ("1d", "1y")[n % 2]
                try:
                    self.views.append(self.view(pool, shuffled[(n // 2) % len(shuffled)], label))
                except Exception as exc:  # the server refused or dropped: counted, the user tries the next page
                    self._fail(f"view: {type(exc).__name__}: {str(exc)[:100]}")
                n += 1
                self.stop_event.wait(self.think_s)

    def _fail(self, text: str) -> None:
        self.failure_count += 1
        if len(self.failures) < 5:
            self.failures.append(text)

    def _get(self, path: str) -> tuple[int, str, bytes]:
        """A GET with a browser of this user's session (each call its own connection, as the pool's threads)."""
        browser = Browser(self.browser.host, self.browser.port)
        browser.cookies = dict(self.browser.cookies)
        return browser.request("GET", path)

    def probe(self, graph_id: int) -> bool:
        status, kind, _ = self._get(f"/api/series?graph={graph_id}&start=now-1h&end=now&points=10")
        return not (status == 404 and "json" not in kind)

    def view(self, pool: ThreadPoolExecutor, device_id: int, label: str) -> dict:
        began, started = time.time(), time.perf_counter()
        status, _, page = self._get(f"/devices/{device_id}/?range={label}")
        html_s = time.perf_counter() - started
        if status != 200:
            raise RuntimeError(f"device page HTTP {status}")
        found = [(int(graph), reads) for graph, reads in GRAPH_ID.findall(page.decode(errors="replace"))]
        ids = [graph for graph, _ in found]
        if not ids:
            raise RuntimeError(f"device {device_id} has no graphs on its page")
        if self.batch_endpoint is None:
            self.batch_endpoint = self.probe(ids[0])
        window = f"range={label}&points={self.points}"
        if self.batch_endpoint:
            groups = page_batches(found, self.first, self.batch)
            paths = [self._batch_path(group, window, "later") for group in groups]
        else:
            groups = [[g] for g in ids]
            paths = [f"/api/graphs/{g}/series?{window}" for g in ids]
        # As static/js/graphs.js: the first screen's request alone (the page's head preloads it), the rest once
        # its answer is in (sent beside it, their answers held up the first screen's), four at a time.
        done = [self._timed(paths[0], started)] if self.batch_endpoint else []
        done += pool.map(lambda path: self._timed(path, started), paths[len(done) :])
        first_screen = max(at for (at, _), group in zip(done, groups, strict=True) if group[0] in ids[: self.first])
        every_graph = max(at for at, _ in done)
        if self.batch_endpoint:
            drawn = ids[: self.drawn]  # the page asks for the percentiles of the charts it drew (in view and near)
            cuts = range(0, len(drawn), self.p95_batch)
            later = [self._batch_path(drawn[i : i + self.p95_batch], window, "only") for i in cuts]
            percentiles = list(pool.map(lambda path: self._timed(path, started), later))
            done, paths = done + percentiles, paths + later
        bad = [f"{path.split('?')[0]}: HTTP {code}" for (_, code), path in zip(done, paths, strict=True) if code != 200]
        for text in bad[:2]:
            self._fail(text)
        return {
            "range": label,
            "device": device_id,
            "graphs": len(ids),
            "requests": len(paths) + 1,
            "html_s": html_s,
            "first_screen_s": first_screen,
            "every_graph_s": every_graph,
            "p95_s": max(at for at, _ in done),
            "failed_requests": len(bad),
            "began": began,
            "phase_s": began % 300,  # seconds after the newest 5-minute window's end
        }

    @staticmethod
    def _batch_path(graph_ids: list[int], window: str, p95: str) -> str:
        return "/api/series?" + "&".join(f"graph={g}" for g in graph_ids) + f"&{window}&p95={p95}&shape=columns"

    def _timed(self, path: str, started: float) -> tuple[float, int]:
        """(seconds from the view's start to this response's end, status); the body is parsed, as a page would, and
        a batch answer naming graphs it could not draw counts as failed (status 207)."""
        status, _, body = self._get(path)
        if status == 200 and json.loads(body).get("errors"):
            status = 207
        return time.perf_counter() - started, status

    def summary(self) -> dict:
        out: dict = {
            "batch_endpoint": self.batch_endpoint,
            "views": len(self.views),
            "failures": self.failures,
            "failure_count": self.failure_count,
            "points": self.points,
            "think_s": self.think_s,
        }
        for label in WINDOWS:
            mine = [v for v in self.views if v["range"] == label and not v["failed_requests"]]
            for key in ("html_s", "first_screen_s", "every_graph_s", "p95_s"):
                values = [v[key] for v in mine]
                out[f"{label}_{key[:-2]}_p50_s"] = percentile(values, 50)
                out[f"{label}_{key[:-2]}_p95_s"] = percentile(values, 95)
            out[f"{label}_views"] = len(mine)
            # A device's first view at a range in the run (no page of it read before: cold), and the views after.
            for part, views in zip(("first_view", "again"), _first_and_again(mine), strict=True):
                for key in ("first_screen_s", "every_graph_s"):
                    values = [v[key] for v in views]
                    out[f"{label}_{part}_{key[:-2]}_p50_s"] = percentile(values, 50)
                    out[f"{label}_{part}_{key[:-2]}_p95_s"] = percentile(values, 95)
                out[f"{label}_{part}_views"] = len(views)
            # When the slowest views (every graph at or above its p95) began, in seconds after a 5-minute window's
            # end (pages see a window from cache.WRITE_GRACE_S after it): what a tail of slow views waits for.
            slowest = percentile([v["every_graph_s"] for v in mine], 95)
            slow = [v for v in mine if slowest == slowest and v["every_graph_s"] >= slowest]
            out[f"{label}_slow_view_phases_s"] = sorted(round(v["phase_s"]) for v in slow)
            out[f"{label}_views_by_phase"] = sorted(
                [round(v["phase_s"]), round(v["every_graph_s"] * 1000), round(v["began"])] for v in mine
            )
            out[f"{label}_graphs_per_page"] = max((v["graphs"] for v in mine), default=0)
            out[f"{label}_requests_per_view"] = max((v["requests"] for v in mine), default=0)
        return out


def _first_and_again(views: list[dict]) -> tuple[list[dict], list[dict]]:
    """The views (in the order made) of a device not viewed before at that range, and the others."""
    first, again, seen = [], [], set()
    for view in sorted(views, key=lambda v: v["began"]):
        (again if view["device"] in seen else first).append(view)
        seen.add(view["device"])
    return first, again
