"""`python -m provider query`: an analyst's Cypher over HTTP, printed as a table (or the JSON answer).

    export UHP_URL=http://127.0.0.1:8080 UHP_API_KEY=<a member's key>
    python -m provider query --memory hmem_… "MATCH (r:Record) RETURN r.type AS type, count(*) AS n"
    python -m provider query --memory hmem_… --param type=fact 'MATCH (r:Record {type: $type}) RETURN r'
    python -m provider query --memory hmem_… --json 'MATCH (m:Memory) RETURN m.name AS name'
    python -m provider query --memory hmem_… --named open_deals --param account=acme

The statement runs in the provider's query sandbox, confined to what the key's member may read below
the memory (docs/QUERIES.md has the sandbox's schema). It calls the service through the typed client
(`provider.client`), as any program of a user's would.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from typing import Any

import httpx

from provider.client import MemoryClient, UhpError
from provider.protocol.answers import tabular
from provider.protocol.answers.queries import QueryRecordsOut, QueryRowsOut

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
    parser.add_argument(
        "--format",
        choices=("table", "json", "csv", "ndjson"),
        default="table",
        help="how the answer is printed: a table (the default), the JSON answer, or its rows as CSV, NDJSON",
    )
    parser.add_argument("--json", action="store_true", help="the same as --format json")
    parser.add_argument(
        "--max-staleness-ms", type=int, help="accept data this old, answered at once from a held copy"
    )
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


def connect(url: str, key: str) -> MemoryClient:
    """The client the command calls the service with (the tests hand it one into the app)."""
    return MemoryClient(url.rstrip("/"), key, timeout=60)


def _ask(args: argparse.Namespace, key: str, params: dict[str, Any]) -> QueryRowsOut | QueryRecordsOut:
    with connect(args.url, key) as service:
        if args.named:
            return service.run_query(args.memory, args.named, params=params)
        return service.free_query(
            args.memory,
            args.statement,
            params=params,
            depth=args.depth,
            max_staleness_ms=args.max_staleness_ms,
        )


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
        asked = _ask(args, key, _params(args.param))
        answer = asked.wire()
    except UhpError as e:
        print(f"query: {e.status} {e.code}: {e.message}", file=sys.stderr)
        return 1
    except (ValueError, OSError, httpx.HTTPError) as e:
        print(f"query: {e}", file=sys.stderr)
        return 2
    shape = "json" if args.json else args.format
    if shape in ("csv", "ndjson"):
        columns, rows = tabular.table_of(asked)
        lines = tabular.csv_lines if shape == "csv" else tabular.ndjson_lines
        for line in lines(columns, rows):
            sys.stdout.write(line)
        return 0
    print(json.dumps(answer, indent=2, ensure_ascii=False) if shape == "json" else render(answer))
    return 0
