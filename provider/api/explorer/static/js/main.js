// Sign-in, tabs and navigation: the fragment says which memory, tab and record are shown.

import { call, paths, session } from "./api.js";
import { el, replace, status } from "./dom.js";
import { showCypher } from "./cypher.js";
import { showGraph } from "./graph.js";
import { showRecord } from "./record.js";
import { showRecords } from "./records.js";
import { showSearch } from "./search.js";
import { forgetViews, go, memoryView, place } from "./state.js";
import { loadTree, markSelected } from "./tree.js";

const TABS = ["records", "search", "graph", "cypher"];
let shown = { memory: null, tab: null, record: null, in: null };

function signedOut(message) {
  session.key = null;
  forgetViews();
  document.getElementById("app").hidden = true;
  document.getElementById("sign-out").hidden = true;
  document.getElementById("sign-in").hidden = false;
  document.getElementById("sign-in-error").textContent = message || "";
  document.getElementById("whoami").textContent = "";
  shown = { memory: null, tab: null, record: null, in: null };
}

async function signIn(key) {
  session.key = key;
  try {
    await call("GET", paths.memories(), { query: { limit: 1 } });
  } catch (e) {
    signedOut(e.status === 401 ? "That key is not accepted here." : e.sentence());
    return;
  }
  document.getElementById("sign-in").hidden = true;
  document.getElementById("app").hidden = false;
  document.getElementById("sign-out").hidden = false;
  document.getElementById("whoami").textContent = "signed in (this tab only)";
  await loadTree("entries");
  await navigate();
}

function placeCard(memory) {
  return [
    el("h2", { text: memory.name, testid: "place-name" }),
    memory.description ? el("p", { text: memory.description }) : null,
    el("div", { class: "small muted", testid: "place-facts" },
      `${memory.records?.count ?? "?"} records · ${memory.children?.count ?? "?"} children · your privileges: ${(memory.privileges || []).join(", ") || "none"}`,
      memory.restricted ? el("span", { class: "badge restricted", text: "restricted" }) : null),
    el("div", { class: "small muted", text: `id ${memory.id}` }),
  ];
}

async function navigate() {
  const next = place();
  const tab = TABS.includes(next.tab) ? next.tab : "records";
  for (const name of TABS) {
    document.getElementById(`tab-${name}`).hidden = name !== tab;
    document.querySelector(`#tabs [data-tab=${name}]`).classList.toggle("chosen", name === tab);
  }
  const memoryChanged = next.memory !== shown.memory;
  const tabChanged = tab !== shown.tab;
  shown = { ...next, tab };
  if (next.memory && (memoryChanged || tabChanged)) {
    let memory;
    try {
      memory = await memoryView(next.memory, { fresh: memoryChanged });
    } catch (e) {
      replace(document.getElementById("place"), el("p", { class: "error", role: "alert", testid: "place-error", text: e.sentence ? e.sentence() : String(e) }));
      for (const name of TABS) replace(document.getElementById(`tab-${name}`));
      return;
    }
    markSelected(memory.id);
    replace(document.getElementById("place"), ...placeCard(memory));
    if (tab === "records") await showRecords(memory);
    if (tab === "search") showSearch(memory);
    if (tab === "graph") showGraph(memory, next.record);
    if (tab === "cypher") await showCypher(memory);
  }
  if (next.record && next.in) await showRecord(next.in, next.record);
  status("");
}

window.addEventListener("hashchange", () => { if (session.key) navigate(); });
window.addEventListener("explorer:signed-out", () => signedOut("The key was refused; sign in again."));
document.getElementById("sign-in-form").addEventListener("submit", (event) => {
  event.preventDefault();
  const input = document.getElementById("api-key");
  const key = input.value.trim();
  input.value = "";
  if (key) signIn(key);
});
document.getElementById("sign-out").addEventListener("click", () => signedOut("Signed out."));
document.getElementById("show-entries").addEventListener("click", () => loadTree("entries"));
document.getElementById("show-granted").addEventListener("click", () => loadTree("granted"));
for (const button of document.querySelectorAll("#tabs [data-tab]")) {
  button.addEventListener("click", () => go({ tab: button.dataset.tab }));
}

if (session.key) signIn(session.key);
