"""References: resolved by record id on write, judged with the reader's privileges on read."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from provider import access
from provider.errors import MemoryInvalidError
from provider.models import Caller, ReadRecord, RecordDraft, RecordVersion
from provider.services.records.ports import RecordStorage
from provider.services.tree.memories import TreeService


class ReferenceResolver:
    """Writing a reference needs no read on its target; reading one does."""

    def __init__(self, tree: TreeService, records: RecordStorage):
        self.tree = tree
        self.records = records

    async def for_write(
        self, refs: list[dict[str, Any]], known: Mapping[str, str] | None = None
    ) -> list[dict[str, Any]]:
        """Fills in each target's memory from its record id (None for a record that does not exist).

        `known` holds locations a batch writer looked up once for all its records.
        """
        if not refs:
            return []
        located = dict(known or {})
        missing = sorted({r["record_id"] for r in refs} - set(located))
        if missing:
            located.update(await self.records.locate(missing))
        # A target that does not exist is kept by id, as one the writer cannot read is: see access.py.
        return [
            {"rel": ref["rel"], "memory_id": located.get(ref["record_id"]), "record_id": ref["record_id"]}
            for ref in refs
        ]

    async def locate_all(self, drafts: list[RecordDraft]) -> dict[str, str]:
        """Where every record any of these drafts references lives, in one round trip."""
        wanted = {ref["record_id"] for draft in drafts for ref in draft.references}
        return await self.records.locate(sorted(wanted)) if wanted else {}

    async def readable(self, caller: Caller, memory_ids: set[str | None]) -> set[str]:
        """Which of these memories the caller may read."""
        known = sorted(m for m in memory_ids if m is not None)
        if not known:
            return set()
        views = await self.tree.views(caller, known)
        return {v.node.id for v in views if "read" in v.privileges}

    async def for_reads(
        self, caller: Caller, versions: list[RecordVersion], readable_already: frozenset[str] = frozenset()
    ) -> list[ReadRecord]:
        """Each version with references a reader may follow, and bare unavailable ids for the rest.

        `readable_already` holds memories the caller's access was judged on in this request (a recall's
        scope): a target there needs no second look, so most recalls ask nothing more.
        """
        located = await self._where_now([r for v in versions for r in v.references])
        now = [[_as_now(r, located) for r in v.references] for v in versions]
        targets = {r["memory_id"] for refs in now for r in refs}
        readable = set(readable_already & targets) | await self.readable(caller, targets - readable_already)
        return [
            ReadRecord(version=v, references=[access.shown_reference(r, readable) for r in refs])
            for v, refs in zip(versions, now, strict=True)
        ]

    async def _where_now(self, refs: list[dict[str, Any]]) -> dict[str, str]:
        """Where each referenced record lives now.

        A reference is judged on its target as it is when read (written before its target, or its
        target erased since), not as it was when written.
        """
        wanted = sorted({r["record_id"] for r in refs})
        return await self.records.locate(wanted) if wanted else {}

    async def keep_unseen(
        self, caller: Caller, old: list[dict[str, Any]], asked: list[dict[str, Any]]
    ) -> list[dict[str, Any]]:
        """A reviser cannot restate or remove a reference it was shown as unavailable: those stay."""
        located = await self._where_now(old)
        old = [_as_now(r, located) for r in old]
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


def _as_now(ref: dict[str, Any], located: Mapping[str, str]) -> dict[str, Any]:
    """The reference with its target's memory as it is now (None: no such record now)."""
    return {**ref, "memory_id": located.get(ref["record_id"])}
