"""Wire shapes of queries: `MemoryQuery`, `MemoryQueryList`, and a query's rows when they are not records."""

from __future__ import annotations

from typing import Any


def named_query_json(
    *,
    memory_id: str,
    name: str,
    description: str,
    params: dict[str, Any],
    requires: str,
    language: str,
    body: str,
    updated_at: int | None,
) -> dict[str, Any]:
    """`MemoryQuery`: the definition as stored, with the memory it belongs to."""
    return {
        "object": "memory.query",
        "memory_id": memory_id,
        "name": name,
        "description": description,
        "params": params,
        "requires": requires,
        "language": language,
        "body": body,
        "updated_at": updated_at,
    }


def rows_json(columns: list[str], rows: list[list[Any]], degraded: list[str]) -> dict[str, Any]:
    """The provider's own rows (`memory.query.result`): column names, one list of values per row."""
    return {"object": "memory.query.result", "columns": columns, "rows": rows, "degraded": degraded}
