"""Erase: content removed for good, from the record and from what was derived from it.

The answer lists, honestly, what the provider could not reach.
"""

from __future__ import annotations

from typing import Any

from provider import ids
from provider.errors import RecordNotFoundError
from provider.models import Caller, ErasePlan, Erasure
from provider.services.records.erase_plan import doomed_records
from provider.services.records.files import FileService
from provider.services.records.ports import RecordStorage
from provider.services.records.references import ReferenceResolver
from provider.services.tree.memories import TreeService

# What stays behind after an erase, outside the provider's reach until time passes. Each entry is
# true of this deployment: the local server and the compose file configure both to rotate.
UNREACHABLE = [
    "neo4j:transaction_logs_until_rotation",
    "neo4j:index_segments_until_merge",
    "backups_taken_before_the_erase",
]


class EraseService:
    """Needs delete on the memory; never an agent tool (the tool list leaves it out)."""

    def __init__(
        self,
        tree: TreeService,
        records: RecordStorage,
        files: FileService,
        references: ReferenceResolver,
        *,
        batch_records: int,
    ):
        self.tree = tree
        self.records = records
        self.files = files
        self.references = references
        self.batch_records = batch_records

    def capabilities(self) -> dict[str, Any]:
        """Erase reports what it cannot reach."""
        return {"erase": {"unreachable": "reported", "derived": "erased"}}

    async def erase(self, caller: Caller, memory_id: str, record_ids: list[str]) -> Erasure:
        """Removes every version of the named records and of records derived only from them."""
        await self.tree.require(caller, memory_id, "delete")
        await self._finish_unfinished(memory_id)
        plan = await self.plan(memory_id, sorted(set(record_ids)))
        if plan.missing:
            raise RecordNotFoundError("A record named is not in this memory.", param="record_ids")
        doomed = plan.doomed
        if doomed:
            pending = sorted(doomed)
            erasure_id = await self.records.erase_begin(
                memory_id, sorted(set(record_ids)), pending, ids.now_ms()
            )
            await self._remove(erasure_id, pending)
        # Each batch left a note of the files its versions named; the bytes go now (or, after a crash,
        # when the sweeper or the next erase or delete deals with the note).
        await self.files.sweep()
        readable = await self.references.readable(caller, set(doomed.values()))
        asked = list(dict.fromkeys(record_ids))
        derived = [r for r, memory in doomed.items() if r not in asked and memory in readable]
        return Erasure(erased=asked + derived, unreachable=list(UNREACHABLE))

    async def plan(self, memory_id: str, record_ids: list[str]) -> ErasePlan:
        """The named records that are missing, and every record the erase takes, with its memory."""
        reach = await self.records.erase_reach(memory_id, record_ids)
        doomed = doomed_records([r for r in record_ids if r in reach.memory_of], reach.sources)
        return ErasePlan(missing=reach.missing, doomed={r: reach.memory_of[r] for r in sorted(doomed)})

    async def _remove(self, erasure_id: str, pending: list[str]) -> None:
        """Removes the records in batches; each batch strikes itself off the erase's note."""
        for start in range(0, len(pending), self.batch_records):
            await self.records.erase(erasure_id, pending[start : start + self.batch_records], ids.now_ms())

    async def _finish_unfinished(self, memory_id: str) -> None:
        """Finishes erases of this memory that were cut off part-way, before judging a new one."""
        for unfinished in await self.records.unfinished_erasures(memory_id):
            await self._remove(unfinished.id, unfinished.pending)
