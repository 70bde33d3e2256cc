// What the page is looking at, kept in the URL fragment so a link to a memory or a record can be
// followed, shared within the tab, and walked back with the browser's back button.

import { call, paths } from "./api.js";

const views = new Map(); // memory id -> the memory as this caller last saw it

export async function memoryView(id, { fresh = false } = {}) {
  if (fresh || !views.has(id)) views.set(id, await call("GET", paths.memory(id)));
  return views.get(id);
}

export function remember(memory) {
  views.set(memory.id, memory);
}

export function forgetViews() {
  views.clear();
}

export function may(memory, privilege) {
  return Boolean(memory && (memory.privileges || []).includes(privilege));
}

export function place() {
  const params = new URLSearchParams(location.hash.slice(1));
  return { memory: params.get("memory"), record: params.get("record"), in: params.get("in"), tab: params.get("tab") };
}

export function link(target) {
  const params = new URLSearchParams();
  const current = place();
  const next = { ...current, ...target };
  for (const key of ["memory", "tab", "in", "record"]) if (next[key]) params.set(key, next[key]);
  return `#${params.toString()}`;
}

export function go(target) {
  const next = link(target);
  if (next !== location.hash) location.hash = next;
  else window.dispatchEvent(new HashChangeEvent("hashchange"));
}
