/* The volume latency heatmap: one row per volume, one column per interval, coloured on an absolute scale (green
   below the device's warning level, amber up to its problem level, red from it; VMware's 20 / 50 ms by default).
   A click on a cell opens the iSCSI path page for that volume around that moment. */
(function () {
  "use strict";
  const GREEN = "rgb(46, 157, 58)", AMBER = "rgb(240, 165, 0)", RED = "rgb(200, 40, 40)";
  const LABEL = 120, ROW = 16;

  function colour(ms, warning, problem) {
    if (ms >= problem) return RED;
    if (ms >= warning) return AMBER;
    return GREEN;
  }

  function levels(figure) {
    return { warning: parseFloat(figure.dataset.warningMs) || 20, problem: parseFloat(figure.dataset.problemMs) || 50 };
  }

  async function load(figure) {
    const canvas = figure.querySelector("canvas");
    const status = figure.querySelector(".graph-status");
    const legend = figure.querySelector(".heatmap-legend");
    const scale = levels(figure);
    if (legend) legend.textContent = "green below " + scale.warning + " ms, amber to " + scale.problem + " ms, red from " + scale.problem + " ms";
    const params = window.MonitorRange.params();
    params.set("field", figure.querySelector("select.heatmap-field").value);
    params.set("points", String(Math.min(400, canvas.width - LABEL)));
    try {
      const response = await fetch(figure.dataset.heatmapUrl + "?" + params.toString(), { credentials: "same-origin" });
      const data = await response.json();
      if (!response.ok) throw new Error(data.error || response.statusText);
      paint(canvas, data, scale);
      status.textContent = data.volumes.length ? "each cell: the worst sample of its " + data.resolution_s + " s; highest " + data.max.toFixed(2) + " ms; click a cell for the iSCSI path at that moment" : "No volume latency in this range.";
    } catch (err) {
      status.textContent = "Could not load the heatmap: " + err.message;
    }
  }

  function paint(canvas, data, scale) {
    const ctx = canvas.getContext("2d");
    const rows = data.volumes.length;
    canvas.height = Math.max(40, rows * ROW + 4);
    ctx.clearRect(0, 0, canvas.width, canvas.height);
    const values = data.values.flat().filter(function (v) { return v !== null; });
    data.max = values.length ? Math.max.apply(null, values) : 0;
    const cols = data.times.length;
    const cellW = cols ? (canvas.width - LABEL) / cols : 0;
    ctx.font = "11px sans-serif";
    data.volumes.forEach(function (volume, r) {
      ctx.fillStyle = "#1d2330";
      ctx.fillText(volume.slice(0, 18), 2, r * ROW + 13); // canvas text: never parsed as markup
      data.values[r].forEach(function (v, c) {
        if (v === null) return;
        ctx.fillStyle = colour(v, scale.warning, scale.problem);
        ctx.fillRect(LABEL + c * cellW, r * ROW + 2, Math.ceil(cellW), ROW - 2);
      });
    });
    canvas._heatmap = { data: data, cellW: cellW };
    canvas.dataset.rows = String(rows);
    canvas.dataset.cells = String(values.length);
    canvas.dataset.red = String(values.filter(function (v) { return v >= scale.problem; }).length);
  }

  /* The cell under a click: its volume and time column, or null. */
  function cellAt(canvas, event) {
    const found = canvas._heatmap;
    if (!found || !found.cellW) return null;
    const box = canvas.getBoundingClientRect();
    const x = (event.clientX - box.left) * (canvas.width / box.width);
    const y = (event.clientY - box.top) * (canvas.height / box.height);
    const r = Math.floor((y - 2) / ROW), c = Math.floor((x - LABEL) / found.cellW);
    if (r < 0 || r >= found.data.volumes.length || c < 0 || c >= found.data.times.length) return null;
    return { volume: found.data.volumes[r], time: found.data.times[c], value: found.data.values[r][c], step: found.data.resolution_s };
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
})();
