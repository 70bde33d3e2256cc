"""References: resolved by record id on write, judged with the reader's privileges on read."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from provider.errors import MemoryInvalidError
from provider.models import Caller, ReadRecord, RecordVersion
from provider.services.tree import TreeService
from provider.store.records import Neo4jRecordStore


class ReferenceResolver:
    """Writing a reference needs no read on its target; reading one does."""

    def __init__(self, tree: TreeService, records: Neo4jRecordStore):
        self.tree = tree
        self.records = records

    async def for_write(
        self, refs: list[dict[str, Any]], known: Mapping[str, str] | None = None
    ) -> list[dict[str, Any]]:
        """Fills in each target's memory from its record id; an unknown record is refused.

        `known` holds locations a batch writer looked up once for all its records.
        """
        if not refs:
            return []
        located = dict(known or {})
        missing = sorted({r["record_id"] for r in refs} - set(located))
        if missing:
            located.update(await self.records.locate(missing))
        resolved = []
        for i, ref in enumerate(refs):
            memory_id = located.get(ref["record_id"])
            if memory_id is None:
                raise MemoryInvalidError(
                    "A reference names a record that does not exist.", param=f"references.{i}.record_id"
                )
            resolved.append({"rel": ref["rel"], "memory_id": memory_id, "record_id": ref["record_id"]})
        return resolved

    async def locate_all(self, bodies: list[dict[str, Any]]) -> dict[str, str]:
        """Where every record any of these bodies references lives, in one round trip."""
        wanted = {
            ref["record_id"]
            for body in bodies
            if isinstance(body, dict) and isinstance(body.get("references"), list)
            for ref in body["references"]
            if isinstance(ref, dict) and isinstance(ref.get("record_id"), str)
        }
        return await self.records.locate(sorted(wanted)) if wanted else {}

    async def readable(self, caller: Caller, memory_ids: set[str]) -> set[str]:
        """Which of these memories the caller may read."""
        if not memory_ids:
            return set()
        views = await self.tree.views(caller, sorted(memory_ids))
        return {v.node.id for v in views if "read" in v.privileges}

    async def for_reads(self, caller: Caller, versions: list[RecordVersion]) -> list[ReadRecord]:
        """Each version with references a reader may follow, and bare unavailable ids for the rest."""
        targets = {r["memory_id"] for v in versions for r in v.references}
        readable = await self.readable(caller, targets)
        return [
            ReadRecord(version=v, references=[_shown(r, readable) for r in v.references]) for v in versions
        ]

    async def keep_unseen(
        self, caller: Caller, old: list[dict[str, Any]], asked: list[dict[str, Any]]
    ) -> list[dict[str, Any]]:
        """A reviser cannot restate or remove a reference it was shown as unavailable: those stay."""
        readable = await self.readable(
            caller, {r["memory_id"] for r in old} | {r["memory_id"] for r in asked}
        )
        unseen = [r for r in old if r["memory_id"] not in readable]
        # Matched by record id alone: a reviser echoing the bare {record_id, available: false} it was
        # shown (rel defaulted) must not add a second reference to a target it cannot see.
        unseen_ids = {r["record_id"] for r in unseen}
        kept = [r for r in asked if r["record_id"] not in unseen_ids]
        merged = kept + unseen
        for rel in ("subject", "object"):
            if sum(1 for r in merged if r["rel"] == rel) > 1:
                raise MemoryInvalidError(f"A record names at most one {rel}.", param="references")
        return merged


def _shown(ref: dict[str, Any], readable: set[str]) -> dict[str, Any]:
    if ref["memory_id"] in readable:
        return {
            "rel": ref["rel"],
            "memory_id": ref["memory_id"],
            "record_id": ref["record_id"],
            "available": True,
        }
    return {"record_id": ref["record_id"], "available": False}
