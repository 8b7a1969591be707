/* Poller health over time: one chart per figure, a line per poller group (or worker), from /pollers/history, over
   the whole range chosen (an empty stretch is time without samples), its unit written by static/js/format.js. */
(function () {
  "use strict";

  const COLOURS = ["#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#17becf"];
  const F = window.MonitorFormat;
  const charts = new Map(); // figure -> Chart

  function draw(figure, lines, range) {
    const status = figure.querySelector(".graph-status");
    const unit = figure.dataset.unit || "";
    const datasets = Object.keys(lines).filter(function (name) { return lines[name].length; }).map(function (name, i) {
      return {
        label: name,
        data: lines[name].map(function (row) { return { x: row[0], y: row[1] }; }),
        borderColor: COLOURS[i % COLOURS.length],
        backgroundColor: COLOURS[i % COLOURS.length],
        pointRadius: 0,
        borderWidth: 1.5,
        stepped: true,
      };
    });
    status.textContent = datasets.length ? "" : "No samples in this range yet (written once a minute by celery beat).";
    if (charts.has(figure)) charts.get(figure).destroy();
    if (!datasets.length || typeof Chart === "undefined") return;
    const canvas = figure.querySelector("canvas");
    charts.set(figure, new Chart(canvas, {
      type: "line",
      data: { datasets: datasets },
      options: {
        animation: false,
        parsing: false,
        responsive: true,
        maintainAspectRatio: false, // the card's canvas box sets the height
        interaction: { mode: "index", intersect: false },
        scales: { x: F.timeAxis(range.start, range.end), y: { beginAtZero: true, ticks: { callback: F.axis(unit) } } },
        plugins: {
          legend: { display: datasets.length > 1, position: "top", labels: { boxWidth: 10, boxHeight: 10 } },
          tooltip: { callbacks: { title: F.tooltipTitle, label: function (c) { return c.dataset.label + ": " + F.value(c.parsed.y, unit); } } },
        },
      },
    }));
    canvas.dataset.points = String(datasets.reduce(function (n, d) { return n + d.data.length; }, 0));
  }

  function load() {
    const holder = document.getElementById("poller-graphs");
    if (!holder) return;
    const params = window.MonitorRange.params();
    const range = window.MonitorRange.bounds();
    fetch(holder.dataset.historyUrl + "?" + params.toString(), { credentials: "same-origin" })
      .then(function (response) { return response.json().then(function (body) { return { ok: response.ok, body: body }; }); })
      .then(function (answer) {
        holder.querySelectorAll(".poller-graph").forEach(function (figure) {
          if (!answer.ok) { figure.querySelector(".graph-status").textContent = answer.body.error || "unavailable"; return; }
          const of = answer.body[figure.dataset.of || "groups"] || {};
          const lines = {};
          Object.keys(of).forEach(function (name) { lines[name] = of[name][figure.dataset.figure] || []; });
          draw(figure, lines, range);
        });
        holder.dataset.loaded = "1";
      })
      .catch(function () {
        holder.querySelectorAll(".graph-status").forEach(function (p) { p.textContent = "unavailable"; });
      });
  }

  document.addEventListener("DOMContentLoaded", load);
  document.addEventListener("monitor:rangechange", load);
})();
