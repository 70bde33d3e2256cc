// The one way the page talks to the service: the same /v1 routes any client uses, with the key of
// this tab as a bearer token. Errors become sentences built from the chapter's error envelope.

const KEY = "uhp-memory.explorer.key";

export class ApiError extends Error {
  constructor(status, code, message, param) {
    super(message);
    this.status = status;
    this.code = code;
    this.param = param;
  }

  sentence() {
    const where = this.param ? ` (${this.param})` : "";
    return `${this.message}${where} [${this.code || this.status}]`;
  }
}

export const session = {
  get key() { return sessionStorage.getItem(KEY); },
  set key(value) { if (value) sessionStorage.setItem(KEY, value); else sessionStorage.removeItem(KEY); },
};

// Relative to the page at .../explorer/, so a proxy's mount point is kept.
const BASE = new URL("../", document.baseURI);

function url(path, query) {
  const target = new URL(path.replace(/^\//, ""), BASE);
  for (const [name, value] of Object.entries(query || {})) {
    if (value !== undefined && value !== null && value !== "") target.searchParams.set(name, String(value));
  }
  return target;
}

async function send(method, path, { query, body, accept } = {}) {
  const headers = { Authorization: `Bearer ${session.key}` };
  if (accept) headers.Accept = accept;
  if (body !== undefined) headers["Content-Type"] = "application/json";
  let response;
  try {
    response = await fetch(url(path, query), { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  } catch (e) {
    throw new ApiError(0, "unreachable", "The service did not answer; is it running?");
  }
  if (response.status === 401) window.dispatchEvent(new CustomEvent("explorer:signed-out"));
  if (!response.ok) {
    let error = {};
    try { error = (await response.json()).error || {}; } catch (e) { /* not JSON */ }
    throw new ApiError(response.status, error.code, error.message || `The service answered ${response.status}.`, error.param);
  }
  return response;
}

export async function call(method, path, options) {
  const response = await send(method, path, options);
  return response.status === 204 ? null : response.json();
}

export async function bytes(path) {
  const response = await send("GET", path);
  return response.blob();
}

// A POST whose answer is a download (rows as CSV or NDJSON): the blob, and the headers beside it.
export async function download(path, body, accept) {
  const response = await send("POST", path, { body, accept });
  return { blob: await response.blob(), headers: response.headers };
}

const enc = encodeURIComponent;
export const paths = {
  memories: () => "/v1/memories",
  memory: (id) => `/v1/memories/${enc(id)}`,
  records: (id) => `/v1/memories/${enc(id)}/records`,
  record: (id, rid) => `/v1/memories/${enc(id)}/records/${enc(rid)}`,
  history: (id, rid) => `/v1/memories/${enc(id)}/records/${enc(rid)}/history`,
  part: (id, rid, index) => `/v1/memories/${enc(id)}/records/${enc(rid)}/content/${index}`,
  recall: (id) => `/v1/memories/${enc(id)}/recall`,
  graph: (id) => `/v1/memories/${enc(id)}/graph`,
  query: (id) => `/v1/memories/${enc(id)}/query`,
  queries: (id) => `/v1/memories/${enc(id)}/queries`,
  named: (id, name) => `/v1/memories/${enc(id)}/queries/${enc(name)}`,
};
