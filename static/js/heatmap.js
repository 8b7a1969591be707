/* The volume latency heatmap: one row per volume, one column per interval, coloured by mean latency. */
(function () {
  "use strict";

  function colour(ratio) {
    const hue = 120 - 120 * Math.max(0, Math.min(1, ratio)); // green -> red
    return "hsl(" + hue + ", 75%, 48%)";
  }

  async function load(figure) {
    const canvas = figure.querySelector("canvas");
    const status = figure.querySelector(".graph-status");
    const params = window.MonitorRange.params();
    params.set("field", figure.querySelector("select.heatmap-field").value);
    params.set("points", String(Math.min(400, canvas.width - 120)));
    try {
      const response = await fetch(figure.dataset.heatmapUrl + "?" + params.toString(), { credentials: "same-origin" });
      const data = await response.json();
      if (!response.ok) throw new Error(data.error || response.statusText);
      paint(canvas, data);
      status.textContent = data.volumes.length ? "max " + data.max.toFixed(2) + " ms (red)" : "No volume latency in this range.";
    } catch (err) {
      status.textContent = "Could not load the heatmap: " + err.message;
    }
  }

  function paint(canvas, data) {
    const ctx = canvas.getContext("2d");
    const label = 120;
    const rows = data.volumes.length;
    canvas.height = Math.max(40, rows * 16 + 4);
    ctx.clearRect(0, 0, canvas.width, canvas.height);
    const values = data.values.flat().filter(function (v) { return v !== null; });
    data.max = values.length ? Math.max.apply(null, values) : 0;
    const cols = data.times.length;
    const cellW = cols ? (canvas.width - label) / cols : 0;
    ctx.font = "11px sans-serif";
    ctx.fillStyle = "#1d2330";
    data.volumes.forEach(function (volume, r) {
      ctx.fillStyle = "#1d2330";
      ctx.fillText(volume.slice(0, 18), 2, r * 16 + 13); // canvas text: never parsed as markup
      data.values[r].forEach(function (v, c) {
        if (v === null) return;
        ctx.fillStyle = colour(data.max ? v / data.max : 0);
        ctx.fillRect(label + c * cellW, r * 16 + 2, Math.ceil(cellW), 14);
      });
    });
    canvas.dataset.rows = String(rows);
    canvas.dataset.cells = String(values.length);
  }

  window.MonitorHeatmap = { load: load };
  document.addEventListener("change", function (event) {
    if (event.target.matches("select.heatmap-field")) load(event.target.closest("figure.heatmap"));
  });
})();
