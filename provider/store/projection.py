"""The caller's readable projection, read from the main database for the query sandbox to hold."""

from __future__ import annotations

from typing import Any

from provider.ids import now_ms
from provider.models import Projection, Reference, ScopeVersion
from provider.store.driver import Neo4jStore, Row

FIELDS = (
    "id", "memory_id", "type", "title", "text", "status", "version", "created_at", "updated_at", "written_at",
    "valid_from", "valid_to", "valid_from_ms", "valid_to_ms", "writer_kind", "writer_id", "writer_type",
)  # fmt: skip


def _record_props(row: list[Any]) -> dict[str, Any]:
    """The Record node's properties in the copy: the fields, the writer, the attributes; no nulls."""
    props: dict[str, Any] = dict(zip(FIELDS, row, strict=False))
    kind, writer_id = props.pop("writer_kind", None), props.pop("writer_id", None)
    props["written_by"] = f"{kind}:{writer_id}" if kind and writer_id else None
    props.update({name: value for name, value in row[len(FIELDS)]})
    return {key: value for key, value in props.items() if value is not None}


class Neo4jProjectionStore:
    """Reads a scope's data version and its copy; every statement takes the scope access computed."""

    def __init__(self, store: Neo4jStore):
        self.store = store

    async def version(self, scope: list[str]) -> ScopeVersion:
        """The scope's data version, memory by memory: O(memories), whatever the scope holds."""
        rows = await self.store.read("projection_version", scope=scope)
        return ScopeVersion(
            memory_ids=tuple(str(r["id"]) for r in rows),
            seqs=tuple(int(r["seq"]) for r in rows),
            shape=tuple((int(r["epoch"]), int(r["updated_at"])) for r in rows),
            records=sum(int(r["records"]) for r in rows),
            read_at=now_ms(),
        )

    async def changed(self, since: dict[str, int]) -> Projection:
        """The records of the memories in `since` stamped past the change_seq given for each.

        With their references (a target outside those memories is a stub); no memories.
        """
        rows = [{"memory_id": memory_id, "seq": seq} for memory_id, seq in sorted(since.items())]
        found = (await self.store.read_values("projection_changed", since=rows))[0][0]
        return _records_into(Projection(), found, set(since))

    async def read(self, scope: list[str]) -> Projection:
        """The memories, records, references and stubs of the scope."""
        inside = set(scope)
        projection = Projection()
        for row in await self.store.read("projection_memories", scope=scope):
            parent = row["parent_id"] if row["parent_id"] in inside else None
            projection.memories.append({**row, "parent_id": parent} if parent else _without_parent(row))
        found = (await self.store.read_values("projection_records", scope=scope))[0][0]
        return _records_into(projection, found, inside)


def _records_into(projection: Projection, found: list[list[Any]], inside: set[str]) -> Projection:
    """Adds the records' rows (by memory, then id), their references, and a stub for each target outside."""
    stubs: set[str] = set()
    for row in sorted(found, key=lambda r: (str(r[1]), str(r[0]))):
        projection.records.append(_record_props(row))
        for rel, position, target, target_memory in sorted(row[-1], key=lambda r: (r[1], r[2])):
            projection.references.append(Reference(row[0], target, rel, position))
            if target_memory not in inside:
                stubs.add(target)
    projection.stubs = sorted(stubs)
    return projection


def _without_parent(row: Row) -> dict[str, Any]:
    return {key: value for key, value in row.items() if key != "parent_id"}
