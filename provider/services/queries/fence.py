"""The fence around a query's rows: which values are whole records, and who wrote them.

Rows are plain JSON by the time they leave the sandbox, and a statement can build any JSON it
likes (`RETURN {labels: ['Record'], properties: {written_by: 'member:…', text: '…'}}`), so a
value is never believed for what it says about itself. A value counts as a record only when it
matches the copy: a node equal to the copy's Record node with that id, or a map naming a record's
`id` whose every other entry is that record's own property, with the same value. Those values'
writers (from the copy, which took them from the main store) are the row's `written_by`; anything
the statement computed (`r.text`, a literal, a concatenation) names no writer. Every row is
untrusted whatever it names.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from provider.models import Writer
from provider.sandbox.load import records_by_id_statement
from provider.sandbox.pool import Sandbox

Record = dict[str, Any]


def _dicts(value: Any) -> Iterator[dict[str, Any]]:
    """Every map inside a value (paths, lists, nested maps); a node's own properties are not entered."""
    stack = [value]
    while stack:
        node = stack.pop()
        if isinstance(node, list):
            stack.extend(reversed(node))
        elif isinstance(node, dict):
            yield node
            if not _node_shaped(node):
                stack.extend(reversed(list(node.values())))


def _node_shaped(value: dict[str, Any]) -> bool:
    return value.keys() == {"labels", "properties"} and isinstance(value["properties"], dict)


def _claimed_id(value: dict[str, Any]) -> str | None:
    """The record id a value names, if it looks like a record (node or map); believed only once checked."""
    if _node_shaped(value):
        if "Record" not in value["labels"]:
            return None
        value = value["properties"]
    named = value.get("id")
    return named if isinstance(named, str) else None


def claimed_ids(rows: list[list[Any]]) -> list[str]:
    """Ids the rows' values claim to be records of, each once, in order."""
    return list(dict.fromkeys(i for row in rows for d in _dicts(row) if (i := _claimed_id(d)) is not None))


def _matches(value: dict[str, Any], record: Record) -> bool:
    if _node_shaped(value):
        return value == record
    properties = record["properties"]
    return all(key in properties and properties[key] == v for key, v in value.items())


def _writer(record: Record) -> Writer | None:
    properties = record["properties"]
    kind, _, who = str(properties.get("written_by") or "").partition(":")
    if not kind or not who:
        return None
    return Writer(kind=kind, id=who, type=properties.get("writer_type"))


def row_writers(row: list[Any], records: dict[str, Record]) -> list[Writer]:
    """The writers of the records a row carries, each once, in the order the row names them."""
    found: dict[Writer, None] = {}
    for value in _dicts(row):
        named = _claimed_id(value)
        record = records.get(named) if named is not None else None
        if record is not None and _matches(value, record) and (writer := _writer(record)) is not None:
            found[writer] = None
    return list(found)


async def written_by(sandbox: Sandbox, rows: list[list[Any]], timeout_ms: int) -> list[list[Writer]] | None:
    """Per row, who wrote its records, read from the copy the rows came from; None when that timed out."""
    wanted = claimed_ids(rows)
    if not wanted:
        return [[] for _ in rows]
    found = await sandbox.run(
        records_by_id_statement(), {"ids": wanted}, timeout_ms=timeout_ms, row_cap=len(wanted)
    )
    if found.timed_out:
        return None
    records = {r[0]["properties"]["id"]: r[0] for r in found.rows}
    return [row_writers(row, records) for row in rows]
