"""A query's answer as CSV or NDJSON, for analysts who download rows (HTTP `Accept`, the CLI's `--format`).

Each line is made as it is sent, so an answer at the answer bound is never held twice as text. A value
that is not a scalar (a node, a list, a map) goes into its cell as JSON. A records answer (every value a
Record node) becomes one row per record: its id, memory, type, status, version, title and text. What the
JSON answer carries beside the rows travels in headers: `UHP-Trust: untrusted` (the rows are data others
wrote), the data's version and instant, and what `degraded` says.
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Iterator
from typing import Any

from provider.protocol.answers.queries import QueryRecordsOut, QueryRowsOut

CSV = "text/csv"
NDJSON = "application/x-ndjson"
RECORD_COLUMNS = ("id", "memory_id", "type", "status", "version", "title", "text")


def chosen(accept: str | None) -> str | None:
    """The tabular type an `Accept` header asks for first, or None for the JSON answer."""
    for part in (accept or "").split(","):
        kind = part.split(";")[0].strip().lower()
        if kind in (CSV, NDJSON):
            return kind
        if kind in ("application/json", "*/*"):
            return None
    return None


def table_of(answer: QueryRowsOut | QueryRecordsOut) -> tuple[list[str], list[list[Any]]]:
    """The answer's columns and rows; a records answer as one row per record."""
    if isinstance(answer, QueryRowsOut):
        return answer.columns, answer.rows
    rows = []
    for hit in answer.results:
        record = hit.record.model_dump(mode="json")
        text = " ".join(p.get("text", "") for p in record.get("content") or [] if isinstance(p, dict))
        rows.append([
            record.get("id"), record.get("memory_id"), record.get("type"), record.get("status"),
            record.get("version"), record.get("title"), text,
        ])  # fmt: skip
    return list(RECORD_COLUMNS), rows


def csv_lines(columns: list[str], rows: list[list[Any]]) -> Iterator[str]:
    """A header line, then one line per row."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    for row in [columns, *rows]:
        writer.writerow([_cell(value) for value in row])
        yield buffer.getvalue()
        buffer.seek(0)
        buffer.truncate()


def ndjson_lines(columns: list[str], rows: list[list[Any]]) -> Iterator[str]:
    """One JSON object per row, keyed by column."""
    for row in rows:
        yield json.dumps(dict(zip(columns, row, strict=False)), ensure_ascii=False) + "\n"


def headers_of(answer: QueryRowsOut | QueryRecordsOut) -> dict[str, str]:
    """What the JSON answer says beside its rows."""
    found = {"UHP-Trust": "untrusted"}
    if answer.data is not None:
        found |= {"UHP-Data-Version": answer.data.version, "UHP-Data-As-Of": answer.data.as_of}
        found["UHP-Data-Stale-Ms"] = str(answer.data.stale_ms)
    if answer.degraded:
        found["UHP-Degraded"] = ",".join(answer.degraded)
    return found


def _cell(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    if isinstance(value, bool | int | float):
        return json.dumps(value)
    return json.dumps(value, ensure_ascii=False, sort_keys=True)
