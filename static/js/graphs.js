/* Every graph on the page, for the range in the URL: the data of the graphs in view first, then of the rest, a
   few dozen graphs per request (GET /api/series); a chart is drawn when it comes within a screen of the view.
   95th percentiles that come from rollups arrive in a second request. Every zoom re-fetches everything. */
(function () {
  "use strict";

  const COLORS = ["#2e9d3a", "#1f5fbf", "#8a2be2", "#c0392b", "#d68910", "#117a8b"];
  const BATCH = 20; // graphs per request: small batches of a page keep InfluxDB and the web workers busy at once
  const PARALLEL = 3; // requests in flight
  const charts = new Map(); // figure -> Chart
  const store = new Map(); // figure -> {gen, data, error, drawn}
  const near = new Set(); // figures within a screen of the viewport
  const inflight = new Set(); // figures whose data is on its way for the current generation
  let generation = 0;
  let ready = false; // every script of the page has run (Chart.js, its date adapter, the zoom plugin)
  const domReady = new Promise(function (resolve) {
    document.addEventListener("DOMContentLoaded", function () { ready = true; resolve(); });
  });

  function si(value, unit) {
    if (value === null || value === undefined || Number.isNaN(value)) return "–";
    if (unit === "%") return value.toFixed(Math.abs(value) >= 10 ? 1 : 2) + " %";
    const prefixes = ["", "k", "M", "G", "T", "P"];
    let v = Math.abs(value);
    let i = 0;
    while (v >= 1000 && i < prefixes.length - 1) { v /= 1000; i += 1; }
    const shown = (value < 0 ? -v : v).toFixed(v >= 100 ? 0 : v >= 10 ? 1 : 2);
    return shown + " " + prefixes[i] + unit;
  }

  function option(name, fallback) {
    try { return window.localStorage.getItem("monitor." + name) || fallback; } catch (e) { return fallback; }
  }

  function remember(name, value) {
    try { window.localStorage.setItem("monitor." + name, value); } catch (e) { /* private mode */ }
  }

  function cell(tag, text, title) {
    const el = document.createElement(tag);
    el.textContent = text;
    if (title) el.title = title;
    return el;
  }

  function renderLegend(table, data) {
    if (!table) return;
    const totals = data.series.some(function (s) { return "total" in s.stats; });
    const p95 = Boolean(data.p95_source); // graphs of counts and sizes have none
    const source = "95th percentile of " + data.p95_source;
    table.replaceChildren();
    const head = document.createElement("tr");
    ["", "Current", "Average", "Minimum", "Maximum", ...(p95 ? ["95th"] : []), ...(totals ? ["Total"] : [])].forEach(function (text) {
      head.appendChild(cell("th", text, text === "95th" ? source : ""));
    });
    table.appendChild(head);
    data.series.forEach(function (s) {
      const st = s.stats;
      const tr = document.createElement("tr");
      tr.appendChild(cell("th", s.label));
      [st.current, st.average, st.minimum, st.maximum].forEach(function (v) { tr.appendChild(cell("td", si(v, data.unit))); });
      const pending = data.p95_pending && (st.p95 === null || st.p95 === undefined);
      if (p95) tr.appendChild(cell("td", pending ? "…" : si(st.p95, data.unit), pending ? source + ": on its way" : source));
      if (totals) tr.appendChild(cell("td", si(st.total, "B")));
      table.appendChild(tr);
    });
    table.dataset.p95 = data.p95_pending ? "pending" : "ready";
  }

  /* Chart points of one column of a series' [t, min, mean, max] points. */
  function column(s, index, sign) {
    return s.points.map(function (p) { return { x: p[0], y: p[index] === null ? null : sign * p[index] }; });
  }

  function datasets(data, mode) {
    const sets = [];
    data.series.forEach(function (s, index) {
      const color = COLORS[index % COLORS.length];
      const sign = mode === "mirror" && index === 1 ? -1 : 1;
      const gap = data.resolution_s * 2000;
      sets.push({
        label: s.label,
        data: column(s, 2, sign),
        borderColor: color,
        backgroundColor: color + "33",
        fill: mode === "stack" ? (index === 0 ? "origin" : "-1") : (index === 0 || sign < 0 ? "origin" : false),
        pointRadius: 0,
        borderWidth: 1.5,
        spanGaps: gap,
        stack: "values",
      });
      if (data.aggregated && mode !== "stack") {
        sets.push({
          label: s.label + " max",
          data: column(s, 3, sign),
          borderColor: color + "88",
          borderDash: [3, 3],
          fill: false,
          pointRadius: 0,
          borderWidth: 1,
          spanGaps: gap,
          stack: "max" + index,
        });
      }
    });
    return sets;
  }

  function draw(figure, data, mode) {
    const canvas = figure.querySelector("canvas");
    const existing = charts.get(figure);
    if (existing) existing.destroy();
    const thumb = figure.classList.contains("thumb");
    const chart = new Chart(canvas, {
      type: "line",
      data: { datasets: datasets(data, mode) },
      options: {
        animation: false,
        responsive: true,
        maintainAspectRatio: false,
        parsing: false,
        interaction: { mode: "index", intersect: false },
        scales: {
          x: {
            type: "time",
            min: Date.parse(data.start),
            max: Date.parse(data.end),
            time: { displayFormats: { second: "HH:mm:ss", minute: "HH:mm", hour: "HH:mm", day: "MMM d", month: "MMM yyyy" } },
            ticks: { maxRotation: 0, autoSkipPadding: 12 },
          },
          y: {
            beginAtZero: true,
            stacked: mode === "stack",
            ticks: { callback: function (v) { return si(Math.abs(v), data.unit); } },
          },
        },
        plugins: {
          legend: { display: !thumb },
          tooltip: { callbacks: { label: function (c) { return c.dataset.label + ": " + si(Math.abs(c.parsed.y), data.unit); } } },
          zoom: {
            zoom: {
              drag: { enabled: true, backgroundColor: "rgba(31,95,191,0.15)", threshold: 5 },
              mode: "x",
              onZoomComplete: function (ctx) {
                window.MonitorRange.set(ctx.chart.scales.x.min, ctx.chart.scales.x.max);
              },
            },
          },
        },
      },
    });
    charts.set(figure, chart);
    figure.dispatchEvent(new CustomEvent("monitor:chartdrawn", { bubbles: true, detail: { chart: chart, data: data } }));
    const count = data.series.reduce(function (n, s) { return n + s.points.length; }, 0);
    canvas.dataset.points = String(count);
    figure.dataset.resolution = String(data.resolution_s);
    figure.dataset.tier = data.tier || "";
    figure.dataset.start = data.start;
    figure.dataset.end = data.end;
    renderLegend(figure.querySelector("table.legend"), data);
  }

  function kindAndId(figure) {
    return figure.dataset.graphId ? ["graph", figure.dataset.graphId] : ["aggregate", figure.dataset.aggregateId];
  }

  function unitOf(figure) {
    const select = figure.querySelector("select.unit-mode");
    return select ? select.value : "bits";
  }

  /* A point per pixel on a page of one graph, per two pixels on a page of many (a line needs no more). */
  function pointsOf(figure) {
    const width = figure.querySelector(".canvas-box").clientWidth || 800;
    const single = figure.closest(".graphs.single");
    return String(Math.max(50, Math.min(2000, Math.round(single ? width : width / 2))));
  }

  /* Show what arrived: drawn now if the figure is near the view, else when it comes near. */
  function paint(figure) {
    const entry = store.get(figure);
    if (!entry || entry.drawn || !near.has(figure) || !ready) return; // drawn once every script has run
    entry.drawn = true;
    const status = figure.querySelector(".graph-status");
    if (entry.error) { status.textContent = "Could not load this graph: " + entry.error; return; }
    const modeSelect = figure.querySelector("select.view-mode");
    draw(figure, entry.data, modeSelect ? modeSelect.value : "lines");
    const empty = entry.data.series.every(function (s) { return s.points.length === 0; });
    status.textContent = empty ? "No data in this range yet." : "";
  }

  /* Draw a figure in view now, one near it in a task of its own: the screen's charts are shown before the rest. */
  const later = [];
  let draining = false;
  function show(figure) {
    if (inView(figure)) { paint(figure); return; }
    later.push(figure);
    if (!draining) { draining = true; setTimeout(drain, 0); }
  }

  function drain() {
    const figure = later.shift();
    if (figure) paint(figure);
    if (later.length) setTimeout(drain, 0);
    else draining = false;
  }

  function deliver(figure, gen, data, error) {
    inflight.delete(figure);
    store.set(figure, { gen: gen, data: data, error: error, drawn: false });
    figure.dataset.loaded = error ? "error" : "1";
    figure.dataset.p95 = data && data.p95_pending ? "pending" : "ready"; // drawn or not: the legend's last figure
    const csv = figure.querySelector("a.export-csv");
    if (csv) csv.href = figure.dataset.seriesUrl + ".csv?" + requestParams(figure).toString();
    show(figure);
  }

  function requestParams(figure) {
    const params = window.MonitorRange.params();
    params.set("points", pointsOf(figure));
    if (unitOf(figure) !== "bits") params.set("unit", unitOf(figure));
    return params;
  }

  /* One request per (unit, points) among the figures; `p95` "later" for charts, "only" for the percentiles. */
  async function fetchBatch(figures, gen, p95) {
    const groups = new Map();
    figures.forEach(function (figure) {
      const key = unitOf(figure) + "|" + pointsOf(figure);
      if (!groups.has(key)) groups.set(key, []);
      groups.get(key).push(figure);
    });
    for (const members of groups.values()) {
      const params = requestParams(members[0]);
      params.set("p95", p95);
      members.forEach(function (figure) { const [kind, id] = kindAndId(figure); params.append(kind, id); });
      let body = null;
      let error = "";
      try {
        const response = await fetch(document.body.dataset.seriesUrl + "?" + params.toString(), {
          credentials: "same-origin",
        });
        body = await response.json();
        if (!response.ok) error = body.error || response.statusText;
      } catch (err) {
        error = err.message;
      }
      if (gen !== generation) return; // a newer range was asked for meanwhile
      members.forEach(function (figure) {
        const [kind, id] = kindAndId(figure);
        const data = body && !error ? (kind === "graph" ? body.graphs : body.aggregates)[id] : null;
        const problem = error || (data ? "" : (body && body.errors && body.errors[kind + ":" + id]) || "no data");
        if (p95 === "only") mergePercentiles(figure, data);
        else deliver(figure, gen, data && Object.assign(data, { start: body.start, end: body.end }), problem);
      });
    }
  }

  function mergePercentiles(figure, found) {
    const entry = store.get(figure);
    if (!entry || !entry.data) return;
    entry.data.p95_pending = false;
    figure.dataset.p95 = "ready";
    (found ? found.series : []).forEach(function (s) {
      const mine = entry.data.series.find(function (m) { return m.field === s.field; });
      if (mine) mine.stats.p95 = s.stats.p95;
    });
    if (entry.drawn) renderLegend(figure.querySelector("table.legend"), entry.data);
  }

  function inView(figure) {
    const box = figure.getBoundingClientRect();
    return box.bottom > 0 && box.top < window.innerHeight;
  }

  /* The first screen's request, named by the server in the page's head: the browser has been fetching it while it
     read the page; its answer is used as is (its figures skip the first batch). */
  function early(figures, gen) {
    const link = document.getElementById("first-graphs");
    if (!link || gen !== 1) return { figures: [], done: null };
    const url = new URL(link.href, window.location.href);
    const named = new Set(url.searchParams.getAll("graph").map(function (id) { return "graph:" + id; })
      .concat(url.searchParams.getAll("aggregate").map(function (id) { return "aggregate:" + id; })));
    const mine = figures.filter(function (f) { return named.has(kindAndId(f).join(":")) && unitOf(f) === "bits"; });
    if (!mine.length) return { figures: [], done: null };
    const done = fetch(link.href, { credentials: "same-origin" }).then(function (response) {
      return response.json().then(function (body) { return { ok: response.ok, body: body }; });
    }).then(function (answer) {
      if (gen !== generation) return;
      mine.forEach(function (figure) {
        const [kind, id] = kindAndId(figure);
        const data = answer.ok ? (kind === "graph" ? answer.body.graphs : answer.body.aggregates)[id] : null;
        const problem = answer.ok ? (data ? "" : (answer.body.errors || {})[kind + ":" + id] || "no data") : answer.body.error;
        deliver(figure, gen, data && Object.assign(data, { start: answer.body.start, end: answer.body.end }), problem);
      });
      morePercentiles(mine, gen);
    }).catch(function (err) { mine.forEach(function (f) { deliver(f, gen, null, err.message); }); });
    return { figures: mine, done: done };
  }

  function morePercentiles(figures, gen) {
    const pending = figures.filter(function (f) { const e = store.get(f); return e && e.data && e.data.p95_pending; });
    return pending.length ? fetchBatch(pending, gen, "only") : null;
  }

  /* Fetch `figures`: those in view first (the preloaded answer, else a request of their own); the rest once those
     are drawn (their answers would hold up the first screen's drawing), BATCH per request, PARALLEL at a time;
     then the pending 95th percentiles. */
  async function load(figures) {
    const gen = generation;
    figures.forEach(function (figure) { inflight.add(figure); });
    const preloaded = early(figures, gen);
    figures = figures.filter(function (f) { return preloaded.figures.indexOf(f) < 0; });
    const first = figures.filter(inView);
    const rest = figures.filter(function (f) { return first.indexOf(f) < 0; });
    await Promise.all([preloaded.done, first.length ? fetchBatch(first, gen, "later") : null]);
    if (gen !== generation) return;
    const queue = [];
    for (let i = 0; i < rest.length; i += BATCH) queue.push(rest.slice(i, i + BATCH));
    async function worker() {
      while (queue.length && gen === generation) await fetchBatch(queue.shift(), gen, "later");
    }
    await Promise.all(Array.from({ length: PARALLEL }, worker));
    if (gen !== generation) return;
    const pending = figures.filter(function (f) { const e = store.get(f); return e && e.data && e.data.p95_pending; });
    pending.sort(function (a, b) { return (near.has(b) ? 1 : 0) - (near.has(a) ? 1 : 0); }); // near ones first
    const batches = [];
    for (let i = 0; i < pending.length; i += BATCH) batches.push(pending.slice(i, i + BATCH));
    await Promise.all(batches.map(function (batch) { return fetchBatch(batch, gen, "only"); }));
  }

  function loadAll() {
    generation += 1;
    inflight.clear();
    store.forEach(function (entry) { entry.gen = -1; });
    load(Array.from(document.querySelectorAll("figure.graph")));
    const heatmaps = function () {
      document.querySelectorAll("figure.heatmap").forEach(function (fig) { window.MonitorHeatmap && window.MonitorHeatmap.load(fig); });
    };
    if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", heatmaps);
    else heatmaps();
  }

  /* A live range moves on: refresh what is in view; the rest is fetched again when it comes near. */
  function refresh() {
    generation += 1;
    inflight.clear();
    const visible = [];
    store.forEach(function (entry, figure) {
      if (near.has(figure)) visible.push(figure);
      else entry.gen = -1;
    });
    load(visible);
  }

  function watch() {
    const observer = new IntersectionObserver(function (entries) {
      const stale = [];
      entries.forEach(function (e) {
        if (!e.isIntersecting) { near.delete(e.target); return; }
        near.add(e.target);
        const entry = store.get(e.target);
        if (entry && entry.gen === generation) show(e.target);
        else if (!inflight.has(e.target)) stale.push(e.target);
      });
      if (stale.length) load(stale);
    }, { rootMargin: "100% 0px" });
    document.querySelectorAll("figure.graph").forEach(function (figure) { observer.observe(figure); });
  }

  function reload(figure) {
    const entry = store.get(figure);
    if (entry) entry.gen = -1;
    load([figure]);
  }

  function setUpTools(figure) {
    const modeSelect = figure.querySelector("select.view-mode");
    const unitSelect = figure.querySelector("select.unit-mode");
    if (modeSelect) {
      modeSelect.value = option("view", "lines");
      modeSelect.addEventListener("change", function () {
        remember("view", modeSelect.value);
        const entry = store.get(figure);
        if (entry && entry.data) { entry.drawn = false; paint(figure); }
      });
    }
    if (unitSelect) {
      const wanted = option("unit", "bits");
      if (unitSelect.querySelector("option[value='" + wanted + "']")) unitSelect.value = wanted;
      unitSelect.addEventListener("change", function () { remember("unit", unitSelect.value); reload(figure); });
    }
    const png = figure.querySelector("a.export-png");
    if (png) {
      png.addEventListener("click", function () {
        const chart = charts.get(figure);
        if (chart) { png.href = chart.toBase64Image("image/png", 1); png.download = "graph-" + (figure.dataset.graphId || figure.dataset.aggregateId) + ".png"; }
      });
    }
  }

  function humanDurations() {
    document.querySelectorAll(".duration[data-seconds]").forEach(function (el) {
      let s = Number(el.dataset.seconds);
      const d = Math.floor(s / 86400); s -= d * 86400;
      const h = Math.floor(s / 3600); s -= h * 3600;
      const m = Math.floor(s / 60);
      el.textContent = (d ? d + "d " : "") + h + "h " + m + "m";
    });
  }

  window.MonitorGraphs = { si: si, loadAll: loadAll };

  /* This script runs before the chart library loads (the page's graphs are already parsed): the first screen's
     data is on its way while Chart.js is still being read, and drawn as soon as it is there. */
  humanDurations();
  document.querySelectorAll("figure.graph").forEach(setUpTools);
  document.querySelectorAll("figure.graph").forEach(function (f) { if (inView(f)) near.add(f); });
  loadAll();

  document.addEventListener("DOMContentLoaded", function () {
    near.forEach(show);
    watch();
    document.addEventListener("monitor:rangechange", loadAll);
    const section = document.getElementById("graphs");
    const every = Number(section && section.dataset.refreshS) || 60;
    window.setInterval(function () { if (window.MonitorRange.isLive()) refresh(); }, Math.max(5, every) * 1000);
  });
})();
