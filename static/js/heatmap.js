/* The volume latency heatmap: one row per volume, one column per interval placed on the page's time axis, coloured
   on an absolute scale (green below the device's warning level, amber up to its problem level, red from it; VMware's
   20 / 50 ms by default). Drawn at the canvas's own size in device pixels (never stretched, never blurred); a hover
   tells the cell's volume, latency and time; a click on a cell opens the iSCSI path page for that volume then. */
(function () {
  "use strict";
  const GREEN = "rgb(46, 157, 58)", AMBER = "rgb(240, 165, 0)", RED = "rgb(200, 40, 40)";
  const LABEL = 120, ROW = 16, AXIS = 22; // CSS pixels: the volume names' column, a row, the time axis under them
  const TICK_PX = 90; // the least room between two time labels
  const NEAR_PX = 3; // a pointer this close to a cell points at it
  const STEPS = [60, 300, 900, 1800, 3600, 3 * 3600, 6 * 3600, 12 * 3600, 86400, 2 * 86400, 7 * 86400, 30 * 86400];
  const F = window.MonitorFormat;

  function colour(ms, warning, problem) {
    if (ms >= problem) return RED;
    if (ms >= warning) return AMBER;
    return GREEN;
  }

  function levels(figure) {
    return { warning: parseFloat(figure.dataset.warningMs) || 20, problem: parseFloat(figure.dataset.problemMs) || 50 };
  }

  function plotWidth(canvas) { return Math.max(50, (canvas.clientWidth || 1000) - LABEL); }

  async function load(figure) {
    const canvas = figure.querySelector("canvas");
    const status = figure.querySelector(".graph-status");
    const legend = figure.querySelector(".heatmap-legend");
    const scale = levels(figure);
    if (legend) legend.textContent = "green below " + scale.warning + " ms, amber to " + scale.problem + " ms, red from " + scale.problem + " ms";
    const params = window.MonitorRange.params();
    params.set("field", figure.querySelector("select.heatmap-field").value);
    params.set("points", String(Math.min(400, plotWidth(canvas))));
    try {
      const response = await fetch(figure.dataset.heatmapUrl + "?" + params.toString(), { credentials: "same-origin" });
      const data = await response.json();
      if (!response.ok) throw new Error(data.error || response.statusText);
      paint(canvas, data, scale);
      status.textContent = data.volumes.length ? "each cell: the worst sample of its " + data.resolution_s + " s; highest " + F.value(data.max, "ms") + "; point at a cell for its figure, click it for the iSCSI path at that moment" : "No volume latency in this range.";
    } catch (err) {
      status.textContent = "Could not load the heatmap: " + err.message;
    }
  }

  /* Time labels a readable distance apart, on whole local minutes, hours or days. */
  function ticks(start, end, width) {
    const span = end - start;
    const step = (STEPS.find(function (s) { return (s * 1000 / span) * width >= TICK_PX; }) || STEPS[STEPS.length - 1]) * 1000;
    const offset = -new Date(start).getTimezoneOffset() * 60000; // local boundaries
    const out = [];
    for (let t = Math.ceil((start + offset) / step) * step - offset; t <= end; t += step) out.push(t);
    return out;
  }

  function paint(canvas, data, scale) {
    const ratio = window.devicePixelRatio || 1;
    const width = canvas.clientWidth || 1000;
    const rows = data.volumes.length;
    const height = Math.max(40, rows * ROW + 4) + AXIS;
    canvas.style.height = height + "px";
    canvas.width = Math.round(width * ratio); // the element's own size in device pixels: nothing is stretched
    canvas.height = Math.round(height * ratio);
    const ctx = canvas.getContext("2d");
    ctx.setTransform(ratio, 0, 0, ratio, 0, 0);
    const start = Date.parse(data.start), end = Date.parse(data.end);
    const plot = width - LABEL;
    const x = function (t) { return LABEL + ((t - start) / (end - start)) * plot; };
    const cellW = Math.max(1, (data.resolution_s * 1000 / (end - start)) * plot);
    const values = data.values.flat().filter(function (v) { return v !== null; });
    data.max = values.length ? Math.max.apply(null, values) : 0;
    ctx.font = "11px sans-serif";
    data.volumes.forEach(function (volume, r) {
      ctx.fillStyle = "#1d2330";
      ctx.fillText(volume.slice(0, 18), 2, r * ROW + 13); // canvas text: never parsed as markup
      data.values[r].forEach(function (v, c) {
        if (v === null) return;
        ctx.fillStyle = colour(v, scale.warning, scale.problem);
        ctx.fillRect(x(data.times[c]), r * ROW + 2, cellW, ROW - 2);
      });
    });
    const base = height - AXIS;
    ctx.fillStyle = "#667085";
    ctx.fillRect(LABEL, base, plot, 1);
    ctx.textAlign = "center";
    const labels = [];
    ticks(start, end, plot).forEach(function (t) {
      const label = F.timeTick(t, end - start);
      const half = ctx.measureText(label).width / 2;
      const at = Math.min(Math.max(x(t), LABEL + half), width - half); // inside the canvas, never cut
      ctx.fillRect(x(t), base, 1, 4);
      ctx.fillText(label, at, base + 15);
      labels.push({ text: label, left: at - half, right: at + half });
    });
    canvas._heatmap = {
      data: data, scale: scale, cellW: cellW, labels: labels,
      spot: function (r, c) { // the middle of a cell's part inside the canvas, CSS px
        const left = Math.max(LABEL, x(data.times[c])), right = Math.min(width, x(data.times[c]) + cellW);
        return { x: (left + right) / 2, y: r * ROW + 9 };
      },
    };
    canvas.dataset.rows = String(rows);
    canvas.dataset.cells = String(values.length);
    canvas.dataset.red = String(values.filter(function (v) { return v >= scale.problem; }).length);
  }

  /* The cell under the pointer, or the worst within NEAR_PX of it (a cell of a day on a phone is a pixel wide):
     its volume, time, value and step; or null. */
  function cellAt(canvas, event) {
    const found = canvas._heatmap;
    if (!found || !found.data.times.length) return null;
    const box = canvas.getBoundingClientRect();
    const data = found.data;
    const start = Date.parse(data.start), end = Date.parse(data.end);
    const px = event.clientX - box.left, py = event.clientY - box.top;
    const time = function (x) { return start + ((x - LABEL) / (box.width - LABEL)) * (end - start); };
    const from = time(px - NEAR_PX), to = time(px + NEAR_PX), step = data.resolution_s * 1000;
    const r = Math.floor((py - 2) / ROW);
    if (px < LABEL || r < 0 || r >= data.volumes.length) return null;
    let best = -1;
    data.times.forEach(function (t, c) {
      const v = data.values[r][c];
      if (v === null || t + step <= from || t > to) return;
      if (best < 0 || v > data.values[r][best]) best = c;
    });
    if (best < 0) return null;
    return { volume: data.volumes[r], time: data.times[best], value: data.values[r][best], step: data.resolution_s };
  }

  /* A line under the pointer saying the cell's volume, latency and time. */
  function hover(canvas, event) {
    const figure = canvas.closest("figure.heatmap");
    let tip = figure.querySelector(".heatmap-tip");
    const cell = cellAt(canvas, event);
    if (!cell || cell.value === null) { if (tip) tip.hidden = true; return; }
    if (!tip) {
      tip = document.createElement("div");
      tip.className = "heatmap-tip";
      figure.append(tip);
    }
    tip.textContent = cell.volume + " · " + F.value(cell.value, "ms") + " · " + F.dateTime(cell.time);
    tip.hidden = false;
    const home = figure.getBoundingClientRect();
    const left = event.clientX - home.left + 12;
    tip.style.left = Math.max(0, Math.min(left, home.width - tip.offsetWidth - 4)) + "px";
    tip.style.top = (event.clientY - home.top + 14) + "px";
    canvas.dataset.hover = tip.textContent;
  }

  /* The path page of `volume` around a moment (ms) of `step` seconds: what the heatmap's cells and the volume
     latency graphs open on a click. */
  function openPath(url, volume, time, step) {
    const pad = Math.max(1800, 10 * step) * 1000;
    const end = Math.min(Date.now(), time + step * 1000 + pad);
    const query = new URLSearchParams({
      volume: volume,
      start: new Date(time - pad).toISOString(),
      end: new Date(end).toISOString(),
      mark_start: String(time),
      mark_end: String(time + step * 1000),
    });
    window.location.assign(url + "?" + query.toString());
  }
  window.MonitorPath = { open: openPath };

  window.MonitorHeatmap = { load: load, colour: colour };
  document.addEventListener("change", function (event) {
    if (event.target.matches("select.heatmap-field")) load(event.target.closest("figure.heatmap"));
  });
  document.addEventListener("click", function (event) {
    const canvas = event.target.closest && event.target.closest("figure.heatmap canvas");
    if (!canvas) return;
    const figure = canvas.closest("figure.heatmap");
    const cell = cellAt(canvas, event);
    if (cell && cell.value !== null && figure.dataset.pathUrl) openPath(figure.dataset.pathUrl, cell.volume, cell.time, cell.step);
  });
  /* A new width: drawn again at it (the data is kept). */
  let resizing = null;
  window.addEventListener("resize", function () {
    clearTimeout(resizing);
    resizing = setTimeout(function () {
      document.querySelectorAll("figure.heatmap canvas").forEach(function (c) { if (c._heatmap) paint(c, c._heatmap.data, c._heatmap.scale); });
    }, 150);
  });
  document.addEventListener("mousemove", function (event) {
    const canvas = event.target.closest && event.target.closest("figure.heatmap canvas");
    if (canvas) hover(canvas, event);
    else document.querySelectorAll(".heatmap-tip").forEach(function (tip) { tip.hidden = true; });
  });
})();
