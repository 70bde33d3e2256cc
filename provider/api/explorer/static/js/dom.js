// Building the page without ever parsing markup: every string a record holds is set as text.
// No markup-parsing property or call is used anywhere in the explorer; attributes come from a short list, and a link's
// target is only ever a blob: URL made here or a #fragment of this page.

const SAFE_ATTRIBUTES = new Set([
  "id", "type", "name", "value", "placeholder", "for", "title", "min", "max", "step", "rows",
  "autocomplete", "role", "download", "colspan", "aria-label",
]);

export function el(tag, props = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(props)) {
    if (value === undefined || value === null || value === false) continue;
    if (key === "class") node.className = value;
    else if (key === "text") node.textContent = String(value);
    else if (key === "on") for (const [event, handler] of Object.entries(value)) node.addEventListener(event, handler);
    else if (key === "testid") node.dataset.testid = value;
    else if (key === "data") Object.assign(node.dataset, value);
    else if (key === "hidden" || key === "disabled" || key === "checked" || key === "required" || key === "selected") node[key] = Boolean(value);
    else if (key === "href") node.setAttribute("href", safeHref(value));
    else if (key === "src") node.setAttribute("src", safeSrc(value));
    else if (SAFE_ATTRIBUTES.has(key)) node.setAttribute(key, String(value));
    else throw new Error(`el: attribute ${key} is not allowed`);
  }
  append(node, children);
  return node;
}

export function append(node, children) {
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

export function clear(node) {
  while (node.firstChild) node.firstChild.remove();
  return node;
}

export function replace(node, ...children) {
  return append(clear(node), children);
}

function safeHref(value) {
  const text = String(value);
  return text.startsWith("#") || text.startsWith("blob:") ? text : "#";
}

function safeSrc(value) {
  const text = String(value);
  return text.startsWith("blob:") ? text : "";
}

export function field(labelText, input) {
  const id = input.id || `f-${Math.random().toString(36).slice(2, 9)}`;
  input.id = id;
  return [el("label", { for: id, text: labelText }), input];
}

export function select(name, options, chosen) {
  return el("select", { name }, options.map(([value, label]) => el("option", { value, text: label, selected: value === chosen })));
}

export function when(ms) {
  if (ms === null || ms === undefined) return "";
  const date = typeof ms === "number" ? new Date(ms) : new Date(String(ms));
  return Number.isNaN(date.getTime()) ? String(ms) : date.toISOString().replace("T", " ").replace(/\.\d+Z$/, "Z");
}

export function status(message) {
  const line = document.getElementById("status");
  line.textContent = message;
}

export function jsonText(value) {
  return JSON.stringify(value, null, 2);
}

// A record's one-line name: its title, else the start of its first text part.
export function recordLabel(record, max = 60) {
  if (record.title) return record.title;
  const part = (record.content || []).find((p) => p.text);
  const text = part ? part.text.replace(/\s+/g, " ").trim() : `(${record.type})`;
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

// A stable colour per record type, so a type looks the same in every view.
const PALETTE = ["#2f5fd0", "#1b7a3d", "#b8651b", "#8a3ab9", "#c2185b", "#00838f", "#5d6b1e", "#6d4c41"];
const FIXED = { episode: 0, fact: 1, note: 2, entity: 3, procedure: 4, link: 5, "x.person": 6, "x.company": 7 };
export function typeColour(type) {
  if (type in FIXED) return PALETTE[FIXED[type]];
  let hash = 0;
  for (const ch of type) hash = (hash * 31 + ch.charCodeAt(0)) >>> 0;
  return PALETTE[hash % PALETTE.length];
}
