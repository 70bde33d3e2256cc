"""How a copy is written into a sandbox: whole (in a fixed order), by difference, and the boot warm-up.

A whole load writes memories, their tree, records (by memory, then id), stubs, then references, so
the same copy always gets the same internal ids and the same order in unordered answers. A newer
copy of the scope a sandbox already holds (a write happened) is written by difference: records
removed, changed and added, references of the records whose references changed, stubs; that costs
a few statements where a reload costs the whole scope twice (delete, then write).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from itertools import groupby
from typing import Any

from provider.store.projection import Projection, Reference

Write = Callable[[str, dict[str, Any]], Awaitable[None]]
LOAD_BATCH = 2000
# Past this share of the records changed, a reload is as cheap as the difference and simpler.
DIFFERENCE_SHARE = 0.5


async def _batched(write: Write, name: str, rows: list[Any], key: str = "rows", **fixed: Any) -> None:
    for start in range(0, len(rows), LOAD_BATCH):
        await write(name, {key: rows[start : start + LOAD_BATCH], **fixed})


async def _records(write: Write, records: list[dict[str, Any]]) -> None:
    """Records, each IN its memory, one memory at a time (the list is ordered by memory)."""
    for memory_id, group in groupby(records, key=lambda r: str(r["memory_id"])):
        await _batched(write, "sandbox_load_records", list(group), memory_id=memory_id)


async def _references(write: Write, references: list[Reference], stubs: set[str]) -> None:
    inner = [_edge(r) for r in references if r.target not in stubs]
    await _batched(write, "sandbox_link_references", inner)
    await _batched(write, "sandbox_link_stubs", [_edge(r) for r in references if r.target in stubs])


async def write_copy(write: Write, projection: Projection) -> None:
    """The whole copy, into an empty sandbox."""
    await _batched(write, "sandbox_load_memories", projection.memories)
    await _batched(write, "sandbox_link_memories", _tree(projection))
    await _records(write, projection.records)
    await _batched(write, "sandbox_load_stubs", projection.stubs, key="ids")
    await _references(write, projection.references, set(projection.stubs))


@dataclass
class Difference:
    """What turns the held copy into the newer one."""

    removed: list[str] = field(default_factory=list)
    changed: list[dict[str, Any]] = field(default_factory=list)
    added: list[dict[str, Any]] = field(default_factory=list)
    relinked: list[str] = field(default_factory=list)
    references: list[Reference] = field(default_factory=list)
    stubs_added: list[str] = field(default_factory=list)
    stubs_removed: list[str] = field(default_factory=list)
    memories: list[dict[str, Any]] = field(default_factory=list)
    tree_changed: bool = False


def difference(held: Projection, new: Projection) -> Difference | None:
    """The difference, or None when a reload is the better way (other memories, or most records)."""
    if [m["id"] for m in held.memories] != [m["id"] for m in new.memories]:
        return None
    old = {r["id"]: r for r in held.records}
    now = {r["id"]: r for r in new.records}
    diff = Difference(
        removed=sorted(old.keys() - now.keys()),
        changed=[r for r in new.records if r["id"] in old and old[r["id"]] != r],
        added=[r for r in new.records if r["id"] not in old],
    )
    if len(diff.removed) + len(diff.changed) + len(diff.added) > DIFFERENCE_SHARE * max(len(now), 1):
        return None
    before, after = _by_source(held.references), _by_source(new.references)
    diff.relinked = sorted(s for s in old.keys() & now.keys() if before.get(s, []) != after.get(s, []))
    rewritten = set(diff.relinked) | {r["id"] for r in diff.added}
    diff.references = [r for r in new.references if r.source in rewritten]
    diff.stubs_added = sorted(set(new.stubs) - set(held.stubs))
    diff.stubs_removed = sorted(set(held.stubs) - set(new.stubs))
    diff.memories = [m for m, was in zip(new.memories, held.memories, strict=True) if m != was]
    diff.tree_changed = _tree(new) != _tree(held)
    return diff


async def write_difference(write: Write, diff: Difference, new: Projection) -> None:
    """Applies a difference: deletions first, then changes, additions, stubs and references."""
    await _batched(write, "sandbox_delete_records", diff.removed, key="ids")
    await _batched(write, "sandbox_update_records", diff.changed)
    await _records(write, diff.added)
    await _batched(write, "sandbox_load_stubs", diff.stubs_added, key="ids")
    await _batched(write, "sandbox_unlink_references", diff.relinked, key="ids")
    await _references(write, diff.references, set(new.stubs))
    await _batched(write, "sandbox_delete_stubs", diff.stubs_removed, key="ids")
    await _batched(write, "sandbox_update_memories", diff.memories)
    if diff.tree_changed:
        await write("sandbox_unlink_memories", {})
        await _batched(write, "sandbox_link_memories", _tree(new))


def _by_source(references: list[Reference]) -> dict[str, list[Reference]]:
    found: dict[str, list[Reference]] = {}
    for ref in references:
        found.setdefault(ref.source, []).append(ref)
    return found


def _tree(projection: Projection) -> list[dict[str, Any]]:
    return [{"id": m["id"], "parent_id": m["parent_id"]} for m in projection.memories if m.get("parent_id")]


def _edge(ref: Reference) -> dict[str, Any]:
    return {"from": ref.source, "to": ref.target, "rel": ref.rel, "position": ref.position}


WARM_UP_RECORDS = 2000
WARM_UP_READS = (
    "MATCH (r:Record) WHERE r.version = $value RETURN r.type AS type, count(*) AS n ORDER BY type",
    "MATCH (r:Record)-[:REFERENCES]->(t) RETURN r.title AS a, labels(t) AS b LIMIT 10",
    "MATCH (r:Record)-[:IN]->(m:Memory) RETURN m.name AS m, collect(r.id)[0..3] AS ids",
)


def warm_up_projection(records: int = WARM_UP_RECORDS) -> Projection:
    """Synthetic records with every field a copy carries (no attributes: their names vary)."""
    projection = Projection(memories=[{"id": "hmem_warm", "name": "w", "description": "", "created_at": 0}])
    projection.memories.append({"id": "hmem_warm2", "name": "w", "description": "", "parent_id": "hmem_warm"})
    fields = ("type", "title", "text", "status", "writer_type", "written_by")
    for i in range(records):
        props: dict[str, Any] = {name: f"{name} {i}" for name in fields}
        props |= {"id": f"hrec_warm{i:06d}", "memory_id": "hmem_warm", "version": 1}
        props |= {n: i for n in ("created_at", "updated_at", "written_at", "valid_from_ms", "valid_to_ms")}
        props |= {"valid_from": "2026-01-01", "valid_to": "2026-12-31"}
        projection.records.append(props)
        if i % 10 == 9:
            projection.references.append(Reference(props["id"], f"hrec_warm{i - 1:06d}", "about", 0))
    projection.references.append(Reference("hrec_warm000000", "hrec_gone", "about", 1))
    projection.stubs = ["hrec_gone"]
    return projection
