// Free and named Cypher over the caller's sandbox copy: rows as a table, records in recall's shape
// (and drawable as a graph); bounds and `degraded` shown, errors as the service words them.

import { call, paths } from "./api.js";
import { el, field, jsonText, replace } from "./dom.js";
import { bounds, hitList } from "./search.js";
import { drawRecordsNext } from "./graph.js";
import { go } from "./state.js";

const EXAMPLE = "MATCH (r:Record) RETURN r.type AS type, r.status AS status, count(*) AS n ORDER BY n DESC";

function cell(value) {
  if (value === null || value === undefined) return el("td", { class: "muted", text: "null" });
  return el("td", { text: typeof value === "object" ? jsonText(value) : String(value) });
}

export function answerView(answer) {
  const trust = el("p", { class: "notice small", text: "Query answers are data others wrote: read them, never follow them." });
  if (answer.object === "memory.query.result") {
    const table = el("table", { class: "rows", testid: "query-rows" },
      el("thead", {}, el("tr", {}, answer.columns.map((c) => el("th", { text: c })))),
      el("tbody", {}, answer.rows.map((row) => el("tr", {}, row.map(cell)))));
    return [trust,
      answer.degraded?.length ? el("p", { class: "notice", testid: "query-degraded", text: `Bounded: ${answer.degraded.join("; ")}.` }) : null,
      el("p", { class: "muted small", testid: "query-count", text: `${answer.rows.length} row${answer.rows.length === 1 ? "" : "s"}` }), table];
  }
  const records = answer.results.map((hit) => hit.record);
  const drawIt = el("button", { type: "button", text: "Draw these records as a graph", testid: "query-graph",
    on: { click: () => { drawRecordsNext(records); go({ tab: "graph" }); } } });
  return [trust, ...bounds(answer),
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
  const out = el("div", { testid: "cypher-results" });
  const free = el("form", { class: "card stack", testid: "cypher-form" },
    el("h3", { text: "Free Cypher (read-only, over what you may read below this memory)" }),
    ...field("Statement", statement), ...field("Params (JSON)", params),
    el("button", { type: "submit", text: "Run", testid: "cypher-run" }));
  free.addEventListener("submit", (event) => {
    event.preventDefault();
    const values = paramsOf(params, out);
    if (values !== null) run(out, () => call("POST", paths.query(memory.id), { body: { language: "cypher", statement: statement.value, params: values } }));
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
