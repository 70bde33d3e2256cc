// Recall from the chosen memory: meaning, words and filters, each hit with its memory, score, the
// signals that found it and, asked with `explain`, its rank and score in each; abstain and degraded
// said in words.

import { call, paths } from "./api.js";
import { el, field, recordLabel, replace, select, typeColour } from "./dom.js";
import { go } from "./state.js";

function snippet(record) {
  const text = (record.content || []).map((p) => p.text || "").join(" ").replace(/\s+/g, " ").trim();
  return text.length > 200 ? `${text.slice(0, 199)}…` : text;
}

// What each signal is called on the page; one the page does not know keeps its own name.
const SIGNALS = { query: "meaning", text: "words", query_words: "question's words", filters: "fields" };

function number(value) {
  return Math.abs(value) >= 100 ? value.toFixed(0) : Number(value.toPrecision(3)).toString();
}

// One list's word on a hit: "meaning #2 · 0.61", the full numbers in its tooltip.
function part(testid, label, said, meaning) {
  const scored = said.score !== null && said.score !== undefined;
  const added = said.added === undefined ? "" : `; added ${said.added} to the fused score`;
  return el("span", {
    class: "signal", testid, text: `${label} #${said.rank}${scored ? ` · ${number(said.score)}` : ""}`,
    title: `${meaning}: rank ${said.rank}${scored ? `, score ${said.score}` : ""}${added}`,
  });
}

function note(testid, text, title) {
  return el("span", { class: "signal", testid, text, title });
}

// A hit's place by signal, as text: "meaning #2 · 0.61  words #1 · 4.2  fused #1  rerank #1 · 5.3".
function explanation(explain) {
  if (!explain) return null;
  const parts = Object.entries(explain.signals || {}).map(([signal, said]) =>
    part(`explain-${signal}`, SIGNALS[signal] || signal, said, `${SIGNALS[signal] || signal} (${signal})`));
  if (explain.date_lift) parts.push(note("explain-date", `date +${number(explain.date_lift)}`, "lifted: its time falls in the period the question names"));
  if (explain.fused_rank) parts.push(note("explain-fused", `fused #${explain.fused_rank}`, "its place with the signals fused, before a date lift and the rerank"));
  if (explain.rerank) parts.push(part("explain-rerank", "rerank", explain.rerank, "the cross-encoder, reading the question and the record together"));
  if (explain.contradicts) parts.push(note("explain-contradicts", "other side of a disagreement", "it contradicts a result, and came along past the limit"));
  return el("div", { class: "explain small", testid: "hit-explain" }, parts);
}

export function hitList(results, testid = "hits") {
  return el("ol", { class: "list", testid }, results.map((hit) => {
    const swatch = el("span", { class: "swatch" });
    swatch.style.background = typeColour(hit.record.type);
    return el("li", { testid: "hit", data: { recordId: hit.record.id } },
      el("div", { class: "row" }, swatch,
        el("button", { type: "button", class: "link", text: recordLabel(hit.record, 120), testid: "hit-record",
          on: { click: () => go({ record: hit.record.id, in: hit.memory.id }) } })),
      hit.record.title ? el("div", { class: "snippet", text: snippet(hit.record) }) : null,
      el("div", { class: "small row" },
        el("span", { class: "muted", text: "in" }),
        el("button", { type: "button", class: "link", text: hit.memory.name || hit.memory.id, testid: "hit-memory",
          on: { click: () => go({ memory: hit.memory.id, record: null, in: null, tab: "records" }) } }),
        el("span", { class: "muted", text: hit.score === null || hit.score === undefined ? "no score" : `score ${hit.score.toFixed(3)}`, testid: "hit-score" }),
        el("span", { class: "muted", text: hit.why?.length ? `found by ${hit.why.join(", ")}` : "", testid: "hit-why" })),
      explanation(hit.explain),
    );
  }));
}

export function bounds(answer) {
  const out = [];
  if (answer.abstain) out.push(el("p", { class: "abstain", testid: "abstain", text: "Recall abstains: nothing it found is close enough to answer this. The hits below, if any, are the nearest." }));
  if (answer.degraded?.length) out.push(el("p", { class: "notice", testid: "degraded", text: `Not everything asked was done: ${answer.degraded.join("; ")}.` }));
  return out;
}

export function showSearch(memory) {
  const tab = document.getElementById("tab-search");
  const query = el("input", { type: "text", name: "query", placeholder: "what to look for, in a sentence", testid: "search-query" });
  const words = el("input", { type: "text", name: "text", placeholder: "exact words", testid: "search-text" });
  const filters = el("textarea", { name: "filters", rows: 2, placeholder: '{"field": "attributes.topic", "op": "eq", "value": "x"}', testid: "search-filters" });
  const types = el("input", { type: "text", name: "types", placeholder: "fact, note", testid: "search-types" });
  const depth = el("input", { type: "number", name: "depth", min: 0, placeholder: "whole subtree", testid: "search-depth" });
  const limit = el("input", { type: "number", name: "limit", min: 1, max: 100, value: 10 });
  const include = select("include", [["active", "active"], ["all", "all (forgotten too)"]], "active");
  const out = el("div", { testid: "search-results" });
  const form = el("form", { class: "card stack", testid: "search-form" },
    ...field("Query (meaning)", query), ...field("Text (words)", words), ...field("Filters (JSON)", filters),
    el("div", { class: "row" }, ...field("Types", types), ...field("Depth", depth), ...field("Limit", limit), ...field("Include", include)),
    el("button", { type: "submit", text: "Recall", testid: "search" }));
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const body = { limit: Number(limit.value) || 10, include: include.value, explain: true };
    if (query.value.trim()) body.query = query.value.trim();
    if (words.value.trim()) body.text = words.value.trim();
    if (types.value.trim()) body.types = types.value.split(",").map((t) => t.trim()).filter(Boolean);
    if (depth.value !== "") body.depth = Number(depth.value);
    if (filters.value.trim()) {
      try { body.filters = JSON.parse(filters.value); } catch (e) {
        replace(out, el("p", { class: "error", role: "alert", text: `The filters are not JSON: ${e.message}` }));
        return;
      }
    }
    replace(out, el("p", { class: "muted", text: "Recalling…" }));
    try {
      const answer = await call("POST", paths.recall(memory.id), { body });
      replace(out, ...bounds(answer),
        el("p", { class: "muted small", text: `${answer.results.length} hit${answer.results.length === 1 ? "" : "s"}`, testid: "hit-count" }),
        hitList(answer.results));
    } catch (e) {
      replace(out, el("p", { class: "error", role: "alert", testid: "search-error", text: e.sentence ? e.sentence() : String(e) }));
    }
  });
  replace(tab, el("p", { class: "muted small", text: `Recall from ${memory.name} and everything below it you may read.` }), form, out);
}
