/* Every graph on the page, for the range in the URL. The figures in view are drawn first (their data was asked
   for by the page's head), then the rest of the page's data is fetched, a few dozen graphs per request (GET
   /api/series, as columns); a chart is drawn when it comes within a screen of the view, in the browser's idle
   time. 95th percentiles that need a read of their own are asked for the charts drawn, once the page's data is in.
   Every zoom re-fetches everything.

   What costs a page of 160 graphs its speed, and how this script avoids it (docs/graphs.md):
   - reading a size after changing the page forces a layout of the whole page: sizes are read once, up front
     (every chart of a grid has the same width), then only IntersectionObservers tell what is in view;
   - a chart's tools and legend are made when the chart is drawn, not by the server for every figure;
   - charts have a fixed size (no responsive re-measuring), so making one reads nothing back from the page. */
(function () {
  "use strict";

  const COLORS = ["#2e9d3a", "#1f5fbf", "#8a2be2", "#c0392b", "#d68910", "#117a8b"];
  const BATCH = 52; // graphs of one device and template per request (a switch's ports): see batches()
  const POOL = 20; // graphs per request where sets are small (many devices' graphs, aggregates read one by one)
  const P95_BATCH = 20; // charts per request of percentiles (the dearest read: a year's 20 take seconds)
  const PARALLEL = 4; // requests in flight (a switch page: its three kinds of port graph and its few others at once)
  const charts = new Map(); // figure -> Chart
  const store = new Map(); // figure -> {gen, data, error, drawn}
  const near = new Set(); // figures within a screen of the viewport
  const visible = new Set(); // figures in the viewport
  const inflight = new Set(); // figures whose data is on its way for the current generation
  const figures = Array.from(document.querySelectorAll("figure.graph"));
  const container = document.getElementById("graphs") || document.body;
  let generation = 0;
  let dataIn = -1; // the generation whose data is all in
  let ready = false; // every script of the page has run (Chart.js, its date adapter, the zoom plugin)

  const F = window.MonitorFormat; // static/js/format.js: every number, unit and date on the page
  const si = F.value;

  function option(name, fallback) {
    try { return window.localStorage.getItem("monitor." + name) || fallback; } catch (e) { return fallback; }
  }

  function remember(name, value) {
    try { window.localStorage.setItem("monitor." + name, value); } catch (e) { /* private mode */ }
  }

  function el(tag, attrs, text) {
    const node = document.createElement(tag);
    Object.keys(attrs || {}).forEach(function (key) { node.setAttribute(key, attrs[key]); });
    if (text !== undefined) node.textContent = text;
    return node;
  }

  /* ---- sizes: read once per grid, before the page is changed ---- */

  const sizes = new Map(); // grid -> {width, height} of its charts in CSS pixels
  function gridOf(figure) { return figure.closest(".graphs") || figure.parentElement; }
  function sizeOf(figure) {
    const grid = gridOf(figure);
    let size = sizes.get(grid);
    if (size === undefined) {
      const box = figure.querySelector(".canvas-box");
      size = { width: box.clientWidth || 800, height: box.clientHeight || 200 };
      sizes.set(grid, size);
    }
    return size;
  }

  /* A point per pixel on a page of one graph, per two pixels on a page of many (a line needs no more). */
  function pointsOf(figure) {
    const width = sizeOf(figure).width;
    const single = gridOf(figure).classList.contains("single");
    return String(Math.max(50, Math.min(2000, Math.round(single ? width : width / 2))));
  }

  /* ---- the unit and the way out is drawn, per figure; the last choice is remembered ---- */

  function unitOf(figure) {
    if (!figure.dataset.unit) {
      const wanted = option("unit", "bits");
      const offered = figure.dataset.bits ? ["bits", "bytes"] : [];
      if (figure.dataset.percent) offered.push("percent");
      figure.dataset.unit = offered.indexOf(wanted) >= 0 ? wanted : offered[0] || "bits";
    }
    return figure.dataset.unit;
  }

  function modeOf(figure) {
    const select = figure.querySelector("select.view-mode");
    return select ? select.value : option("view", "lines");
  }

  /* ---- legend: a table under the chart; a row's name hides or shows its line ---- */

  function renderLegend(figure, data) {
    const table = figure.querySelector("table.legend");
    if (!table) return;
    const totals = data.series.some(function (s) { return "total" in s.stats; });
    const p95 = Boolean(data.p95_source); // graphs of counts and sizes have none
    const source = "95th percentile of " + data.p95_source;
    const chart = charts.get(figure);
    table.replaceChildren();
    const head = el("tr");
    ["", "Current", "Average", "Minimum", "Maximum", ...(p95 ? ["95th"] : []), ...(totals ? ["Total"] : [])].forEach(function (text) {
      head.appendChild(el("th", text === "95th" ? { title: source } : {}, text));
    });
    table.appendChild(head);
    data.series.forEach(function (s, index) {
      const st = s.stats;
      const tr = el("tr");
      const name = el("th", { class: "series", title: "Show or hide " + s.label });
      name.appendChild(el("span", { class: "swatch", style: "background:" + COLORS[index % COLORS.length] }));
      name.appendChild(document.createTextNode(s.label));
      name.addEventListener("click", function () { toggle(figure, index, tr); });
      tr.appendChild(name);
      [st.current, st.average, st.minimum, st.maximum].forEach(function (v) { tr.appendChild(el("td", {}, si(v, data.unit))); });
      const pending = data.p95_pending && (st.p95 === null || st.p95 === undefined);
      if (p95) tr.appendChild(el("td", { title: pending ? source + ": on its way" : source }, pending ? "…" : si(st.p95, data.unit)));
      if (totals) tr.appendChild(el("td", {}, si(st.total, "B")));
      if (chart && chart.data.datasets.some(function (d) { return d.series === index && d.hidden; })) tr.classList.add("hidden");
      table.appendChild(tr);
    });
    table.dataset.p95 = data.p95_pending ? "pending" : "ready";
  }

  function toggle(figure, index, row) {
    const chart = charts.get(figure);
    if (!chart) return;
    const hide = !row.classList.contains("hidden");
    row.classList.toggle("hidden", hide);
    chart.data.datasets.forEach(function (d) { if (d.series === index) d.hidden = hide; });
    chart.update("none");
  }

  /* ---- charts ---- */

  /* Chart points of one column of a series' columns ("t", "mean", "max"). */
  function column(s, name, sign) {
    const t = s.cols.t;
    const values = s.cols[name];
    const out = new Array(t.length);
    for (let i = 0; i < t.length; i += 1) out[i] = { x: t[i], y: values[i] === null ? null : sign * values[i] };
    return out;
  }

  function datasets(data, mode) {
    const sets = [];
    data.series.forEach(function (s, index) {
      const color = COLORS[index % COLORS.length];
      const sign = mode === "mirror" && index === 1 ? -1 : 1;
      const gap = data.resolution_s * 2000;
      sets.push({
        label: s.label,
        series: index,
        data: column(s, "mean", sign),
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
          series: index,
          data: column(s, "max", sign),
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
    const size = sizeOf(figure);
    canvas.width = size.width; // a fixed size: Chart.js reads nothing back from the page
    canvas.height = size.height;
    const start = Date.parse(data.start);
    const end = Date.parse(data.end);
    const chart = new Chart(canvas, {
      type: "line",
      data: { datasets: datasets(data, mode) },
      options: {
        animation: false,
        responsive: false,
        parsing: false,
        normalized: true,
        interaction: { mode: "index", intersect: false },
        scales: {
          x: F.timeAxis(start, end),
          y: {
            beginAtZero: true,
            stacked: mode === "stack",
            ticks: { sampleSize: 8, callback: F.axis(data.unit, true) },
          },
        },
        onClick: figure.dataset.pathUrl ? function (event, elements, chart) { openPathAt(figure, chart, event); } : undefined,
        plugins: {
          legend: { display: false }, // the table under the chart is the legend
          tooltip: { callbacks: { title: F.tooltipTitle, label: function (c) { return c.dataset.label + ": " + si(Math.abs(c.parsed.y), data.unit); } } },
          zoom: {
            zoom: {
              drag: { enabled: !thumb, backgroundColor: "rgba(31,95,191,0.15)", threshold: 5 },
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
    const count = data.series.reduce(function (n, s) { return n + s.cols.t.length; }, 0);
    canvas.dataset.points = String(count);
    figure.dataset.resolution = String(data.resolution_s);
    figure.dataset.tier = data.tier || "";
    figure.dataset.start = data.start;
    figure.dataset.end = data.end;
    renderLegend(figure, data);
  }

  /* A volume's latency graph: a click (not a drag, which zooms) on a moment opens the volume's iSCSI path page
     for it (static/js/heatmap.js does the same from the heatmap's cells). */
  const pressed = new WeakMap(); // canvas -> where the mouse went down
  document.addEventListener("mousedown", function (e) { if (e.target.tagName === "CANVAS") pressed.set(e.target, [e.clientX, e.clientY]); });
  function openPathAt(figure, chart, event) {
    const down = pressed.get(chart.canvas);
    const up = event.native;
    if (down && up && Math.abs(up.clientX - down[0]) + Math.abs(up.clientY - down[1]) > 4) return;
    if (!window.MonitorPath || event.x < chart.chartArea.left || event.x > chart.chartArea.right) return;
    const at = chart.scales.x.getValueForPixel(event.x);
    const step = Number(figure.dataset.resolution) || 60;
    window.MonitorPath.open(figure.dataset.pathUrl, figure.dataset.volume, at - (at % (step * 1000)), step);
  }

  /* ---- a figure's tools, made when it is first drawn ---- */

  function tools(figure) {
    if (figure.classList.contains("thumb") || figure.querySelector(".graph-tools")) return;
    const bar = el("div", { class: "graph-tools" });
    const view = el("select", { class: "view-mode", "aria-label": "Outbound" });
    [["mirror", "Out below axis"], ["stack", "Stacked"], ["lines", "Lines"]].forEach(function (o) { view.appendChild(el("option", { value: o[0] }, o[1])); });
    view.value = option("view", "lines");
    view.addEventListener("change", function () {
      remember("view", view.value);
      const entry = store.get(figure);
      if (entry && entry.data) { entry.drawn = false; paint(figure); }
    });
    bar.appendChild(view);
    if (figure.dataset.bits || figure.dataset.percent) {
      const unit = el("select", { class: "unit-mode", "aria-label": "Unit" });
      if (figure.dataset.bits) { unit.appendChild(el("option", { value: "bits" }, "bits")); unit.appendChild(el("option", { value: "bytes" }, "bytes")); }
      if (figure.dataset.percent) unit.appendChild(el("option", { value: "percent" }, "% of speed"));
      unit.value = unitOf(figure);
      unit.addEventListener("change", function () { figure.dataset.unit = unit.value; remember("unit", unit.value); reload(figure); });
      bar.appendChild(unit);
    }
    const csv = el("a", { class: "export-csv", href: "#", download: "" }, "CSV");
    bar.appendChild(csv);
    const png = el("a", { class: "export-png", href: "#", download: "" }, "PNG");
    png.addEventListener("click", function () {
      const chart = charts.get(figure);
      if (chart) { png.href = chart.toBase64Image("image/png", 1); png.download = "graph-" + (figure.dataset.graphId || figure.dataset.aggregateId) + ".png"; }
    });
    bar.appendChild(png);
    bar.appendChild(pinning(figure));
    figure.insertBefore(bar, figure.querySelector(".graph-status"));
    figure.insertBefore(el("table", { class: "legend" }), figure.querySelector(".graph-status"));
    updateCsv(figure);
  }

  function postButton(url, label, title) {
    const form = el("form", { method: "post", action: url, class: "inline" });
    form.appendChild(el("input", { type: "hidden", name: "csrfmiddlewaretoken", value: document.body.dataset.csrf || "" }));
    const button = el("button", { class: "link", type: "submit" }, label);
    if (title) button.title = title;
    form.appendChild(button);
    return form;
  }

  /* Pin to my dashboard, "On my dashboard", or on the dashboard itself: remove and move. */
  function pinning(figure) {
    const box = el("span", { class: "pinning" });
    const d = figure.dataset;
    if (d.unpinUrl) {
      box.appendChild(postButton(d.unpinUrl, "Remove")).querySelector("button").classList.add("remove");
      box.appendChild(postButton(d.upUrl, "↑", "Move up"));
      box.appendChild(postButton(d.downUrl, "↓", "Move down"));
    } else if (d.pinned) {
      box.appendChild(el("a", { class: "keep-range", href: document.body.dataset.dashboardUrl || "/dashboard/" }, "On my dashboard"));
    } else if (document.body.dataset.pinUrl) {
      const form = postButton(document.body.dataset.pinUrl, "Pin to my dashboard");
      form.classList.add("pin");
      const [kind, id] = kindAndId(figure);
      form.insertBefore(el("input", { type: "hidden", name: kind, value: id }), form.firstChild);
      const next = el("input", { type: "hidden", name: "next", value: "" });
      form.insertBefore(next, form.firstChild);
      form.addEventListener("submit", function () { next.value = window.location.pathname + window.location.search; });
      box.appendChild(form);
    }
    return box;
  }

  function updateCsv(figure) {
    const csv = figure.querySelector("a.export-csv");
    if (csv) csv.href = figure.dataset.seriesUrl + ".csv?" + requestParams(figure).toString();
  }

  function kindAndId(figure) {
    return figure.dataset.graphId ? ["graph", figure.dataset.graphId] : ["aggregate", figure.dataset.aggregateId];
  }

  /* ---- drawing: the view's charts at once, the others in idle time ---- */

  function paint(figure) {
    const entry = store.get(figure);
    if (!entry || entry.drawn || !near.has(figure) || !ready) return; // drawn once every script has run
    entry.drawn = true;
    const status = figure.querySelector(".graph-status");
    if (entry.error) { status.textContent = "Could not load this graph: " + entry.error; settle(); return; }
    tools(figure);
    draw(figure, entry.data, modeOf(figure));
    const empty = entry.data.series.every(function (s) { return s.cols.t.length === 0; });
    status.textContent = empty ? "No data in this range yet." : "";
    wantPercentile(figure);
    settle();
  }

  const later = [];
  const soon = new Set();
  let draining = false;
  const idle = window.requestIdleCallback || function (fn) { return setTimeout(fn, 1); };
  /* A figure in view is drawn in the next task, with the others that arrived together (the page's next requests
     wait for that task: load); one near it in idle time. */
  function show(figure) {
    if (visible.has(figure)) {
      if (!soon.size) setTimeout(function () { const now = Array.from(soon); soon.clear(); now.forEach(paint); }, 0);
      soon.add(figure);
      return;
    }
    later.push(figure);
    drainLater();
  }

  /* Charts near the view are drawn in idle time once the page's data is in: drawn earlier, they take the CPU the
     server needs to answer the page's other requests (on a small machine browser and server share it). */
  function drainLater() {
    if (draining || !later.length || dataIn !== generation) return;
    draining = true;
    idle(drain, { timeout: 500 });
  }

  function drain() {
    const figure = later.shift();
    if (figure) paint(figure);
    if (later.length) idle(drain, { timeout: 500 });
    else draining = false;
  }

  /* ---- marks: when the page's first screen, data and percentiles are in (performance.mark) ---- */

  const marked = new Set();
  function mark(name) {
    if (marked.has(name) || generation !== 1) return;
    marked.add(name);
    if (window.performance && performance.mark) performance.mark("monitor:" + name);
    document.documentElement.dataset[name.replace(/-(\w)/g, function (_, c) { return c.toUpperCase(); })] = String(Math.round(performance.now()));
  }

  function settle() {
    if (generation !== 1) return;
    const shown = Array.from(visible).every(function (f) { const e = store.get(f); return e && e.gen === generation && (e.drawn || e.error); });
    if (shown) mark("first-screen");
    if (figures.every(function (f) { const e = store.get(f); return e && e.gen === generation; })) mark("all-data");
    const drawn = figures.filter(function (f) { const e = store.get(f); return e && e.drawn; });
    if (marked.has("all-data") && drawn.every(function (f) { return f.dataset.p95 === "ready"; })) mark("percentiles");
  }

  /* ---- 95th percentiles that need a read of their own: asked for the charts drawn, once the page's data is in
     (a year's percentiles of 160 graphs cost the server seconds; those of charts nobody scrolled to are not asked) ---- */

  const wanted = new Set();
  let asking = null;
  function wantPercentile(figure) {
    const entry = store.get(figure);
    if (!entry || !entry.data || !entry.data.p95_pending || entry.p95asked) return;
    wanted.add(figure);
    if (dataIn === generation && !asking) asking = setTimeout(askPercentiles, 30);
  }

  function askPercentiles() {
    asking = null;
    const gen = generation;
    const members = Array.from(wanted).filter(function (f) { const e = store.get(f); return e && e.gen === gen; });
    wanted.clear();
    members.forEach(function (f) { store.get(f).p95asked = true; });
    for (let i = 0; i < members.length; i += P95_BATCH) fetchBatch(members.slice(i, i + P95_BATCH), gen, "only");
  }

  /* ---- data ---- */

  function deliver(figure, gen, data, error) {
    inflight.delete(figure);
    store.set(figure, { gen: gen, data: data, error: error, drawn: false });
    figure.dataset.loaded = error ? "error" : "1";
    figure.dataset.p95 = data && data.p95_pending ? "pending" : "ready"; // drawn or not: the legend's last figure
    updateCsv(figure);
    if (near.has(figure)) show(figure);
    settle();
  }

  function requestParams(figure) {
    const params = window.MonitorRange.params();
    params.set("points", pointsOf(figure));
    if (unitOf(figure) !== "bits") params.set("unit", unitOf(figure));
    return params;
  }

  function pick(body, figure) {
    const [kind, id] = kindAndId(figure);
    const data = (kind === "graph" ? body.graphs : body.aggregates)[id];
    return { data: data ? Object.assign(data, { start: body.start, end: body.end }) : null, problem: data ? "" : (body.errors || {})[kind + ":" + id] || "no data" };
  }

  /* One request per (unit, points) among the figures; `p95` "later" for charts, "only" for the percentiles. */
  async function fetchBatch(members, gen, p95) {
    const groups = new Map();
    members.forEach(function (figure) {
      const key = unitOf(figure) + "|" + pointsOf(figure);
      if (!groups.has(key)) groups.set(key, []);
      groups.get(key).push(figure);
    });
    for (const group of groups.values()) {
      const params = requestParams(group[0]);
      params.set("p95", p95);
      params.set("shape", "columns");
      group.forEach(function (figure) { const [kind, id] = kindAndId(figure); params.append(kind, id); });
      let body = null;
      let error = "";
      try {
        const response = await fetch(document.body.dataset.seriesUrl + "?" + params.toString(), { credentials: "same-origin" });
        body = await response.json();
        if (!response.ok) error = body.error || response.statusText;
      } catch (err) {
        error = err.message;
      }
      if (gen !== generation) return; // a newer range was asked for meanwhile
      group.forEach(function (figure) {
        const found = body && !error ? pick(body, figure) : { data: null, problem: error };
        if (p95 === "only") mergePercentiles(figure, found.data);
        else deliver(figure, gen, found.data, found.problem);
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
    if (entry.drawn) renderLegend(figure, entry.data);
    settle();
  }

  /* The first screen's request, named by the server in the page's head: the browser has been fetching it while it
     read the page; its answer is used as is (its figures skip the first batch). */
  function early(members, gen) {
    const link = document.getElementById("first-graphs");
    if (!link || gen !== 1) return { figures: [], done: null };
    const url = new URL(link.href, window.location.href);
    const named = new Set(url.searchParams.getAll("graph").map(function (id) { return "graph:" + id; })
      .concat(url.searchParams.getAll("aggregate").map(function (id) { return "aggregate:" + id; })));
    const mine = members.filter(function (f) { return named.has(kindAndId(f).join(":")) && unitOf(f) === "bits"; });
    if (!mine.length) return { figures: [], done: null };
    const done = fetch(link.href, { credentials: "same-origin" }).then(function (response) {
      return response.json().then(function (body) { return { ok: response.ok, body: body }; });
    }).then(function (answer) {
      if (gen !== generation) return;
      mine.forEach(function (figure) {
        const found = answer.ok ? pick(answer.body, figure) : { data: null, problem: answer.body.error };
        deliver(figure, gen, found.data, found.problem);
      });
    }).catch(function (err) { mine.forEach(function (f) { deliver(f, gen, null, err.message); }); });
    return { figures: mine, done: done };
  }

  /* The requests for `members`: graphs of one device and template together, BATCH at most a request, so that
     InfluxDB reads a switch's ports of one kind as one set (a request of every kind of a few ports each cost it
     half as much again); the small sets left over (and aggregates, each a set of its own) share requests of POOL. */
  function batches(members) {
    const sets = new Map();
    members.forEach(function (figure) {
      const key = figure.dataset.reads || kindAndId(figure).join(":");
      if (!sets.has(key)) sets.set(key, []);
      sets.get(key).push(figure);
    });
    const out = [];
    let small = [];
    sets.forEach(function (set) {
      for (let i = 0; i < set.length; i += BATCH) {
        const part = set.slice(i, i + BATCH);
        if (part.length >= BATCH / 4) out.push(part);
        else small = small.concat(part);
      }
    });
    for (let i = 0; i < small.length; i += POOL) out.push(small.slice(i, i + POOL));
    return out;
  }

  /* Fetch `members`: those in view first (the preloaded answer, else a request of their own); the rest once those
     are in (their answers would hold up the first screen), in `batches`, PARALLEL at a time; then the 95th
     percentiles of the charts drawn (wantPercentile). */
  async function load(members) {
    const gen = generation;
    members.forEach(function (figure) { inflight.add(figure); });
    const preloaded = early(members, gen);
    members = members.filter(function (f) { return preloaded.figures.indexOf(f) < 0; });
    const first = members.filter(function (f) { return visible.has(f); });
    const rest = members.filter(function (f) { return !visible.has(f); });
    await Promise.all([preloaded.done, first.length ? fetchBatch(first, gen, "later") : null]);
    // One turn of the event loop: the first screen's charts, queued to be drawn as their data came, are drawn
    // before the rest's requests go out (their answers take the CPU on a small machine: first screen 40 ms sooner).
    await new Promise(function (resolve) { setTimeout(resolve, 0); });
    if (gen !== generation) return;
    const queue = batches(rest);
    async function worker() {
      while (queue.length && gen === generation) await fetchBatch(queue.shift(), gen, "later");
    }
    await Promise.all(Array.from({ length: PARALLEL }, worker));
    if (gen !== generation) return;
    dataIn = gen;
    drainLater();
    if (wanted.size && !asking) asking = setTimeout(askPercentiles, 0);
    settle();
  }

  function loadAll() {
    generation += 1;
    inflight.clear();
    store.forEach(function (entry) { entry.gen = -1; });
    load(figures.slice());
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
    const shown = [];
    store.forEach(function (entry, figure) {
      if (near.has(figure)) shown.push(figure);
      else entry.gen = -1;
    });
    load(shown);
  }

  function watch() {
    const nearby = new IntersectionObserver(function (entries) {
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
    const viewport = new IntersectionObserver(function (entries) {
      entries.forEach(function (e) {
        if (!e.isIntersecting) { visible.delete(e.target); return; }
        visible.add(e.target);
        if (later.indexOf(e.target) >= 0) paint(e.target); // scrolled to before its idle turn came
      });
    });
    figures.forEach(function (figure) { nearby.observe(figure); viewport.observe(figure); });
  }

  function reload(figure) {
    const entry = store.get(figure);
    if (entry) entry.gen = -1;
    load([figure]);
  }

  /* A new window size: measure each grid again and give its charts the new width. */
  let resizing = null;
  window.addEventListener("resize", function () {
    clearTimeout(resizing);
    resizing = setTimeout(function () {
      sizes.clear();
      charts.forEach(function (chart, figure) { const size = sizeOf(figure); chart.resize(size.width, size.height); });
    }, 150);
  });

  function humanDurations() {
    document.querySelectorAll(".duration[data-seconds]").forEach(function (node) {
      let s = Number(node.dataset.seconds);
      const d = Math.floor(s / 86400); s -= d * 86400;
      const h = Math.floor(s / 3600); s -= h * 3600;
      const m = Math.floor(s / 60);
      node.textContent = (d ? d + "d " : "") + h + "h " + m + "m";
    });
  }

  window.MonitorGraphs = { loadAll: loadAll };

  /* This script runs before the chart library loads (the page's graphs are already parsed): first every size the
     page needs is read at once (one layout), then the first screen's data is on its way while Chart.js is still
     being read, and drawn as soon as both are there. */
  figures.forEach(function (f) {
    const box = f.getBoundingClientRect();
    if (box.bottom > 0 && box.top < window.innerHeight) { visible.add(f); near.add(f); }
  });
  figures.forEach(sizeOf);
  humanDurations();
  loadAll();

  document.addEventListener("DOMContentLoaded", function () {
    ready = true;
    near.forEach(show);
    settle();
    watch();
    document.addEventListener("monitor:rangechange", loadAll);
    const every = Number(container.dataset.refreshS) || 60;
    window.setInterval(function () { if (window.MonitorRange.isLive()) refresh(); }, Math.max(5, every) * 1000);
  });
})();
