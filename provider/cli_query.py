"""`python -m provider query`: an analyst's Cypher over HTTP, printed as a table (or the JSON answer).

    export UHP_URL=http://127.0.0.1:8080 UHP_API_KEY=<a member's key>
    python -m provider query --memory hmem_… "MATCH (r:Record) RETURN r.type AS type, count(*) AS n"
    python -m provider query --memory hmem_… --param type=fact 'MATCH (r:Record {type: $type}) RETURN r'
    python -m provider query --memory hmem_… --json 'MATCH (m:Memory) RETURN m.name AS name'
    python -m provider query --memory hmem_… --named open_deals --param account=acme

The statement runs in the provider's query sandbox, confined to what the key's member may read below
the memory (docs/QUERIES.md has the sandbox's schema). Only the standard library is used, so the
command works wherever the package is installed.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import urllib.error
import urllib.request
from typing import Any

CELL = 48


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m provider query", description="Run Cypher in a memory's query sandbox."
    )
    parser.add_argument("statement", nargs="?", help="the Cypher statement (read-only)")
    parser.add_argument("--memory", required=True, help="the memory id the query starts from")
    parser.add_argument("--named", help="run this named query of the memory instead of a statement")
    parser.add_argument(
        "--param", action="append", default=[], metavar="NAME=JSON", help="a parameter; the value is JSON"
    )
    parser.add_argument("--depth", type=int, help="how many levels below the memory to include")
    parser.add_argument("--json", action="store_true", help="print the answer as JSON")
    parser.add_argument("--url", default=os.environ.get("UHP_URL", "http://127.0.0.1:8080"))
    return parser


def _params(pairs: list[str]) -> dict[str, Any]:
    params: dict[str, Any] = {}
    for pair in pairs:
        name, sep, raw = pair.partition("=")
        if not sep or not name:
            raise ValueError(f"--param {pair!r} is not NAME=JSON")
        try:
            params[name] = json.loads(raw)
        except json.JSONDecodeError:
            params[name] = raw  # a bare word is taken as a string
    return params


def _request(args: argparse.Namespace, params: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    base = f"{args.url.rstrip('/')}/v1/memories/{args.memory}"
    if args.named:
        return f"{base}/queries/{args.named}", {"params": params}
    body: dict[str, Any] = {"language": "cypher", "statement": args.statement, "params": params}
    if args.depth is not None:
        body["depth"] = args.depth
    return f"{base}/query", body


def _post(url: str, body: dict[str, Any], key: str) -> tuple[int, dict[str, Any]]:
    request = urllib.request.Request(  # noqa: S310 - the scheme is checked by the caller
        url,
        data=json.dumps(body).encode(),
        method="POST",
        headers={"Authorization": f"Bearer {key}", "Content-Type": "application/json"},
    )
    try:
        with urllib.request.urlopen(request, timeout=60) as response:  # noqa: S310
            return int(response.status), json.loads(response.read().decode())
    except urllib.error.HTTPError as e:
        return e.code, json.loads(e.read().decode() or "{}")


def _cell(value: Any) -> str:
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    text = text.replace("\n", " ")
    return text if len(text) <= CELL else text[: CELL - 1] + "…"


def table(columns: list[str], rows: list[list[str]]) -> str:
    """Columns padded to their widest cell, a rule under the header."""
    widths = [max([len(c), *(len(r[i]) for r in rows)]) for i, c in enumerate(columns)]
    lines = ["  ".join(c.ljust(w) for c, w in zip(columns, widths, strict=True))]
    lines.append("  ".join("-" * w for w in widths))
    lines += ["  ".join(v.ljust(w) for v, w in zip(r, widths, strict=True)) for r in rows]
    return "\n".join(line.rstrip() for line in lines)


def render(answer: dict[str, Any]) -> str:
    """The answer as a table: rows as they came, or one line per record."""
    if "results" in answer:
        columns = ["id", "memory", "type", "title / text"]
        rows = [
            [
                r["record"]["id"],
                r["memory"].get("name") or r["memory"]["id"],
                r["record"]["type"],
                _title(r["record"]),
            ]
            for r in answer["results"]
        ]
    else:
        columns = answer.get("columns") or []
        rows = list(answer.get("rows") or [])
    shown = table(columns, [[_cell(v) for v in row] for row in rows]) if columns else "(no columns)"
    footer = f"{len(rows)} row{'s' if len(rows) != 1 else ''}"
    if answer.get("degraded"):
        footer += "; degraded: " + ", ".join(answer["degraded"])
    return f"{shown}\n{footer}"


def _title(record: dict[str, Any]) -> str:
    texts = [p.get("text", "") for p in record.get("content") or [] if isinstance(p, dict)]
    return str(record.get("title") or " ".join(t for t in texts if t))


def main(argv: list[str]) -> int:
    """Runs one query; the exit status is 0 on an answer, 1 on an error answer, 2 on a usage error."""
    args = _parser().parse_args(argv)
    key = os.environ.get("UHP_API_KEY", "")
    if not key or not args.url.startswith(("http://", "https://")):
        print(
            "query: set UHP_API_KEY to a member's key, and UHP_URL to the service's http(s) URL",
            file=sys.stderr,
        )
        return 2
    if not args.named and not args.statement:
        print("query: give a statement, or --named NAME", file=sys.stderr)
        return 2
    try:
        status, answer = _post(*_request(args, _params(args.param)), key)
    except (ValueError, OSError) as e:
        print(f"query: {e}", file=sys.stderr)
        return 2
    if status != 200:
        error = answer.get("error") or {}
        print(f"query: {status} {error.get('code', '')}: {error.get('message', '')}", file=sys.stderr)
        return 1
    print(json.dumps(answer, indent=2, ensure_ascii=False) if args.json else render(answer))
    return 0
