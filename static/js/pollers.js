/* Poller health over time: one chart per figure, a line per poller group (or worker), from /pollers/history. */
(function () {
  "use strict";

  const COLOURS = ["#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#17becf"];

  function draw(figure, lines) {
    const status = figure.querySelector(".graph-status");
    const datasets = Object.keys(lines).filter(function (name) { return lines[name].length; }).map(function (name, i) {
      return {
        label: name,
        data: lines[name].map(function (row) { return { x: row[0], y: row[1] }; }),
        borderColor: COLOURS[i % COLOURS.length],
        pointRadius: 0,
        stepped: true,
      };
    });
    status.textContent = datasets.length ? "" : "No samples in this range yet (written once a minute by celery beat).";
    if (!datasets.length || typeof Chart === "undefined") return;
    new Chart(figure.querySelector("canvas"), {
      type: "line",
      data: { datasets: datasets },
      options: {
        animation: false,
        parsing: false,
        scales: { x: { type: "time" }, y: { beginAtZero: true } },
        plugins: { legend: { display: datasets.length > 1 } },
      },
    });
  }

  function load() {
    const holder = document.getElementById("poller-graphs");
    if (!holder) return;
    const params = window.MonitorRange ? window.MonitorRange.params() : new URLSearchParams();
    fetch(holder.dataset.historyUrl + "?" + params.toString(), { credentials: "same-origin" })
      .then(function (response) { return response.json().then(function (body) { return { ok: response.ok, body: body }; }); })
      .then(function (answer) {
        holder.querySelectorAll(".poller-graph").forEach(function (figure) {
          if (!answer.ok) { figure.querySelector(".graph-status").textContent = answer.body.error || "unavailable"; return; }
          const of = answer.body[figure.dataset.of || "groups"] || {};
          const lines = {};
          Object.keys(of).forEach(function (name) { lines[name] = of[name][figure.dataset.figure] || []; });
          draw(figure, lines);
        });
      })
      .catch(function () {
        holder.querySelectorAll(".graph-status").forEach(function (p) { p.textContent = "unavailable"; });
      });
  }

  document.addEventListener("DOMContentLoaded", load);
})();
