/* One way to write numbers, units and dates on every page (docs/ui.md): legends, tables, tooltips and axes all
   call window.MonitorFormat, loaded before the page's other scripts by base.html.
   - value(v, unit): three significant figures with an SI prefix ("480 Mbit/s", "1.54 kB", "2.10k IOPS", "65.0 ms");
   - axis(unit): a Chart.js tick callback whose labels share one prefix and as many decimals as the step needs, so
     that no two ticks read the same ("0.020, 0.015, 0.010 /s", never "0.02, 0.01, 0.01");
   - dateTime(ms), range(start, end): local time as "2026-11-28 04:42 CET", the time zone always shown;
   - timeAxis(start, end): a Chart.js time axis over exactly that range, its ticks in the same format. */
(function () {
  "use strict";

  const PREFIXES = ["", "k", "M", "G", "T", "P"];
  const GLUED = ["bit/s", "B", "B/s", "pkt/s"]; // symbols a prefix joins ("Mbit/s"); others take it on the number
  const FIXED = ["%", "°C", "s"]; // never prefixed

  function missing(v) { return v === null || v === undefined || typeof v !== "number" || !Number.isFinite(v); }

  /* [divisor, unit as written] for numbers of this size. */
  function scale(size, unit) {
    if (FIXED.indexOf(unit) >= 0) return [1, unit];
    if (unit === "ms") return size >= 1000 ? [1000, "s"] : [1, "ms"];
    let i = 0;
    while (size >= Math.pow(1000, i + 1) && i < PREFIXES.length - 1) i += 1;
    return [Math.pow(1000, i), GLUED.indexOf(unit) >= 0 ? PREFIXES[i] + unit : PREFIXES[i] + (unit && PREFIXES[i] ? " " : "") + unit];
  }

  function join(number, unit) {
    if (!unit) return number;
    return /^[kMGTP]( |$)/.test(unit) ? number + unit : number + " " + unit; // "2.10k IOPS", "1.20k", "480 Mbit/s"
  }

  /* Three significant figures (a rounding that carries to 1000 takes the next prefix). */
  function value(v, unit) {
    if (missing(v)) return "–";
    unit = unit || "";
    let [div, shown] = scale(Math.abs(v), unit);
    let size = Math.abs(v) / div;
    if (Number(size.toPrecision(3)) >= 1000 && FIXED.indexOf(unit) < 0) {
      [div, shown] = scale(Math.abs(v) * 1.001, unit);
      size = Math.abs(v) / div;
    }
    const rounded = Number(size.toPrecision(3));
    const text = size === 0 ? "0" : rounded >= 100 ? size.toFixed(0) : rounded >= 1 ? rounded.toPrecision(3) : String(rounded);
    return join((v < 0 ? "-" : "") + text, shown);
  }

  /* Decimals that write `step` exactly (0.25 -> 2, 0.005 -> 3, 20 -> 0), at most 6. */
  function decimals(step) {
    for (let d = 0; d < 6; d += 1) {
      const scaled = step * Math.pow(10, d);
      if (Math.abs(scaled - Math.round(scaled)) < 1e-6 * Math.max(1, scaled)) return d;
    }
    return 6;
  }

  /* A Chart.js tick callback: each label with its own prefix and the decimals the axis's step needs in it, so two
     ticks never read the same ("800 Mbit/s", "1.0 Gbit/s"); `absolute` writes -5 as 5 (outbound below the axis). */
  function axis(unit, absolute) {
    return function (tick, index, ticks) {
      const step = ticks && ticks.length > 1 ? Math.abs(ticks[1].value - ticks[0].value) : 1;
      const [div, shown] = scale(Math.abs(tick), unit || "");
      const number = (absolute ? Math.abs(tick) : tick) / div;
      return join(number.toFixed(decimals(step / div)), shown);
    };
  }

  /* ---- dates: local time, the zone named ---- */

  function pad(n) { return String(n).padStart(2, "0"); }

  function zone(ms) {
    try {
      const part = new Intl.DateTimeFormat("en-GB", { timeZoneName: "short" }).formatToParts(new Date(ms)).find(function (p) { return p.type === "timeZoneName"; });
      return part ? part.value : "";
    } catch (e) { return ""; }
  }

  function day(ms) { const d = new Date(ms); return d.getFullYear() + "-" + pad(d.getMonth() + 1) + "-" + pad(d.getDate()); }

  function clock(ms, seconds) {
    const d = new Date(ms);
    return pad(d.getHours()) + ":" + pad(d.getMinutes()) + (seconds ? ":" + pad(d.getSeconds()) : "");
  }

  /* "2026-11-28 04:42 CET" (with seconds: "04:42:44"). */
  function dateTime(ms, seconds) {
    if (missing(ms)) return "–";
    return (day(ms) + " " + clock(ms, seconds) + " " + zone(ms)).trim();
  }

  /* "2026-11-28 03:46 → 2026-11-29 03:46 CET"; the same day once: "2026-11-28 03:46 → 05:46 CET". */
  function range(start, end) {
    if (missing(start) || missing(end)) return "–";
    const to = day(start) === day(end) ? clock(end) : day(end) + " " + clock(end);
    return (day(start) + " " + clock(start) + " → " + to + " " + zone(end)).trim();
  }

  /* Ticks of a time axis: a unit that leaves room between labels, written as the dates above are. */
  function timeUnit(spanMs) {
    const hour = 3600000;
    if (spanMs <= 2 * hour) return "minute";
    if (spanMs <= 3 * 86400000) return "hour";
    if (spanMs <= 90 * 86400000) return "day";
    return "month";
  }

  const TICK = {
    minute: function (ms) { return clock(ms); },
    hour: function (ms) { const d = new Date(ms); return d.getHours() === 0 && d.getMinutes() === 0 ? day(ms).slice(5) : clock(ms); },
    day: function (ms) { return day(ms).slice(5); },
    month: function (ms) { return day(ms).slice(0, 7); },
  };

  /* A Chart.js time axis over [start, end] (ms): the whole range, readable ticks, never rotated. */
  function timeAxis(start, end) {
    const unit = timeUnit(end - start);
    return {
      type: "time",
      min: start,
      max: end,
      time: { unit: unit },
      ticks: { maxRotation: 0, autoSkip: true, autoSkipPadding: 16, sampleSize: 8, callback: function (v) { return TICK[unit](v); } },
    };
  }

  /* A time axis's label for `ms` on an axis of `spanMs` (for axes not drawn by Chart.js: the heatmap's). */
  function timeTick(ms, spanMs) { return TICK[timeUnit(spanMs)](ms); }

  /* The tooltip's title: the moment hovered, as dateTime writes it. */
  function tooltipTitle(items) { return items.length ? dateTime(items[0].parsed.x, true) : ""; }

  window.MonitorFormat = { value: value, axis: axis, dateTime: dateTime, range: range, zone: zone, timeAxis: timeAxis, timeTick: timeTick, tooltipTitle: tooltipTitle };
})();
