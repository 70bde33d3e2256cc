// The graph around a record or a whole memory, drawn with cytoscape (vendored, see vendor.py).
// A fact that names one subject and one object and nothing else is drawn as a labelled edge
// between them; every other record is a node coloured by its type.

import { call, paths } from "./api.js";
import { el, field, recordLabel, replace, typeColour } from "./dom.js";
import { go } from "./state.js";

const UNAVAILABLE = "#b0b5c0";

// Nodes and edges for cytoscape from graph nodes ({record, memory}) and edges ({from, to, rel, available}).
export function elements(nodes, edges) {
  const byId = new Map(nodes.map((n) => [n.record.id, n]));
  const outgoing = new Map();
  const touching = new Map();
  for (const e of edges) {
    const from = e.from.record_id;
    const to = e.to.record_id;
    if (!outgoing.has(from)) outgoing.set(from, []);
    outgoing.get(from).push(e);
    touching.set(from, (touching.get(from) || 0) + 1);
    touching.set(to, (touching.get(to) || 0) + 1);
  }
  const folded = new Set();
  const out = [];
  for (const n of nodes) {
    const r = n.record;
    const mine = outgoing.get(r.id) || [];
    const subject = mine.find((e) => e.rel === "subject");
    const object = mine.find((e) => e.rel === "object");
    const foldable = r.type === "fact" && subject && object && mine.length === 2 && touching.get(r.id) === 2
      && byId.has(subject.to.record_id) && byId.has(object.to.record_id);
    if (foldable) {
      folded.add(r.id);
      out.push({ group: "edges", data: { id: `fact:${r.id}`, source: subject.to.record_id, target: object.to.record_id, label: recordLabel(r, 40), type: r.type, colour: typeColour(r.type), recordId: r.id, memoryId: n.memory.id, fact: true } });
    }
  }
  for (const n of nodes) {
    if (folded.has(n.record.id)) continue;
    out.push({ group: "nodes", data: { id: n.record.id, label: recordLabel(n.record, 40), type: n.record.type, colour: typeColour(n.record.type), recordId: n.record.id, memoryId: n.memory.id } });
  }
  const missing = new Set();
  edges.forEach((e, i) => {
    if (folded.has(e.from.record_id)) return;
    const target = e.to.record_id;
    if (!byId.has(target) && !missing.has(target)) {
      missing.add(target);
      out.push({ group: "nodes", data: { id: target, label: e.available ? "(outside this graph)" : "(unavailable)", type: "unavailable", colour: UNAVAILABLE, unavailable: !e.available } });
    }
    out.push({ group: "edges", data: { id: `e${i}:${e.from.record_id}>${target}`, source: e.from.record_id, target, label: e.rel || "", type: "reference", colour: "#8d96a8" } });
  });
  return { elements: out, folded: folded.size };
}

// Edges among a set of records from their own references (for query answers, which carry no edges).
export function edgesAmong(records) {
  const ids = new Set(records.map((r) => r.id));
  const edges = [];
  for (const r of records) for (const ref of r.references || []) {
    if (ids.has(ref.record_id)) edges.push({ from: { record_id: r.id }, to: { record_id: ref.record_id }, rel: ref.rel, available: true });
  }
  return edges;
}

const STYLE = [
  { selector: "node", style: { "background-color": "data(colour)", label: "data(label)", "font-size": 10, color: "#1d2330", "text-wrap": "ellipsis", "text-max-width": 120, "text-valign": "bottom", "text-margin-y": 4, width: 18, height: 18 } },
  { selector: "node[type = 'unavailable']", style: { "border-style": "dashed", "border-width": 2, "border-color": "#677086" } },
  { selector: "node:selected", style: { "border-width": 3, "border-color": "#1d2330" } },
  { selector: "edge", style: { width: 1.5, "line-color": "data(colour)", "target-arrow-color": "data(colour)", "target-arrow-shape": "triangle", "curve-style": "bezier", label: "data(label)", "font-size": 9, color: "#677086", "text-rotation": "autorotate", "text-background-color": "#fff", "text-background-opacity": 0.8 } },
  { selector: "edge[?fact]", style: { width: 3, "line-style": "solid", color: "#1b7a3d", "font-size": 10 } },
];

let cy = null;

export function draw(container, summary, legend, nodes, edges, extra = []) {
  const { elements: items, folded } = elements(nodes, edges);
  const nodeCount = items.filter((x) => x.group === "nodes").length;
  const edgeCount = items.filter((x) => x.group === "edges").length;
  const plural = (n, word) => `${n} ${word}${n === 1 ? "" : "s"}`;
  const facts = folded ? ` (${plural(folded, "fact")} drawn as ${folded === 1 ? "an edge" : "edges"})` : "";
  replace(summary, `${plural(nodeCount, "node")}, ${plural(edgeCount, "edge")}${facts}`, ...extra);
  const types = [...new Set(items.map((x) => x.data.type))].filter((t) => t !== "reference").sort();
  if (cy) { cy.destroy(); cy = null; }
  if (typeof window.cytoscape !== "function") {
    replace(container, el("p", { class: "notice", testid: "graph-no-library", text: "The graph library is not installed here (python -m provider explorer-assets); the nodes and edges are listed instead." }),
      el("ul", {}, items.map((x) => el("li", { text: x.group === "nodes" ? `${x.data.type}: ${x.data.label}` : `${x.data.source} —${x.data.label}→ ${x.data.target}` }))));
    replace(legend);
    return;
  }
  replace(container);
  cy = window.cytoscape({ container, elements: items, style: STYLE, layout: nodeCount > 150 ? { name: "grid" } : { name: "cose", animate: false, idealEdgeLength: () => 140, nodeRepulsion: () => 600000 }, wheelSensitivity: 0.3 });
  fit();
  window.explorerCy = cy; // for the browser tests: where a node is drawn
  cy.on("tap", "node", (event) => {
    const data = event.target.data();
    if (data.recordId) go({ record: data.recordId, in: data.memoryId });
  });
  cy.on("tap", "edge[?fact]", (event) => {
    const data = event.target.data();
    go({ record: data.recordId, in: data.memoryId });
  });
  replace(legend, types.map((type) => {
    const box = el("input", { type: "checkbox", checked: true, name: `type-${type}`, testid: `show-type-${type}` });
    box.addEventListener("change", () => {
      const shown = box.checked ? "element" : "none";
      cy.elements().filter((x) => x.data("type") === type).style("display", shown);
    });
    const swatch = el("span", { class: "swatch" });
    swatch.style.background = type === "unavailable" ? UNAVAILABLE : typeColour(type);
    return el("label", {}, box, swatch, type);
  }));
}

export function zoom(by) {
  if (!cy) return;
  cy.zoom({ level: cy.zoom() * by, renderedPosition: { x: cy.width() / 2, y: cy.height() / 2 } });
}

const MOST_ZOOM = 1.6; // a graph of two nodes fitted to the canvas would be drawn at giant scale

export function fit() {
  if (!cy) return;
  cy.fit(undefined, 40);
  if (cy.zoom() > MOST_ZOOM) {
    cy.zoom(MOST_ZOOM);
    cy.center();
  }
}

let pending = null; // records a query answer asked to be drawn

export function drawRecordsNext(records) {
  pending = records;
}

export function showGraph(memory, around) {
  const tab = document.getElementById("tab-graph");
  const start = el("input", { type: "text", name: "around", value: around || "", placeholder: "a record id; empty: the whole memory", testid: "graph-around" });
  const hops = el("select", { name: "hops", testid: "graph-hops" }, [1, 2, 3].map((h) => el("option", { value: String(h), text: `${h} hop${h === 1 ? "" : "s"}`, selected: h === 1 })));
  const types = el("input", { type: "text", name: "types", placeholder: "all types", testid: "graph-types" });
  const limit = el("input", { type: "number", name: "limit", min: 1, max: 500, value: 100 });
  const summary = el("p", { class: "muted small", testid: "graph-summary" });
  const legend = el("div", { class: "legend", testid: "graph-legend" });
  const canvas = el("div", { id: "graph-canvas", testid: "graph-canvas" });
  const form = el("form", { class: "card row", testid: "graph-form" },
    ...field("Around", start), hops, ...field("Types", types), ...field("Limit", limit),
    el("button", { type: "submit", text: "Draw", testid: "draw" }));
  const controls = el("div", { class: "row" },
    el("button", { type: "button", text: "Fit", testid: "graph-fit", on: { click: fit } }),
    el("button", { type: "button", text: "Zoom in", on: { click: () => zoom(1.25) } }),
    el("button", { type: "button", text: "Zoom out", on: { click: () => zoom(0.8) } }));
  let latest = 0; // only the newest draw lands: an earlier answer arriving late is dropped
  async function load() {
    const mine = ++latest;
    const body = { hops: Number(hops.value), limit: Number(limit.value) || 100 };
    if (start.value.trim()) body.around = start.value.trim();
    if (types.value.trim()) body.types = types.value.split(",").map((t) => t.trim()).filter(Boolean);
    replace(summary, "Drawing…");
    try {
      const answer = await call("POST", paths.graph(memory.id), { body });
      if (mine !== latest) return;
      const notes = [];
      if (answer.truncated) notes.push(el("span", { class: "notice", text: " Truncated at the limit." }));
      if (answer.degraded?.length) notes.push(el("span", { class: "notice", testid: "graph-degraded", text: ` Not done: ${answer.degraded.join("; ")}.` }));
      draw(canvas, summary, legend, answer.nodes, answer.edges, notes);
      canvas.dataset.hops = String(body.hops); // what is drawn now (the tests wait on it)
    } catch (e) {
      if (mine !== latest) return;
      replace(summary, el("span", { class: "error", role: "alert", testid: "graph-error", text: e.sentence ? e.sentence() : String(e) }));
    }
  }
  form.addEventListener("submit", (event) => { event.preventDefault(); load(); });
  replace(tab, form, controls, summary, legend, canvas);
  if (pending) {
    const records = pending;
    pending = null;
    draw(canvas, summary, legend, records.map((r) => ({ record: r, memory: { id: r.memory_id } })), edgesAmong(records), [" (from a query answer)"]);
  } else if (around) load();
}
