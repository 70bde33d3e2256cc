// What changed between two versions of a record: fields side by side, text word by word.

import { el, jsonText } from "./dom.js";

const MOST_WORDS = 1500; // past this a text is shown whole rather than diffed (the table is n×m)

function words(text) {
  return text.split(/(\s+)/).filter((w) => w !== "");
}

// Longest common subsequence over words; returns [kind, text] runs: "same", "ins" or "del".
export function wordDiff(before, after) {
  const a = words(before);
  const b = words(after);
  if (a.length > MOST_WORDS || b.length > MOST_WORDS) return [["del", before], ["ins", after]];
  const table = Array.from({ length: a.length + 1 }, () => new Uint16Array(b.length + 1));
  for (let i = a.length - 1; i >= 0; i--) {
    for (let j = b.length - 1; j >= 0; j--) {
      table[i][j] = a[i] === b[j] ? table[i + 1][j + 1] + 1 : Math.max(table[i + 1][j], table[i][j + 1]);
    }
  }
  const runs = [];
  const push = (kind, text) => {
    const last = runs[runs.length - 1];
    if (last && last[0] === kind) last[1] += text; else runs.push([kind, text]);
  };
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    if (a[i] === b[j]) { push("same", a[i]); i++; j++; }
    else if (table[i + 1][j] >= table[i][j + 1]) push("del", a[i++]);
    else push("ins", b[j++]);
  }
  while (i < a.length) push("del", a[i++]);
  while (j < b.length) push("ins", b[j++]);
  return runs;
}

function text(record) {
  return (record.content || []).map((p) => (p.text !== null && p.text !== undefined ? p.text : `[file ${p.file?.name || p.file?.id || ""}]`)).join("\n");
}

function refs(record) {
  return (record.references || []).map((r) => `${r.rel || "refers"} → ${r.record_id}`).sort().join("\n");
}

// The changes from `older` to `newer`, as nodes; empty when nothing a reader sees changed.
export function changes(older, newer) {
  const out = [];
  if ((older.title || "") !== (newer.title || "")) out.push(line("title", older.title || "", newer.title || ""));
  const before = text(older);
  const after = text(newer);
  if (before !== after) {
    const runs = wordDiff(before, after).map(([kind, chunk]) => (kind === "same" ? chunk : el(kind, { text: chunk })));
    out.push(el("div", { class: "diff part", testid: "diff-content" }, el("span", { class: "muted", text: "content: " }), runs));
  }
  const attrsBefore = jsonText(older.attributes || {});
  const attrsAfter = jsonText(newer.attributes || {});
  if (attrsBefore !== attrsAfter) out.push(line("attributes", attrsBefore, attrsAfter));
  if (refs(older) !== refs(newer)) out.push(line("references", refs(older), refs(newer)));
  if (older.status !== newer.status) out.push(line("status", older.status, newer.status));
  return out;
}

function line(name, before, after) {
  return el("div", { class: "diff part" },
    el("span", { class: "muted", text: `${name}: ` }),
    before ? el("del", { text: before }) : null, " ",
    after ? el("ins", { text: after }) : null);
}
