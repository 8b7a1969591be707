/* The iSCSI path page: every chart of the window on one shared time axis (same range, same left edge), the
   moment clicked on the heatmap shaded on each, and the switch ports on the path with their marks. */
(function () {
  "use strict";
  const COLOURS = ["#1f5fbf", "#c0392b", "#2e9d3a", "#8e44ad", "#d35400", "#16a085", "#7f8c8d", "#b7950b"];
  const AXIS_WIDTH = 84; // every chart's y axis is this wide, so their time axes line up

  function text(tag, value, cls) {
    const el = document.createElement(tag);
    el.textContent = value === null || value === undefined ? "–" : String(value); // device strings: text only
    if (cls) el.className = cls;
    return el;
  }

  const F = window.MonitorFormat; // static/js/format.js

  function ports(data) {
    const body = document.querySelector("#path-ports tbody");
    if (!data.ports.length) return;
    body.replaceChildren();
    data.ports.forEach(function (port) {
      const row = document.createElement("tr");
      row.dataset.switch = port.switch;
      row.dataset.port = port.port;
      row.dataset.marks = port.marks.join(",");
      if (port.marks.length) row.className = "marked";
      row.append(
        text("td", port.switch + " " + port.port),
        text("td", port.array_ports.join(", ")),
        text("td", port.via),
        text("td", F.value(port.speed_bps, "bit/s")),
        text("td", F.value(port.peak_util_pct, "%")),
        text("td", F.value(port.peak_discards_per_s, "/s")),
        text("td", F.value(port.peak_errors_per_s, "/s")),
        text("td", port.peak_pause_per_s === null ? "not served" : F.value(port.peak_pause_per_s, "/s")),
        text("td", port.marks.join(", ") || "", port.marks.length ? "error mark" : "")
      );
      body.append(row);
    });
  }

  /* The chart's legend as a list under its plot: it scrolls past three rows (24 ports never squash the plot); a
     name hides or shows its line. */
  function legend(figure, chart) {
    const list = document.createElement("ul");
    list.className = "chart-legend";
    chart.data.datasets.forEach(function (d, i) {
      const item = text("li", d.label);
      const swatch = document.createElement("span");
      swatch.className = "swatch";
      swatch.style.background = d.borderColor;
      item.prepend(swatch);
      item.title = "Show or hide " + d.label;
      item.addEventListener("click", function () {
        const shown = chart.isDatasetVisible(i);
        chart.setDatasetVisibility(i, !shown);
        item.classList.toggle("hidden", shown);
        chart.update("none");
      });
      list.append(item);
    });
    figure.append(list);
  }

  function chart(container, spec, range, mark) {
    const figure = document.createElement("figure");
    figure.className = "graph path-chart";
    figure.dataset.key = spec.key;
    figure.append(text("figcaption", spec.title)); // the unit is on the axis: never "IOPS (IOPS)"
    const box = document.createElement("div");
    box.className = "canvas-box";
    const canvas = document.createElement("canvas");
    box.append(canvas);
    figure.append(box);
    container.append(figure);
    const datasets = spec.series.map(function (s, i) {
      return {
        label: s.label,
        data: s.points.map(function (p) { return { x: p[0], y: p[1] }; }),
        borderColor: COLOURS[i % COLOURS.length],
        backgroundColor: COLOURS[i % COLOURS.length],
        pointRadius: 0,
        borderWidth: 1.5,
      };
    });
    const annotations = {};
    if (mark) annotations.spike = { type: "box", xMin: mark[0], xMax: mark[1], backgroundColor: "rgba(200, 40, 40, 0.12)", borderWidth: 0 };
    if (spec.key === "utilisation") annotations.lineRate = { type: "line", yMin: 90, yMax: 90, borderColor: "rgba(200, 40, 40, 0.6)", borderDash: [4, 4], borderWidth: 1 };
    const drawn = new window.Chart(canvas, {
      type: "line",
      data: { datasets: datasets },
      options: {
        animation: false,
        responsive: true,
        maintainAspectRatio: false,
        parsing: false,
        interaction: { mode: "nearest", axis: "x", intersect: false },
        scales: {
          x: F.timeAxis(range[0], range[1]),
          y: { beginAtZero: true, ticks: { callback: F.axis(spec.unit) }, afterFit: function (axis) { axis.width = AXIS_WIDTH; } },
        },
        plugins: {
          legend: { display: false }, // the list under the plot is the legend
          tooltip: { callbacks: { title: F.tooltipTitle, label: function (c) { return c.dataset.label + ": " + F.value(c.parsed.y, spec.unit); } } },
          annotation: { annotations: annotations },
        },
      },
    });
    legend(figure, drawn);
    canvas.dataset.points = String(datasets.reduce(function (n, d) { return n + d.data.length; }, 0));
  }

  async function load() {
    const section = document.getElementById("path");
    const status = document.getElementById("path-status");
    const page = new URLSearchParams(window.location.search);
    const params = window.MonitorRange ? window.MonitorRange.params() : new URLSearchParams();
    if (page.get("volume")) params.set("volume", page.get("volume"));
    params.set("points", "400");
    status.textContent = "loading…";
    try {
      const response = await fetch(section.dataset.apiUrl + "?" + params.toString(), { credentials: "same-origin" });
      const data = await response.json();
      if (!response.ok) throw new Error(data.error || response.statusText);
      document.getElementById("line-rate-pct").textContent = String(data.near_line_rate_pct);
      const select = document.getElementById("volume-select");
      select.replaceChildren();
      data.volumes.forEach(function (v) { const o = text("option", v); o.value = v; o.selected = v === data.volume; select.append(o); });
      ports(data);
      const container = document.getElementById("path-charts");
      container.replaceChildren();
      const range = [Date.parse(data.start), Date.parse(data.end)];
      const mark = page.get("mark_start") ? [Number(page.get("mark_start")), Number(page.get("mark_end"))] : null;
      data.charts.forEach(function (spec) { chart(container, spec, range, mark); });
      section.dataset.loaded = "1";
      status.textContent = "Each point is the largest sample of its " + data.step_s + " s, so a spike is never averaged away.";
    } catch (err) {
      section.dataset.loaded = "error";
      status.textContent = "Could not load the path: " + err.message;
    }
  }

  document.addEventListener("change", function (event) {
    if (event.target.id !== "volume-select") return;
    const query = new URLSearchParams(window.location.search);
    query.set("volume", event.target.value);
    query.delete("mark_start");
    query.delete("mark_end");
    window.location.search = query.toString();
  });
  document.addEventListener("monitor:rangechange", load);
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", load);
  else load();
})();
