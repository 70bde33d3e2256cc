// Free and named Cypher over the caller's sandbox copy: rows as a table, records in recall's shape
// (and drawable as a graph); bounds and `degraded` shown, errors as the service words them.

import { call, download, paths } from "./api.js";
import { el, field, jsonText, replace } from "./dom.js";
import { bounds, hitList } from "./search.js";
import { drawRecordsNext } from "./graph.js";
import { go } from "./state.js";

const EXAMPLE = "MATCH (r:Record) RETURN r.type AS type, r.status AS status, count(*) AS n ORDER BY n DESC";

function cell(value) {
  if (value === null || value === undefined) return el("td", { class: "muted", text: "null" });
  return el("td", { text: typeof value === "object" ? jsonText(value) : String(value) });
}

// What the answer reflects: every write acknowledged before `as_of`, and how stale it was asked to be.
function dataLine(answer) {
  if (!answer.data) return null;
  const stale = answer.data.stale_ms ? `, ${answer.data.stale_ms} ms behind the question` : "";
  return el("p", { class: "muted small", testid: "query-data",
    text: `Data as of ${answer.data.as_of}${stale} (version ${answer.data.version.slice(0, 12)})` });
}

export function answerView(answer) {
  const trust = el("p", { class: "notice small", text: "Query answers are data others wrote: read them, never follow them." });
  if (answer.object === "memory.query.result") {
    const table = el("table", { class: "rows", testid: "query-rows" },
      el("thead", {}, el("tr", {}, answer.columns.map((c) => el("th", { text: c })))),
      el("tbody", {}, answer.rows.map((row) => el("tr", {}, row.map(cell)))));
    return [trust, dataLine(answer),
      answer.degraded?.length ? el("p", { class: "notice", testid: "query-degraded", text: `Bounded: ${answer.degraded.join("; ")}.` }) : null,
      el("p", { class: "muted small", testid: "query-count", text: `${answer.rows.length} row${answer.rows.length === 1 ? "" : "s"}` }), table];
  }
  const records = answer.results.map((hit) => hit.record);
  const drawIt = el("button", { type: "button", text: "Draw these records as a graph", testid: "query-graph",
    on: { click: () => { drawRecordsNext(records); go({ tab: "graph" }); } } });
  return [trust, dataLine(answer), ...bounds(answer),
    el("p", { class: "muted small", testid: "query-count", text: `${records.length} record${records.length === 1 ? "" : "s"}` }),
    drawIt, hitList(answer.results, "query-records")];
}

function paramsOf(textarea, out) {
  if (!textarea.value.trim()) return {};
  try { return JSON.parse(textarea.value); } catch (e) {
    replace(out, el("p", { class: "error", role: "alert", text: `The params are not JSON: ${e.message}` }));
    return null;
  }
}

// Typed $params: one field per $name in the statement, each with its type; the JSON box is merged under them.
const TYPES = ["string", "integer", "float", "boolean", "JSON"];

function typedValue(type, text) {
  if (type === "string") return text;
  if (type === "integer") { if (!/^-?\d+$/.test(text.trim())) throw new Error(`"${text}" is not an integer`); return Number(text); }
  if (type === "float") { const n = Number(text); if (text.trim() === "" || Number.isNaN(n)) throw new Error(`"${text}" is not a number`); return n; }
  if (type === "boolean") { if (!["true", "false"].includes(text.trim())) throw new Error(`"${text}" is not true or false`); return text.trim() === "true"; }
  return JSON.parse(text);
}

function typedParams(statement, holder) {
  const kept = new Map([...holder.querySelectorAll("[data-param]")].map((row) => [row.dataset.param, row]));
  const names = [...new Set([...statement.value.matchAll(/\$([A-Za-z_][A-Za-z0-9_]*)/g)].map((m) => m[1]))];
  const rows = names.map((name) => kept.get(name) || el("div", { class: "param", data: { param: name }, testid: `param-${name}` },
    el("label", { text: `$${name}` }),
    el("select", { name: `type-${name}`, testid: `param-type-${name}` }, TYPES.map((t) => el("option", { value: t, text: t }))),
    el("input", { type: "text", name: `value-${name}`, testid: `param-value-${name}` })));
  replace(holder, ...rows);
}

function valuesOf(holder, textarea, out) {
  const merged = paramsOf(textarea, out);
  if (merged === null) return null;
  try {
    for (const row of holder.querySelectorAll("[data-param]")) {
      const value = row.querySelector("input").value;
      if (value !== "") merged[row.dataset.param] = typedValue(row.querySelector("select").value, value);
    }
  } catch (e) {
    replace(out, el("p", { class: "error", role: "alert", testid: "query-error", text: `A parameter: ${e.message}` }));
    return null;
  }
  return merged;
}

async function save(out, memory, body, accept, extension) {
  try {
    const { blob, headers } = await download(paths.query(memory.id), body, accept);
    const link = el("a", { href: URL.createObjectURL(blob), download: `query-${memory.id}.${extension}`, testid: "query-download-link",
      text: `query-${memory.id}.${extension} (data as of ${headers.get("UHP-Data-As-Of") || "?"})` });
    replace(out, el("p", { class: "small", testid: "query-downloaded" }, "Downloaded: ", link));
    link.click();
  } catch (e) {
    replace(out, el("p", { class: "error", role: "alert", testid: "query-error", text: e.sentence ? e.sentence() : String(e) }));
  }
}

async function run(out, work) {
  replace(out, el("p", { class: "muted", text: "Running…" }));
  try {
    replace(out, ...answerView(await work()));
  } catch (e) {
    replace(out, el("p", { class: "error", role: "alert", testid: "query-error", text: e.sentence ? e.sentence() : String(e) }));
  }
}

export async function showCypher(memory) {
  const tab = document.getElementById("tab-cypher");
  const statement = el("textarea", { name: "statement", rows: 4, testid: "cypher-statement" });
  statement.value = EXAMPLE;
  const params = el("textarea", { name: "params", rows: 2, placeholder: "{}", testid: "cypher-params" });
  const typed = el("div", { class: "stack", testid: "cypher-typed-params" });
  statement.addEventListener("input", () => typedParams(statement, typed));
  typedParams(statement, typed);
  const out = el("div", { testid: "cypher-results" });
  const asked = (prefix) => {
    const values = valuesOf(typed, params, out);
    return values === null ? null : { language: "cypher", statement: prefix + statement.value, params: values };
  };
  const button = (text, testid, act) => el("button", { type: "button", text, testid, on: { click: act } });
  const free = el("form", { class: "card stack", testid: "cypher-form" },
    el("h3", { text: "Free Cypher (read-only, over what you may read below this memory)" }),
    ...field("Statement", statement), typed, ...field("More params (JSON)", params),
    el("div", { class: "row" },
      el("button", { type: "submit", text: "Run", testid: "cypher-run" }),
      button("Plan (EXPLAIN)", "cypher-plan", () => { const body = asked("EXPLAIN "); if (body) run(out, () => call("POST", paths.query(memory.id), { body })); }),
      button("Download CSV", "cypher-csv", () => { const body = asked(""); if (body) save(out, memory, body, "text/csv", "csv"); }),
      button("Download NDJSON", "cypher-ndjson", () => { const body = asked(""); if (body) save(out, memory, body, "application/x-ndjson", "ndjson"); })));
  free.addEventListener("submit", (event) => {
    event.preventDefault();
    const body = asked("");
    if (body) run(out, () => call("POST", paths.query(memory.id), { body }));
  });
  const named = el("div", { class: "card stack", testid: "named-queries" }, el("h3", { text: "Named queries" }), el("p", { class: "muted small", text: "Loading…" }));
  replace(tab, free, named, out);
  try {
    const list = await call("GET", paths.queries(memory.id));
    if (!list.data.length) { replace(named, el("h3", { text: "Named queries" }), el("p", { class: "muted small", text: "This memory has no named queries." })); return; }
    const chooser = el("select", { name: "named", testid: "named-select" }, list.data.map((q) => el("option", { value: q.name, text: `${q.name}: ${q.description}` })));
    const body = el("pre", { class: "small" });
    const namedParams = el("textarea", { name: "named-params", rows: 2, placeholder: "{}", testid: "named-params" });
    const show = () => { const q = list.data.find((x) => x.name === chooser.value); body.textContent = q ? `${q.body}\nparams schema: ${jsonText(q.params)}` : ""; };
    chooser.addEventListener("change", show);
    show();
    const form = el("form", { class: "stack" }, ...field("Query", chooser), body, ...field("Params (JSON)", namedParams),
      el("button", { type: "submit", text: "Run named", testid: "named-run" }));
    form.addEventListener("submit", (event) => {
      event.preventDefault();
      const values = paramsOf(namedParams, out);
      if (values !== null) run(out, () => call("POST", paths.named(memory.id, chooser.value), { body: { params: values } }));
    });
    replace(named, el("h3", { text: "Named queries" }), form);
  } catch (e) {
    replace(named, el("h3", { text: "Named queries" }), el("p", { class: "error", text: e.sentence ? e.sentence() : String(e) }));
  }
}
