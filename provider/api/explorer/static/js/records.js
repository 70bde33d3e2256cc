// A memory's records: filter by type and status, page through, remember a new one where allowed.

import { call, paths } from "./api.js";
import { el, field, recordLabel, replace, select, status, typeColour, when } from "./dom.js";
import { go, may } from "./state.js";

const TYPES = ["fact", "note", "episode", "procedure", "entity", "link"];

function row(record) {
  const swatch = el("span", { class: "swatch" });
  swatch.style.background = typeColour(record.type);
  return el("li", { testid: "record-row", data: { recordId: record.id } },
    el("div", { class: "row" },
      swatch,
      el("button", {
        type: "button", class: "link", text: recordLabel(record), testid: "open-record",
        on: { click: () => go({ memory: record.memory_id, in: record.memory_id, record: record.id }) },
      }),
    ),
    el("div", { class: "muted small", text: `${record.type} · v${record.version} · ${record.status} · ${when(record.time?.written_at)}` }),
  );
}

function rememberForm(memory, reload) {
  const type = el("input", { type: "text", name: "type", value: "fact", testid: "remember-type" });
  const title = el("input", { type: "text", name: "title", testid: "remember-title" });
  const text = el("textarea", { name: "text", rows: 3, testid: "remember-text" });
  const result = el("p", { class: "small", role: "alert" });
  const form = el("form", { class: "card stack", testid: "remember-form" },
    el("h3", { text: "Remember" }),
    ...field("Type", type),
    ...field("Title", title),
    ...field("Text", text),
    el("div", { class: "row" }, el("button", { type: "submit", text: "Remember", testid: "remember" })),
    result,
  );
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const body = { type: type.value.trim() || "fact", content: text.value ? [{ type: "text", text: text.value }] : [] };
    if (title.value.trim()) body.title = title.value.trim();
    try {
      const record = await call("POST", paths.records(memory.id), { body });
      result.className = "small";
      result.textContent = `Remembered as ${record.id}.`;
      title.value = ""; text.value = "";
      await reload();
      go({ record: record.id, in: memory.id });
    } catch (e) {
      result.className = "small error";
      result.textContent = e.sentence ? e.sentence() : String(e);
    }
  });
  return form;
}

export async function showRecords(memory) {
  const tab = document.getElementById("tab-records");
  const type = el("input", { type: "text", name: "type", placeholder: "any type", testid: "filter-type" });
  type.setAttribute("list", "known-types");
  const types = el("datalist", { id: "known-types" }, TYPES.map((t) => el("option", { value: t })));
  const which = select("status", [["active", "active"], ["forgotten", "forgotten"], ["all", "all"]], "active");
  which.dataset.testid = "filter-status";
  const asOf = el("input", { type: "text", name: "as_of", placeholder: "as of (ISO instant or snapshot)", testid: "filter-as-of" });
  const list = el("ul", { class: "list", testid: "records" });
  const more = el("div");
  const problem = el("p", { class: "error", role: "alert" });

  async function load(cursor) {
    if (!cursor) replace(list);
    replace(more);
    problem.textContent = "";
    try {
      const query = { type: type.value.trim(), include: which.value === "active" ? "active" : "all", as_of: asOf.value.trim(), cursor, limit: 50 };
      const answer = await call("GET", paths.records(memory.id), { query });
      const shown = answer.data.filter((r) => which.value === "all" || r.status === which.value);
      for (const record of shown) list.append(row(record));
      if (!list.children.length && !answer.next) list.append(el("li", { class: "muted", text: "No records match." }));
      if (answer.next) more.append(el("button", { type: "button", text: "More records", on: { click: () => load(answer.next) } }));
      status(`${list.querySelectorAll("[data-testid=record-row]").length} records shown`);
    } catch (e) {
      problem.textContent = e.sentence ? e.sentence() : String(e);
    }
  }

  const filters = el("form", { class: "row", testid: "record-filters" },
    ...field("Type", type), types, ...field("Status", which), asOf,
    el("button", { type: "submit", text: "Filter" }),
  );
  filters.addEventListener("submit", (event) => { event.preventDefault(); load(); });
  replace(tab, filters, problem, list, more, may(memory, "write") ? rememberForm(memory, () => load()) : null);
  await load();
}
