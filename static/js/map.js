/* The live map: the devices a reader may see and the links between them (GET /api/map/ at the page's time range),
   laid out by dagre through cytoscape. A link's colour is its busier direction's peak utilisation (the levels the
   answer names), its width its speed; a gone link is dashed grey, one with discards or errors carries a mark, one
   whose ports had events in the range says how many.
   Clicking a link shows both ports' figures and links to their traffic graphs at the range; clicking a device opens
   its page. A device dragged stays where it was put, for this user and this map, on any browser (POST
   /api/map/places/, with the page's CSRF token).
   Device strings only ever reach text nodes and the canvas, never HTML. */
(function () {
  "use strict";
  const F = window.MonitorFormat; // static/js/format.js
  const COLOURS = { ok: "rgb(46, 157, 58)", warning: "rgb(240, 165, 0)", problem: "rgb(200, 40, 40)", unknown: "#98a2b3" };
  const GONE = "#c3c9d3";
  const FIT_ZOOM = 1.5;
  const WIDE = 4; // a layered drawing this many times wider than high is wrapped into rings
  const RING_GAP = 140; // between two rings
  const NODE_ROOM = 75; // along a ring, per device
  const SHAPES = { switch: "round-rectangle", array: "barrel", other: "ellipse" };
  const STATUS = { up: "#2e9d3a", down: "#c0392b", waiting: "#98a2b3", disabled: "#d0d5dd" };
  const section = document.getElementById("map");
  const detail = document.getElementById("map-detail");
  const status = document.getElementById("map-status");
  let cy = null;
  let chosen = null; // the id of the edge whose figures are shown
  let answer = null;

  if (window.cytoscapeDagre) window.cytoscape.use(window.cytoscapeDagre);

  /* A link's width in CSS pixels by its speed: 2 at 1 Gbit/s and below, up to 8 at 100 Gbit/s and more. */
  function width(speed) {
    if (!speed) return 1.5;
    return Math.max(2, Math.min(8, 2 + 3 * Math.log10(speed / 1e9)));
  }

  /* Where this user put devices on this map, as the server keeps them (GET /api/map/ answers them). */
  function saved() {
    return (answer && answer.places) || {};
  }

  function remember(node) {
    const at = node.position();
    const place = { device: Number(node.id()), x: Math.round(at.x), y: Math.round(at.y) };
    answer.places[node.id()] = { x: place.x, y: place.y };
    send("POST", { tree: section.dataset.tree ? Number(section.dataset.tree) : null, places: [place] });
  }

  /* POST or DELETE the user's places; a failure is said in the status line, the drawing stays as it is. */
  function send(method, body) {
    const url = section.dataset.placesUrl + (method === "DELETE" && section.dataset.tree ? "?tree=" + section.dataset.tree : "");
    const options = { method: method, credentials: "same-origin", headers: { "X-CSRFToken": document.body.dataset.csrf || "" } };
    if (body) {
      options.headers["Content-Type"] = "application/json";
      options.body = JSON.stringify(body);
    }
    return fetch(url, options).then(function (response) {
      if (!response.ok) status.textContent = "Could not keep where the devices are: " + response.status + " " + response.statusText;
    }).catch(function (err) {
      status.textContent = "Could not keep where the devices are: " + err.message;
    });
  }

  function elements(data) {
    const nodes = data.nodes.map(function (n) {
      return { group: "nodes", data: { id: n.id, name: n.name, kind: n.kind, url: n.url, border: STATUS[n.status] || STATUS.waiting, shape: SHAPES[n.kind] || "ellipse" } };
    });
    const edges = data.edges.map(function (e) {
      const faulty = (e.discards_per_s || 0) > 0 || (e.errors_per_s || 0) > 0;
      const events = e.a_events + e.b_events;
      const mark = [faulty ? "⚠" : "", events ? events + (events === 1 ? " event" : " events") : ""].join(" ").trim();
      return {
        group: "edges",
        classes: e.gone ? "gone" : "",
        data: { id: "link-" + e.id, source: e.source, target: e.target, colour: e.gone ? GONE : COLOURS[e.level] || COLOURS.unknown, width: width(e.speed_bps), mark: mark },
      };
    });
    return nodes.concat(edges);
  }

  function style() {
    return [
      { selector: "node", style: { label: "data(name)", shape: "data(shape)", "background-color": "#eef2f8", "border-width": 3, "border-color": "data(border)", width: 46, height: 30, "font-size": 11, "text-valign": "bottom", "text-margin-y": 4, "min-zoomed-font-size": 7 } },
      { selector: "edge", style: { "line-color": "data(colour)", width: "data(width)", "curve-style": "bezier", label: "data(mark)", "font-size": 14, color: "rgb(200, 40, 40)", "text-background-color": "#fff", "text-background-opacity": 1, "min-zoomed-font-size": 6 } },
      { selector: "edge.gone", style: { "line-style": "dashed", "line-dash-pattern": [6, 4] } },
      { selector: "edge:selected", style: { "overlay-color": "#1f5fbf", "overlay-opacity": 0.25, "overlay-padding": 4 } },
      { selector: "node:selected", style: { "overlay-color": "#1f5fbf", "overlay-opacity": 0.2 } },
    ];
  }

  /* A layered drawing of hundreds of devices is one long row a layer: wider than WIDE times its height, each layer
     becomes a ring around the one above it, in the order dagre gave it (so links cross about as little). */
  function wrap(nodes) {
    const box = nodes.boundingBox();
    if (box.w < WIDE * Math.max(box.h, 1)) return;
    const layers = new Map();
    nodes.forEach(function (n) {
      const y = Math.round(n.position("y"));
      if (!layers.has(y)) layers.set(y, []);
      layers.get(y).push(n);
    });
    let radius = -RING_GAP;
    Array.from(layers.keys()).sort(function (p, q) { return p - q; }).forEach(function (y) {
      const layer = layers.get(y).sort(function (p, q) { return p.position("x") - q.position("x"); });
      radius = layer.length === 1 && radius < 0 ? 0 : Math.max(radius + RING_GAP, (layer.length * NODE_ROOM) / (2 * Math.PI));
      layer.forEach(function (n, k) {
        const angle = (2 * Math.PI * k) / layer.length - Math.PI / 2;
        n.position({ x: radius * Math.cos(angle), y: radius * Math.sin(angle) });
      });
    });
  }

  function layout(all) {
    const places = all ? {} : saved();
    const free = cy.nodes().filter(function (n) { return !places[n.id()]; });
    const run = function () {
      wrap(free);
      cy.nodes().forEach(function (n) { if (places[n.id()]) n.position(places[n.id()]); });
      cy.fit(undefined, 30);
      if (cy.zoom() > FIT_ZOOM) { cy.zoom(FIT_ZOOM); cy.center(); } // a few devices are not drawn a screen wide
    };
    if (free.length) {
      cy.layout({ name: window.cytoscapeDagre ? "dagre" : "grid", rankDir: "TB", ranker: "tight-tree", nodeSep: 30, rankSep: 80, animate: false, stop: run }).run();
    } else {
      run();
    }
  }

  function text(tag, value, cls) {
    const el = document.createElement(tag);
    el.textContent = value === null || value === undefined ? "–" : String(value); // device strings: text only
    if (cls) el.className = cls;
    return el;
  }

  function graphLink(url, label) {
    if (!url) return text("span", label + ": no traffic graph", "muted");
    const a = text("a", label);
    a.href = url + "?" + window.MonitorRange.params().toString();
    a.className = "map-graph";
    return a;
  }

  function eventsLink(count, url, label) {
    const a = text("a", count + " on " + label);
    a.href = url + "&" + window.MonitorRange.params().toString();
    return a;
  }

  function figure(direction) {
    return F.value(direction.mean_bps, "bit/s") + " (" + F.value(direction.mean_pct, "%") + ")";
  }

  function peak(direction) {
    return F.value(direction.peak_bps, "bit/s") + " (" + F.value(direction.peak_pct, "%") + ")";
  }

  /* Both ports of a link, both directions' mean and peak, its marks and its ports' graphs at the page's range. */
  function show(edge) {
    const names = {};
    answer.nodes.forEach(function (n) { names[n.id] = n.name; });
    const a = names[edge.source] + " " + edge.a_port, b = names[edge.target] + " " + edge.b_port;
    const table = document.createElement("table");
    const head = document.createElement("tr");
    head.append(text("th", ""), text("th", "mean"), text("th", "peak"));
    const ab = document.createElement("tr");
    ab.className = "a-to-b";
    ab.append(text("td", a + " → " + b), text("td", figure(edge.a_to_b)), text("td", peak(edge.a_to_b)));
    const ba = document.createElement("tr");
    ba.className = "b-to-a";
    ba.append(text("td", b + " → " + a), text("td", figure(edge.b_to_a)), text("td", peak(edge.b_to_a)));
    table.append(head, ab, ba);
    const lines = [
      text("h2", a + " — " + b, "map-link"),
      text("p", "speed " + F.value(edge.speed_bps, "bit/s") + " · learned from " + (edge.via.join(" and ") || "–")),
      table,
      text("p", "discards " + F.value(edge.discards_per_s, "/s") + " · errors " + F.value(edge.errors_per_s, "/s") + " at worst", (edge.discards_per_s || edge.errors_per_s) ? "error map-faults" : "map-faults"),
    ];
    if (edge.gone) lines.push(text("p", "gone: last seen " + F.dateTime(Date.parse(edge.last_seen)), "error map-gone"));
    else lines.push(text("p", "seen since " + F.dateTime(Date.parse(edge.first_seen)) + ", last " + F.dateTime(Date.parse(edge.last_seen)), "muted"));
    if (edge.seen_after_range) lines.push(text("p", "first seen after this range (links are read daily; it may have been there before)", "muted map-later"));
    const events = document.createElement("p");
    events.className = "map-events";
    events.append(text("span", "events on its ports in the range: "), eventsLink(edge.a_events, edge.a_events_url, a), text("span", " · "), eventsLink(edge.b_events, edge.b_events_url, b));
    lines.push(events);
    const graphs = document.createElement("p");
    graphs.append(graphLink(edge.a_graph, a), text("span", " · "), graphLink(edge.b_graph, b));
    lines.push(graphs);
    detail.replaceChildren.apply(detail, lines);
    detail.dataset.edge = String(edge.id);
  }

  function draw(data) {
    answer = data;
    document.getElementById("map-warning").textContent = String(data.levels.warning_pct);
    document.getElementById("map-problem").textContent = String(data.levels.problem_pct);
    const wanted = elements(data);
    const same = cy && cy.elements().length === wanted.length && wanted.every(function (el) { return cy.getElementById(el.data.id).nonempty(); });
    if (same) {
      cy.batch(function () {
        wanted.forEach(function (el) {
          const found = cy.getElementById(el.data.id);
          const changed = Object.assign({}, el.data);
          ["id", "source", "target"].forEach(function (key) { delete changed[key]; }); // fixed for an element's life
          found.data(changed);
          if (el.group === "edges") found.classes(el.classes);
        });
      });
    } else {
      if (cy) cy.destroy();
      cy = window.cytoscape({ container: section, elements: wanted, style: style(), wheelSensitivity: 0.3, minZoom: 0.05, maxZoom: 4, textureOnViewport: true, hideEdgesOnViewport: data.edges.length > 2000 });
      cy.on("tap", "edge", function (evt) { chosen = evt.target.id(); show(byId(chosen)); });
      cy.on("tap", "node", function (evt) { window.location.href = evt.target.data("url") + "?" + window.MonitorRange.params().toString(); });
      cy.on("dragfree", "node", function (evt) { remember(evt.target); });
      layout(false);
    }
    if (chosen && byId(chosen)) show(byId(chosen));
    section.dataset.nodes = String(data.nodes.length);
    section.dataset.edges = String(data.edges.length);
    section.dataset.drawn = String(Date.now());
    const gone = data.edges.filter(function (e) { return e.gone; }).length;
    status.textContent = data.nodes.length + " devices, " + data.edges.length + " links" + (gone ? " (" + gone + " gone)" : "") + (data.edges.length ? "" : ": links are learned daily from LLDP and the iSCSI path") + (data.figures_error ? "; " + data.figures_error : "");
  }

  function byId(edgeId) {
    return answer.edges.find(function (e) { return "link-" + e.id === edgeId; });
  }

  async function load() {
    const params = window.MonitorRange.params();
    if (section.dataset.tree) params.set("tree", section.dataset.tree);
    status.textContent = "loading…";
    try {
      const response = await fetch(section.dataset.apiUrl + "?" + params.toString(), { credentials: "same-origin", headers: { Accept: "application/json" } });
      const data = await response.json();
      if (!response.ok) throw new Error(Object.values(data).join(" ") || response.statusText);
      performance.mark("monitor:map-data");
      draw(data);
      performance.mark("monitor:map-drawn");
    } catch (err) {
      status.textContent = "Could not load the map: " + err.message;
    }
  }

  /* Where an edge's middle is on the page, in CSS pixels (for tests and the benchmark to click it). */
  function edgeAt(linkId) {
    const edge = cy.getElementById("link-" + linkId);
    const box = section.getBoundingClientRect();
    const mid = edge.renderedMidpoint();
    return { x: box.left + mid.x, y: box.top + mid.y };
  }

  /* Where a device is drawn on the page, in CSS pixels. */
  function nodeAt(deviceId) {
    const box = section.getBoundingClientRect();
    const at = cy.getElementById(String(deviceId)).renderedPosition();
    return { x: box.left + at.x, y: box.top + at.y };
  }

  window.MonitorMap = { edgeAt: edgeAt, nodeAt: nodeAt, cy: function () { return cy; } };

  document.addEventListener("DOMContentLoaded", function () {
    const form = document.getElementById("custom-range");
    if (form && section.dataset.tree) { // a range typed in keeps the map to its tree
      const tree = document.createElement("input");
      tree.type = "hidden";
      tree.name = "tree";
      tree.value = section.dataset.tree;
      form.append(tree);
    }
    load();
    document.addEventListener("monitor:rangechange", load);
    document.getElementById("map-relayout").addEventListener("click", function () {
      if (!cy) return;
      answer.places = {};
      send("DELETE");
      layout(true);
    });
  });
})();
