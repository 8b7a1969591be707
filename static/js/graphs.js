/* Draw every graph on the page from /api/graphs/<id>/series for the range in the URL. */
(function () {
  "use strict";

  const COLORS = { In: "#2e9d3a", Out: "#1f5fbf" };
  const charts = new Map();

  function rangeParams() {
    const url = new URLSearchParams(window.location.search);
    const params = new URLSearchParams();
    if (url.get("start")) {
      params.set("start", url.get("start"));
      params.set("end", url.get("end") || "now");
    } else {
      params.set("range", url.get("range") || "1d");
    }
    return params;
  }

  function si(value, unit) {
    if (value === null || value === undefined || Number.isNaN(value)) return "–";
    const prefixes = ["", "k", "M", "G", "T", "P"];
    let v = Math.abs(value);
    let i = 0;
    while (v >= 1000 && i < prefixes.length - 1) { v /= 1000; i += 1; }
    const shown = (value < 0 ? -v : v).toFixed(v >= 100 ? 0 : v >= 10 ? 1 : 2);
    return shown + " " + prefixes[i] + unit;
  }

  function bytes(value) {
    if (value === null || value === undefined) return "–";
    return si(value, "B");
  }

  function legendRow(series, unit, totals) {
    const s = series.stats;
    const cells = [series.label, si(s.current, unit), si(s.average, unit), si(s.maximum, unit), si(s.p95, unit)];
    if (totals) cells.push(bytes(s.total));
    const tr = document.createElement("tr");
    cells.forEach(function (text, i) {
      const td = document.createElement(i === 0 ? "th" : "td");
      td.textContent = text;
      tr.appendChild(td);
    });
    return tr;
  }

  function renderLegend(table, data) {
    const totals = data.series.some(function (s) { return "total" in s.stats; });
    table.replaceChildren();
    const head = document.createElement("tr");
    ["", "Current", "Average", "Maximum", "95th", ...(totals ? ["Total"] : [])].forEach(function (text) {
      const th = document.createElement("th");
      th.textContent = text;
      head.appendChild(th);
    });
    table.appendChild(head);
    data.series.forEach(function (s) { table.appendChild(legendRow(s, data.unit, totals)); });
  }

  function datasets(data) {
    const sets = [];
    data.series.forEach(function (s, index) {
      const color = COLORS[s.label] || ["#8a2be2", "#c0392b", "#d68910"][index % 3];
      sets.push({
        label: s.label,
        data: s.points.map(function (p) { return { x: p[0], y: p[2] }; }),
        borderColor: color,
        backgroundColor: color + "33",
        fill: index === 0 ? "origin" : false,
        pointRadius: 0,
        borderWidth: 1.5,
        spanGaps: data.resolution_s * 2000,
      });
      if (data.aggregated) {
        sets.push({
          label: s.label + " max",
          data: s.points.map(function (p) { return { x: p[0], y: p[3] }; }),
          borderColor: color + "88",
          borderDash: [3, 3],
          fill: false,
          pointRadius: 0,
          borderWidth: 1,
          spanGaps: data.resolution_s * 2000,
        });
      }
    });
    return sets;
  }

  function draw(figure, data) {
    const canvas = figure.querySelector("canvas");
    const existing = charts.get(figure);
    const config = {
      type: "line",
      data: { datasets: datasets(data) },
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
          y: { beginAtZero: true, ticks: { callback: function (v) { return si(v, data.unit); } } },
        },
        plugins: {
          legend: { display: true },
          tooltip: { callbacks: { label: function (c) { return c.dataset.label + ": " + si(c.parsed.y, data.unit); } } },
        },
      },
    };
    if (existing) existing.destroy();
    charts.set(figure, new Chart(canvas, config));
    const count = data.series.reduce(function (n, s) { return n + s.points.length; }, 0);
    canvas.dataset.points = String(count);
    figure.dataset.resolution = String(data.resolution_s);
    renderLegend(figure.querySelector("table.legend"), data);
  }

  async function load(figure) {
    const status = figure.querySelector(".graph-status");
    const params = rangeParams();
    const width = figure.querySelector(".canvas-box").clientWidth || 800;
    params.set("points", String(Math.max(50, Math.min(2000, Math.round(width)))));
    try {
      const response = await fetch("/api/graphs/" + figure.dataset.graphId + "/series?" + params.toString(),
        { credentials: "same-origin", headers: { Accept: "application/json" } });
      const data = await response.json();
      if (!response.ok) throw new Error(data.error || response.statusText);
      draw(figure, data);
      const empty = data.series.every(function (s) { return s.points.length === 0; });
      status.textContent = empty ? "No data in this range yet." : "";
    } catch (err) {
      status.textContent = "Could not load this graph: " + err.message;
    }
  }

  function markActiveRange() {
    const params = rangeParams();
    const label = document.getElementById("range-label");
    document.querySelectorAll("a.range").forEach(function (a) {
      a.classList.toggle("active", a.dataset.range === params.get("range"));
    });
    if (label) label.textContent = params.get("range") ? "last " + params.get("range") : params.get("start") + " → " + params.get("end");
  }

  function loadAll() {
    document.querySelectorAll("figure.graph").forEach(load);
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

  document.addEventListener("DOMContentLoaded", function () {
    markActiveRange();
    humanDurations();
    loadAll();
    const section = document.getElementById("graphs");
    const refresh = Number(section && section.dataset.refreshS) || 60;
    if (!new URLSearchParams(window.location.search).get("start")) {
      window.setInterval(loadAll, Math.max(5, refresh) * 1000);
    }
  });
})();
