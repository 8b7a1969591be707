/* Draw every graph on the page from its series URL for the range in the URL; re-fetch on every zoom. */
(function () {
  "use strict";

  const COLORS = ["#2e9d3a", "#1f5fbf", "#8a2be2", "#c0392b", "#d68910", "#117a8b"];
  const charts = new Map();
  const generation = new Map();

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

  function cell(tag, text) {
    const el = document.createElement(tag);
    el.textContent = text;
    return el;
  }

  function renderLegend(table, data) {
    if (!table) return;
    const totals = data.series.some(function (s) { return "total" in s.stats; });
    table.replaceChildren();
    const head = document.createElement("tr");
    ["", "Current", "Average", "Minimum", "Maximum", "95th", ...(totals ? ["Total"] : [])].forEach(function (text) {
      head.appendChild(cell("th", text));
    });
    table.appendChild(head);
    data.series.forEach(function (s) {
      const st = s.stats;
      const tr = document.createElement("tr");
      tr.appendChild(cell("th", s.label));
      [st.current, st.average, st.minimum, st.maximum, st.p95].forEach(function (v) { tr.appendChild(cell("td", si(v, data.unit))); });
      if (totals) tr.appendChild(cell("td", si(st.total, "B")));
      table.appendChild(tr);
    });
  }

  function datasets(data, mode) {
    const sets = [];
    data.series.forEach(function (s, index) {
      const color = COLORS[index % COLORS.length];
      const sign = mode === "mirror" && index === 1 ? -1 : 1;
      const gap = data.resolution_s * 2000;
      sets.push({
        label: s.label,
        data: s.points.map(function (p) { return { x: p[0], y: p[2] === null ? null : sign * p[2] }; }),
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
          data: s.points.map(function (p) { return { x: p[0], y: p[3] === null ? null : sign * p[3] }; }),
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
    const count = data.series.reduce(function (n, s) { return n + s.points.length; }, 0);
    canvas.dataset.points = String(count);
    figure.dataset.resolution = String(data.resolution_s);
    figure.dataset.tier = data.tier || "";
    figure.dataset.start = data.start;
    figure.dataset.end = data.end;
    renderLegend(figure.querySelector("table.legend"), data);
  }

  function requestParams(figure) {
    const params = window.MonitorRange.params();
    const width = figure.querySelector(".canvas-box").clientWidth || 800;
    params.set("points", String(Math.max(50, Math.min(2000, Math.round(width)))));
    const unitSelect = figure.querySelector("select.unit-mode");
    if (unitSelect && unitSelect.value !== "bits") params.set("unit", unitSelect.value);
    return params;
  }

  async function load(figure) {
    const status = figure.querySelector(".graph-status");
    const mine = (generation.get(figure) || 0) + 1;
    generation.set(figure, mine);
    const params = requestParams(figure);
    const url = figure.dataset.seriesUrl;
    const csv = figure.querySelector("a.export-csv");
    if (csv) csv.href = url + ".csv?" + params.toString();
    try {
      const response = await fetch(url + "?" + params.toString(), { credentials: "same-origin", headers: { Accept: "application/json" } });
      const data = await response.json();
      if (generation.get(figure) !== mine) return; // a newer range was asked for meanwhile
      if (!response.ok) throw new Error(data.error || response.statusText);
      const modeSelect = figure.querySelector("select.view-mode");
      draw(figure, data, modeSelect ? modeSelect.value : "lines");
      const empty = data.series.every(function (s) { return s.points.length === 0; });
      status.textContent = empty ? "No data in this range yet." : "";
    } catch (err) {
      if (generation.get(figure) === mine) status.textContent = "Could not load this graph: " + err.message;
    }
  }

  function loadAll() {
    document.querySelectorAll("figure.graph").forEach(load);
    document.querySelectorAll("figure.heatmap").forEach(function (fig) { window.MonitorHeatmap && window.MonitorHeatmap.load(fig); });
  }

  function setUpTools(figure) {
    const modeSelect = figure.querySelector("select.view-mode");
    const unitSelect = figure.querySelector("select.unit-mode");
    if (modeSelect) {
      modeSelect.value = option("view", "lines");
      modeSelect.addEventListener("change", function () { remember("view", modeSelect.value); load(figure); });
    }
    if (unitSelect) {
      const wanted = option("unit", "bits");
      if (unitSelect.querySelector("option[value='" + wanted + "']")) unitSelect.value = wanted;
      unitSelect.addEventListener("change", function () { remember("unit", unitSelect.value); load(figure); });
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

  document.addEventListener("DOMContentLoaded", function () {
    humanDurations();
    document.querySelectorAll("figure.graph").forEach(setUpTools);
    loadAll();
    document.addEventListener("monitor:rangechange", loadAll);
    const section = document.getElementById("graphs");
    const refresh = Number(section && section.dataset.refreshS) || 60;
    window.setInterval(function () { if (window.MonitorRange.isLive()) loadAll(); }, Math.max(5, refresh) * 1000);
  });
})();
