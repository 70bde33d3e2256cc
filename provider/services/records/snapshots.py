"""Snapshots: a name for an instant of a memory; reading `as_of` one is the same read."""

from __future__ import annotations

from provider import access, ids
from provider.errors import MemoryInvalidError, MemoryNotFoundError
from provider.models import Caller, Snapshot
from provider.services.records.ports import RecordStorage
from provider.services.tree.memories import TreeService


async def instant_of(
    tree: TreeService, records: RecordStorage, caller: Caller, as_of: str | None
) -> int | None:
    """`as_of` as milliseconds: an ISO 8601 instant or a snapshot the caller may read; None for now.

    The one place `as_of` is read, for a record's read, a listing and a recall alike.
    """
    if as_of is None or as_of == "":
        return None
    if as_of.startswith(ids.SNAPSHOT):
        snapshot = await records.snapshot(as_of)
        views = await tree.views(caller, [snapshot.memory_id]) if snapshot else []
        if snapshot is None or not access.may(views[0].privileges if views else None, "read"):
            raise MemoryInvalidError("No snapshot with that id is readable here.", param="as_of")
        return snapshot.at_ms
    try:
        return ids.parse_instant(as_of)
    except ValueError as e:
        raise MemoryInvalidError("as_of is an ISO 8601 instant or a snapshot id.", param="as_of") from e


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

    async def instant(self, caller: Caller, as_of: str | None) -> int | None:
        """The instant `as_of` names (instant_of)."""
        return await instant_of(self.tree, self.records, caller, as_of)

    async def listing(self, caller: Caller, memory_id: str) -> list[Snapshot]:
        """Oldest first."""
        await self.tree.require(caller, memory_id, "read")
        return await self.records.snapshots(memory_id)
