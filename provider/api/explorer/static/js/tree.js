// The tree: where the caller enters (or where their grants start), children fetched on expand.

import { call, paths } from "./api.js";
import { el, replace } from "./dom.js";
import { go, remember } from "./state.js";

let mode = "entries";

function counts(memory) {
  const records = memory.records?.count;
  const children = memory.children?.count;
  const parts = [];
  if (records !== null && records !== undefined) parts.push(`${records} record${records === 1 ? "" : "s"}`);
  if (children !== null && children !== undefined) parts.push(`${children} child${children === 1 ? "" : "ren"}`);
  return parts.join(" · ");
}

function node(memory) {
  remember(memory);
  const children = el("ul", { hidden: true });
  const hasChildren = memory.children?.count !== 0;
  const toggle = el("button", {
    type: "button", class: "toggle", text: hasChildren ? "▸" : "·", disabled: !hasChildren,
    "aria-label": `expand ${memory.name}`, testid: "expand",
  });
  let loaded = false;
  toggle.addEventListener("click", async () => {
    if (!loaded) {
      loaded = true;
      await page(children, { parent: memory.id });
    }
    children.hidden = !children.hidden;
    toggle.textContent = children.hidden ? "▸" : "▾";
  });
  const name = el("button", {
    type: "button", class: "link name", text: memory.name, title: memory.description || memory.name,
    testid: "memory", data: { memoryId: memory.id },
    on: { click: () => go({ memory: memory.id, record: null, in: null }) },
  });
  const row = el("div", { class: "node", data: { memoryId: memory.id } },
    toggle, name,
    memory.restricted ? el("span", { class: "badge restricted", text: "restricted", title: "grants from above stop here" }) : null,
    el("span", { class: "badge", text: (memory.privileges || []).join(" ") || "no privileges", testid: "privileges" }),
  );
  return el("li", {},
    row,
    memory.description ? el("div", { class: "muted small", text: memory.description }) : null,
    el("div", { class: "muted small", text: counts(memory) }),
    children,
  );
}

async function page(list, query, cursor) {
  const answer = await call("GET", paths.memories(), { query: { ...query, cursor, limit: 50 } });
  for (const memory of answer.data) list.append(node(memory));
  if (answer.next) {
    const more = el("li", {}, el("button", { type: "button", class: "link", text: "more…" }));
    more.firstChild.addEventListener("click", async () => { more.remove(); await page(list, query, answer.next); });
    list.append(more);
  }
  if (!answer.data.length && !cursor) list.append(el("li", { class: "muted small", text: "Nothing here." }));
}

export async function loadTree(nextMode = mode) {
  mode = nextMode;
  const tree = document.getElementById("tree");
  replace(tree);
  document.getElementById("show-entries").classList.toggle("chosen", mode === "entries");
  document.getElementById("show-granted").classList.toggle("chosen", mode === "granted");
  document.getElementById("tree-hint").textContent = mode === "entries"
    ? "The highest memories you may read."
    : "Where your privileges start or change.";
  await page(tree, mode === "granted" ? { granted: true } : {});
}

export function markSelected(memoryId) {
  for (const row of document.querySelectorAll("#tree .node")) row.classList.toggle("selected", row.dataset.memoryId === memoryId);
}
