"""The caller's readable projection, read from the main database for the query sandbox to hold."""

from __future__ import annotations

from typing import Any

from provider.ids import now_ms
from provider.models import CopiedReference, Projection, ProjectionPage, ScopeVersion
from provider.store.driver import Neo4jStore, Row

PageKey = int  # a page holds records made after this instant (created_at)
FIRST_PAGE: PageKey = -1
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

    async def memories(self, scope: list[str]) -> list[dict[str, Any]]:
        """The scope's memories as the copy holds them, by id; a parent outside the scope is left out."""
        inside = set(scope)
        found: list[dict[str, Any]] = []
        for row in await self.store.read("projection_memories", scope=scope):
            parent = row["parent_id"] if row["parent_id"] in inside else None
            found.append({**row, "parent_id": parent} if parent else _without_parent(row))
        return found

    async def records_page(
        self, memory_id: str, inside: frozenset[str], after: PageKey, limit: int
    ) -> ProjectionPage:
        """About `limit` of the memory's records made after `after`, and where the next page starts.

        With their references and a stub for each target outside `inside`. Records sharing the page's
        last instant go to the next page whole; a page that is all one instant is read whole. The
        next key is None after the last page.
        """
        rows = await self.store.read_values(
            "projection_records_page", memory_id=memory_id, after_at=after, limit=limit
        )
        following: PageKey | None = None
        if len(rows) == limit:
            last = int(rows[-1][0])
            kept = [row for row in rows if int(row[0]) != last]
            if kept:
                rows, following = kept, int(kept[-1][0])
            else:
                rows = await self.store.read_values("projection_records_at", memory_id=memory_id, at=last)
                following = last
        page = _records_into(Projection(), [row for _, row in rows], set(inside), ordered=False)
        return ProjectionPage(page, following)

    async def read(self, scope: list[str]) -> Projection:
        """The memories, records, references and stubs of the scope, whole (tests compare copies by it)."""
        projection = Projection(memories=await self.memories(scope))
        inside = frozenset(scope)
        for memory_id in sorted(scope):
            after: PageKey | None = FIRST_PAGE
            while after is not None:
                page, after = await self.records_page(memory_id, inside, after, 5000)
                projection.records += page.records
                projection.references += page.references
                projection.stubs = sorted(set(projection.stubs) | set(page.stubs))
        return projection


def _records_into(
    projection: Projection, found: list[list[Any]], inside: set[str], *, ordered: bool = True
) -> Projection:
    """Adds the records' rows, their references, and a stub for each target outside.

    By memory, then id, unless `ordered` is false: then as they come.
    """
    stubs: set[str] = set()
    for row in sorted(found, key=lambda r: (str(r[1]), str(r[0]))) if ordered else found:
        projection.records.append(_record_props(row))
        for rel, position, target, target_memory in sorted(row[-1], key=lambda r: (r[1], r[2])):
            projection.references.append(CopiedReference(row[0], target, rel, position))
            if target_memory not in inside:
                stubs.add(target)
    projection.stubs = sorted(stubs)
    return projection


def _without_parent(row: Row) -> dict[str, Any]:
    return {key: value for key, value in row.items() if key != "parent_id"}
