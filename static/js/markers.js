/* Events as markers on every graph (chartjs-plugin-annotation): a line at each event of the graph's device that
   names no port, and of its port on a port's graph (an aggregate graph: its members' devices and ports), coloured by
   severity, its text on hover; events within GROUP_PX pixels of each other are one line, coloured by the most severe,
   whose label counts and lists them; maintenance windows as shaded boxes.
   graphs.js says when a chart is drawn ("monitor:chartdrawn"); the page's events are fetched once per range, in one
   request naming every graph of the page, after the first chart is drawn, so markers never delay a chart (the
   plugin must be registered before the charts are made: _scripts.html loads it with Chart.js). `events=0` in the
   URL (the "Events" box of the range bar) hides them. */
(function () {
  "use strict";

  const script = document.currentScript;
  const MARKERS_URL = script.dataset.markersUrl;
  const LIVE_REFETCH_MS = 60 * 1000; // a live range moves on: its events are asked for again at most this often
  const GROUP_PX = 4; // events closer than this on the axis would hide each other's line and label: one marker
  const GROUP_LISTED = 8; // a group's label lists this many events, then "+N more"
  const charts = new Map(); // figure -> the chart last drawn in it
  let answer = null; // {key, at, graphs, events, truncated}
  let loading = null; // Promise of the answer being fetched

  function shown() { return new URLSearchParams(window.location.search).get("events") !== "0"; }

  function rangeKey() { return window.MonitorRange ? window.MonitorRange.params().toString() : ""; }

  /* One request for every graph of the page: {graphs: {id: {device, port}}, aggregates: {id: {members}}, events} */
  function fetchEvents() {
    const key = rangeKey();
    const stale = answer && window.MonitorRange.isLive() && Date.now() - answer.at > LIVE_REFETCH_MS;
    if (answer && answer.key === key && !stale) return Promise.resolve(answer);
    if (loading && loading.key === key) return loading;
    const params = window.MonitorRange.params();
    document.querySelectorAll("figure.graph[data-graph-id]").forEach(function (f) { params.append("graph", f.dataset.graphId); });
    document.querySelectorAll("figure.graph[data-aggregate-id]").forEach(function (f) { params.append("aggregate", f.dataset.aggregateId); });
    const request = fetch(MARKERS_URL + "?" + params.toString(), { credentials: "same-origin" })
      .then(function (response) { return response.ok ? response.json() : Promise.reject(new Error(response.statusText)); })
      .then(function (body) {
        answer = Object.assign(body, { key: key, at: Date.now() });
        document.body.dataset.eventMarkers = String(body.events.length);
        return answer;
      });
    loading = request;
    loading.key = key;
    return request.finally(function () { if (loading === request) loading = null; });
  }

  /* A graph shows its device's device-wide events and its port's; an aggregate what each member would. */
  function eventsOf(figure, found) {
    const targets = figure.dataset.graphId
      ? [found.graphs[figure.dataset.graphId]]
      : ((found.aggregates || {})[figure.dataset.aggregateId] || { members: [] }).members;
    return found.events.filter(function (e) {
      return targets.some(function (t) {
        if (!t || e.device !== t.device) return false;
        if (e.port === "") return true;
        return t.port !== null && (e.port === t.port || (e.ports || []).indexOf(t.port) >= 0);
      });
    });
  }

  function when(t) { return new Date(t).toLocaleString(); }

  function box(event) {
    return { type: "box", xMin: event.t, xMax: event.end, backgroundColor: event.colour + "22", borderWidth: 0,
      drawTime: "beforeDatasetsDraw", label: { display: false, content: event.text, position: "start" },
      enter: showLabel, leave: hideLabel };
  }

  /* One line for events this close together; the most severe (lowest number) colours it. */
  function line(group) {
    const worst = group.reduce(function (a, e) { return e.severity < a.severity ? e : a; }, group[0]);
    const content = group.length === 1
      ? [worst.severity_name + " · " + when(worst.t), worst.text]
      : [group.length + " events · " + when(group[0].t)].concat(
        group.slice(0, GROUP_LISTED).map(function (e) { return e.severity_name + " · " + e.text; }),
        group.length > GROUP_LISTED ? ["+" + (group.length - GROUP_LISTED) + " more"] : []);
    return {
      type: "line", xMin: group[0].t, xMax: group[0].t, borderColor: worst.colour,
      borderWidth: worst.severity <= 4 || group.length > 1 ? 2 : 1, borderDash: worst.severity >= 6 ? [3, 3] : [],
      label: { display: false, content: content, position: "start", backgroundColor: "rgba(30, 30, 30, 0.85)",
        color: "#fff", font: { size: 11 }, z: 10 },
      enter: showLabel, leave: hideLabel,
    };
  }

  /* Events sorted by time, in runs no wider than GROUP_PX on this chart's axis. */
  function groups(events, chart, scale) {
    const width = (chart.chartArea && chart.chartArea.width) || chart.width || 1;
    const near = GROUP_PX * (scale.max - scale.min) / Math.max(width, 1);
    const out = [];
    events.slice().sort(function (a, b) { return a.t - b.t || a.id - b.id; }).forEach(function (e) {
      const last = out[out.length - 1];
      if (last && e.t - last[0].t <= near) last.push(e); else out.push([e]);
    });
    return out;
  }

  function showLabel(ctx) { ctx.element.label.options.display = true; return true; }
  function hideLabel(ctx) { ctx.element.label.options.display = false; return true; }

  function apply(figure, chart, found) {
    if (charts.get(figure) !== chart || !chart.canvas) return; // redrawn meanwhile
    const scale = chart.options.scales.x;
    const mine = found ? eventsOf(figure, found).filter(function (e) {
      return (e.end || e.t) >= scale.min && e.t <= scale.max;
    }) : [];
    figure.dataset.markers = String(mine.length);
    const had = chart.options.plugins.annotation && Object.keys(chart.options.plugins.annotation.annotations || {}).length;
    if (!mine.length && !had) return; // nothing to draw or take away: no redraw
    const annotations = {};
    mine.filter(function (e) { return e.end; }).forEach(function (e) { annotations["event" + e.id] = box(e); });
    const runs = groups(mine.filter(function (e) { return !e.end; }), chart, scale);
    runs.forEach(function (run) { annotations["event" + run[0].id] = line(run); });
    figure.dataset.markerLines = String(runs.length);
    chart.options.plugins.annotation = { annotations: annotations };
    chart.update("none");
  }

  function mark(figure, chart) {
    if (!shown()) { figure.dataset.markers = "0"; return; }
    fetchEvents()
      .then(function (found) { apply(figure, chart, found); })
      .catch(function (err) { figure.dataset.markers = "error"; figure.dataset.markersError = err.message; });
  }

  function markAll() {
    charts.forEach(function (chart, figure) {
      if (shown()) mark(figure, chart);
      else if (chart.options.plugins.annotation) apply(figure, chart, null);
    });
  }

  document.addEventListener("monitor:chartdrawn", function (e) {
    charts.set(e.target, e.detail.chart);
    mark(e.target, e.detail.chart);
  });

  /* The range bar's "Events" box: the choice lives in the URL (events=0), kept by links and the custom range. */
  function setUpToggle() {
    const box = document.getElementById("events-toggle");
    const hidden = document.getElementById("range-events");
    if (hidden) hidden.disabled = shown();
    if (!box) return;
    box.checked = shown();
    box.addEventListener("change", function () {
      const url = new URLSearchParams(window.location.search);
      if (box.checked) url.delete("events"); else url.set("events", "0");
      const query = url.toString();
      window.history.replaceState(null, "", window.location.pathname + (query ? "?" + query : ""));
      if (hidden) hidden.disabled = box.checked;
      if (window.MonitorRange && window.MonitorRange.relink) window.MonitorRange.relink();
      markAll();
    });
  }

  /* The events pages are drawn by the server: a new range (zoom, pan) reloads them. */
  function setUpEventPages() {
    if (!document.getElementById("events-table") && !document.getElementById("events-range-error")) return;
    document.addEventListener("monitor:rangechange", function () { window.location.reload(); });
  }

  document.addEventListener("DOMContentLoaded", function () { setUpToggle(); setUpEventPages(); });
})();
