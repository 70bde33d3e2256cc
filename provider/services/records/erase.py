"""Erase: content removed for good, from the record and from what was derived from it.

The answer lists, honestly, what the provider could not reach.
"""

from __future__ import annotations

from typing import Any

from provider import ids
from provider.errors import RecordNotFoundError
from provider.models import Caller, Erasure
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
        self, tree: TreeService, records: RecordStorage, files: FileService, references: ReferenceResolver
    ):
        self.tree = tree
        self.records = records
        self.files = files
        self.references = references

    def capabilities(self) -> dict[str, Any]:
        """Erase reports what it cannot reach."""
        return {"erase": {"unreachable": "reported", "derived": "erased"}}

    async def erase(self, caller: Caller, memory_id: str, record_ids: list[str]) -> Erasure:
        """Removes every version of the named records and of records derived only from them."""
        await self.tree.require(caller, memory_id, "delete")
        plan = await self.records.erase_plan(memory_id, sorted(set(record_ids)))
        if plan.missing:
            raise RecordNotFoundError("A record named is not in this memory.", param="record_ids")
        doomed = plan.doomed
        named = sorted(set(record_ids))
        await self.records.erase(memory_id, list(doomed), named, ids.now_ms())
        # The erase left a note of the files its versions named; the bytes go now (or, after a crash,
        # when the sweeper or the next erase or delete deals with the note).
        await self.files.sweep()
        readable = await self.references.readable(caller, set(doomed.values()))
        named = list(dict.fromkeys(record_ids))
        derived = [r for r, memory in doomed.items() if r not in named and memory in readable]
        return Erasure(erased=named + derived, unreachable=list(UNREACHABLE))
