/* The page's time range: read from and written to the URL, shared by every graph and link on the page. */
(function () {
  "use strict";

  const PRESETS = { "1h": 3600, "6h": 21600, "1d": 86400, "1w": 604800, "1m": 2678400, "1y": 31622400 };
  const UNITS = { s: 1, m: 60, h: 3600, d: 86400, w: 604800, M: 2678400, y: 31622400 };
  const MIN_SPAN_MS = 60 * 1000;

  function query() { return new URLSearchParams(window.location.search); }

  /* The range part of the URL: {range} or {start, end}. */
  function current() {
    const url = query();
    if (url.get("start")) return { start: url.get("start"), end: url.get("end") || "now" };
    return { range: PRESETS[url.get("range")] ? url.get("range") : "1d" };
  }

  function params() {
    const out = new URLSearchParams();
    const now = current();
    Object.keys(now).forEach(function (key) { out.set(key, now[key]); });
    return out;
  }

  function instant(text, nowMs) {
    const rel = /^now(?:-(\d{1,6})([smhdwMy]))?$/.exec(text);
    if (rel) return rel[1] ? nowMs - Number(rel[1]) * UNITS[rel[2]] * 1000 : nowMs;
    if (/^\d{9,11}(\.\d+)?$/.test(text)) return Number(text) * 1000;
    const iso = /[zZ]|[+-]\d\d:?\d\d$/.test(text) || !/T|\d\d:\d\d/.test(text) ? text : text + "Z";
    const value = Date.parse(iso.length === 10 ? iso + "T00:00:00Z" : iso);
    return Number.isNaN(value) ? null : value;
  }

  /* The window in epoch ms, resolved against the browser's clock. */
  function bounds() {
    const now = Date.now();
    const range = current();
    if (range.range) return { start: now - PRESETS[range.range] * 1000, end: now };
    return { start: instant(range.start, now), end: instant(range.end, now) };
  }

  function iso(ms) { return new Date(Math.round(ms / 1000) * 1000).toISOString().replace(".000Z", "Z"); }

  /* Move to an absolute window: URL first (shareable), then every listener re-fetches. */
  function set(startMs, endMs) {
    const now = Date.now();
    endMs = Math.min(endMs, now);
    if (endMs - startMs < MIN_SPAN_MS) startMs = endMs - MIN_SPAN_MS;
    const url = query();
    url.delete("range");
    url.set("start", iso(startMs));
    url.set("end", iso(endMs));
    window.history.pushState(null, "", window.location.pathname + "?" + url.toString());
    changed();
  }

  function zoomOut() {
    const b = bounds();
    const span = b.end - b.start;
    let end = b.end + span / 2;
    if (end > Date.now()) end = Date.now();
    set(end - span * 2, end);
  }

  function pan(direction) {
    const b = bounds();
    const shift = ((b.end - b.start) / 2) * direction;
    const end = Math.min(b.end + shift, Date.now());
    set(end - (b.end - b.start), end);
  }

  function keepRangeLinks() {
    const range = params().toString();
    document.querySelectorAll("a.keep-range").forEach(function (a) {
      const url = new URL(a.getAttribute("href"), window.location.href);
      ["range", "start", "end"].forEach(function (key) { url.searchParams.delete(key); });
      new URLSearchParams(range).forEach(function (value, key) { url.searchParams.set(key, value); });
      if (query().get("events") === "0") url.searchParams.set("events", "0"); else url.searchParams.delete("events");
      a.setAttribute("href", url.pathname + "?" + url.searchParams.toString() + url.hash);
    });
    document.querySelectorAll("a.range[data-range]").forEach(function (a) {
      const url = query();
      ["range", "start", "end"].forEach(function (key) { url.delete(key); });
      url.set("range", a.dataset.range);
      a.setAttribute("href", "?" + url.toString());
    });
  }

  function showRange() {
    const range = current();
    document.querySelectorAll("a.range").forEach(function (a) {
      a.classList.toggle("active", a.dataset.range === range.range);
    });
    const label = document.getElementById("range-label");
    if (label) {
      const b = bounds();
      const said = range.range ? "last " + range.range : /^now/.test(range.start) ? range.start + " → " + range.end : "";
      const shown = window.MonitorFormat.range(b.start, b.end); // never the URL's "2026-11-28T03:46:48Z"
      label.textContent = said ? said + " (" + shown + ")" : shown;
    }
    const start = document.getElementById("range-start");
    const end = document.getElementById("range-end");
    if (start && end) {
      start.value = range.start || "now-" + range.range;
      end.value = range.end || "now";
    }
  }

  function changed() {
    showRange();
    keepRangeLinks();
    document.dispatchEvent(new CustomEvent("monitor:rangechange"));
  }

  function bind(id, handler) {
    const el = document.getElementById(id);
    if (el) el.addEventListener("click", handler);
  }

  window.MonitorRange = { current: current, params: params, bounds: bounds, set: set, isLive: function () { return !!current().range; }, relink: keepRangeLinks };

  document.addEventListener("DOMContentLoaded", function () {
    showRange();
    keepRangeLinks();
    bind("zoom-out", zoomOut);
    bind("pan-back", function () { pan(-1); });
    bind("pan-forward", function () { pan(1); });
    window.addEventListener("popstate", changed);
  });
})();
