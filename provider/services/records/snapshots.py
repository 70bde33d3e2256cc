"""Snapshots: a name for an instant of a memory; reading `as_of` one is the same read."""

from __future__ import annotations

from provider import ids
from provider.errors import MemoryNotFoundError
from provider.models import Caller, Snapshot
from provider.services.records.ports import RecordStorage
from provider.services.tree.memories import TreeService


class SnapshotService:
    """Naming an instant needs write; listing needs read."""

    def __init__(self, tree: TreeService, records: RecordStorage):
        self.tree = tree
        self.records = records

    async def create(self, caller: Caller, memory_id: str, name: str, message: str | None) -> Snapshot:
        """Copies nothing: stores the name and the server's clock."""
        await self.tree.require(caller, memory_id, "write")
        stored = await self.records.create_snapshot(
            Snapshot(
                id=ids.new_id(ids.SNAPSHOT),
                memory_id=memory_id,
                name=name,
                message=message or "",
                at_ms=ids.now_ms(),
            )
        )
        if stored is None:
            raise MemoryNotFoundError("No memory with that id exists.", param="memory_id")
        return stored

    async def listing(self, caller: Caller, memory_id: str) -> list[Snapshot]:
        """Oldest first."""
        await self.tree.require(caller, memory_id, "read")
        return await self.records.snapshots(memory_id)
