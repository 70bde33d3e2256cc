// One record, whole: its content parts, attributes, references, writer, times and history, and
// the writes the caller's privileges allow (revise with a reason, forget).

import { bytes, call, paths } from "./api.js";
import { changes } from "./diff.js";
import { el, field, jsonText, recordLabel, replace, when } from "./dom.js";
import { go, may, memoryView } from "./state.js";

const REASON = "revision_reason"; // where the reason is kept, as the MCP tool keeps it

function writer(w) {
  if (!w) return "";
  const parts = [`${w.kind}:${w.id}`];
  if (w.type) parts.push(`(${w.type})`);
  if (w.on_behalf_of) parts.push(`on behalf of ${w.on_behalf_of}`);
  if (w.consolidation_id) parts.push(`by consolidation ${w.consolidation_id}`);
  return parts.join(" ");
}

function fileLink(file, path) {
  const label = `${file.name || file.id}${file.bytes ? ` (${file.bytes} bytes)` : ""}`;
  const button = el("button", { type: "button", class: "link", text: `Download ${label}`, testid: "download" });
  button.addEventListener("click", async () => {
    const blob = await bytes(path);
    const a = el("a", { href: URL.createObjectURL(blob), download: file.name || file.id });
    document.body.append(a);
    a.click();
    a.remove();
  });
  return button;
}

function part(record, p, index) {
  const box = el("div", { class: "part", testid: "part" });
  if (p.role) box.append(el("div", { class: "muted small", text: p.role }));
  if (p.type === "file" && p.file) {
    const path = paths.part(record.memory_id, record.id, index);
    if ((p.file.media_type || "").startsWith("image/") && !/svg/i.test(p.file.media_type)) {
      const img = el("img", { title: p.file.name || p.file.id, testid: "image" });
      img.alt = p.file.name || "image";
      bytes(path).then((blob) => { img.src = URL.createObjectURL(blob); }).catch(() => { img.replaceWith(el("span", { class: "error", text: "The image could not be read." })); });
      box.append(img);
    }
    box.append(fileLink(p.file, path));
    if (p.text) box.append(el("div", { class: "muted small", text: `${p.text_source || "text"}: ${p.text}` }));
    return box;
  }
  box.append(el("span", { text: p.text || "" }));
  return box;
}

const NAMED_REFERENCES = 20; // a record with more references shows the rest by id only

function reference(r, index) {
  const label = `${r.rel || "refers to"} → `;
  if (!r.available) return el("li", { testid: "reference" }, label, el("span", { class: "muted", text: `${r.record_id} (unavailable)` }));
  const target = el("button", { type: "button", class: "link", text: r.record_id, title: r.record_id, testid: "reference-target",
    on: { click: () => go({ record: r.record_id, in: r.memory_id }) } });
  if (index < NAMED_REFERENCES && r.memory_id) {
    call("GET", paths.record(r.memory_id, r.record_id)).then((found) => { target.textContent = recordLabel(found, 80); }).catch(() => {});
  }
  return el("li", { testid: "reference" }, label, target);
}

async function history(record, box) {
  const answer = await call("GET", paths.history(record.memory_id, record.id));
  const versions = [...answer.data].sort((a, b) => a.version - b.version);
  const list = el("ol", { class: "list", testid: "history" });
  versions.forEach((v, i) => {
    const item = el("li", { testid: "version" },
      el("div", { text: `v${v.version} · ${v.status} · ${when(v.time?.written_at)} · ${writer(v.written_by)}` }),
      v.attributes?.[REASON] ? el("div", { class: "small", text: `reason: ${v.attributes[REASON]}` }) : null);
    if (i > 0) {
      const diff = changes(versions[i - 1], v);
      item.append(...(diff.length ? diff : [el("div", { class: "muted small", text: "no visible change" })]));
    }
    list.append(item);
  });
  replace(box, el("h3", { text: `History (${versions.length} version${versions.length === 1 ? "" : "s"})` }), list);
}

function reviseForm(record, reopen) {
  const title = el("input", { type: "text", name: "title", value: record.title || "", testid: "revise-title" });
  const firstText = (record.content || []).findIndex((p) => p.type === "text");
  const text = el("textarea", { name: "text", rows: 4, testid: "revise-text" });
  text.value = firstText >= 0 ? record.content[firstText].text : "";
  const reason = el("input", { type: "text", name: "reason", required: true, placeholder: "why it changed, in a sentence", testid: "revise-reason" });
  const result = el("p", { class: "small", role: "alert" });
  const form = el("form", { class: "card stack", testid: "revise-form" },
    el("h3", { text: "Revise" }), ...field("Title", title), ...field("Text", text), ...field("Reason", reason),
    el("button", { type: "submit", text: "Save new version", testid: "revise" }), result);
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const content = (record.content || []).map((p) => (p.type === "file" ? { type: "file", file: { id: p.file.id } } : { type: "text", text: p.text, ...(p.role ? { role: p.role } : {}) }));
    if (firstText >= 0) content[firstText] = { ...content[firstText], text: text.value };
    else content.push({ type: "text", text: text.value });
    const body = {
      title: title.value.trim() || null,
      content,
      attributes: { ...(record.attributes || {}), [REASON]: reason.value.trim() },
    };
    try {
      const next = await call("PATCH", paths.record(record.memory_id, record.id), { body });
      await reopen(next);
    } catch (e) {
      result.className = "small error";
      result.textContent = e.sentence ? e.sentence() : String(e);
    }
  });
  return form;
}

function forgetButton(record, reopen) {
  const box = el("div", { class: "row" });
  const ask = el("button", { type: "button", class: "danger", text: "Forget", testid: "forget" });
  ask.addEventListener("click", () => {
    const sure = el("button", { type: "button", class: "danger", text: "Yes, forget it", testid: "forget-confirm" });
    const problem = el("span", { class: "error small", role: "alert" });
    sure.addEventListener("click", async () => {
      try { await reopen(await call("DELETE", paths.record(record.memory_id, record.id))); } catch (e) { problem.textContent = e.sentence(); }
    });
    replace(box, el("span", { text: "Forgotten records stay in history and leave recall. " }), sure, problem);
  });
  box.append(ask);
  return box;
}

export async function showRecord(memoryId, recordId, asOf) {
  const pane = document.getElementById("record-pane");
  replace(pane, el("p", { class: "muted", text: "Reading…" }));
  let record;
  try {
    record = await call("GET", paths.record(memoryId, recordId), { query: { as_of: asOf } });
  } catch (e) {
    replace(pane, el("p", { class: "error", role: "alert", testid: "record-error", text: e.sentence ? e.sentence() : String(e) }));
    return;
  }
  const memory = await memoryView(record.memory_id).catch(() => null);
  const reopen = async () => { await showRecord(record.memory_id, record.id); };
  const asOfInput = el("input", { type: "text", name: "as_of", placeholder: "ISO instant or snapshot id", value: asOf || "", testid: "record-as-of" });
  const asOfForm = el("form", { class: "row" }, ...field("As of", asOfInput), el("button", { type: "submit", text: "Show" }));
  asOfForm.addEventListener("submit", (event) => { event.preventDefault(); showRecord(memoryId, recordId, asOfInput.value.trim() || undefined); });
  const historyBox = el("div", { testid: "history-box" },
    el("button", { type: "button", text: "Show history", testid: "show-history", on: { click: () => history(record, historyBox) } }));
  const active = record.status === "active" && !asOf;
  replace(pane,
    el("div", { class: "card", testid: "record" },
      el("h2", { text: recordLabel(record, 200), testid: "record-title" }),
      el("div", { class: "notice small", text: "Written by others: read it as data, not as instructions." }),
      el("dl", { class: "fields" },
        el("dt", { text: "id" }), el("dd", { text: record.id }),
        el("dt", { text: "type" }), el("dd", { text: record.type }),
        el("dt", { text: "version" }), el("dd", { text: `${record.version} (${record.status})` }),
        el("dt", { text: "memory" }), el("dd", {}, el("button", { type: "button", class: "link", text: memory ? memory.name : record.memory_id, on: { click: () => go({ memory: record.memory_id }) } })),
        el("dt", { text: "written by" }), el("dd", { text: writer(record.written_by), testid: "written-by" }),
        el("dt", { text: "written at" }), el("dd", { text: when(record.time?.written_at) }),
        el("dt", { text: "valid" }), el("dd", { text: `${record.time?.valid_from || "…"} to ${record.time?.valid_to || "…"}` }),
        record.time?.invalidated_at ? [el("dt", { text: "invalidated" }), el("dd", { text: when(record.time.invalidated_at) })] : null,
      ),
      el("h3", { text: "Content" }),
      el("div", { testid: "content" }, (record.content || []).map((p, i) => part(record, p, i))),
      el("h3", { text: "Attributes" }),
      el("pre", { text: jsonText(record.attributes || {}), testid: "attributes" }),
      el("h3", { text: "References" }),
      record.references?.length ? el("ul", { testid: "references" }, record.references.map(reference)) : el("p", { class: "muted", text: "None." }),
      record.follows ? [el("h3", { text: "Follows" }), el("pre", { text: jsonText(record.follows) })] : null,
      asOfForm,
      el("div", { class: "row" }, el("button", { type: "button", text: "Graph around it", testid: "graph-from-record", on: { click: () => go({ tab: "graph", memory: record.memory_id, record: record.id, in: record.memory_id }) } })),
      historyBox,
    ),
    active && may(memory, "write") ? reviseForm(record, reopen) : null,
    active && may(memory, "write") ? forgetButton(record, reopen) : null,
  );
}
