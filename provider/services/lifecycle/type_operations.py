"""The type listing and record operations: what each type is, and running one of its operations.

An operation needs the privilege it declares on the record's memory, judged as every route judges
it (access.require): one who sees nothing of the memory gets 404 `memory_not_found`, one who sees it
without the privilege 403 `memory_forbidden`, both before the record is looked up, so neither learns
whether the record exists. A merge by a writer who may not read answers with its record withheld.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from provider import access
from provider.errors import MemoryInvalidError, MemoryUnsupportedError, RecordNotFoundError
from provider.models import Caller, NamedRecord, OperationAsk, OperationOutcome, ReadRecord, StoredRecord
from provider.services.lifecycle.consolidation import ConsolidationService
from provider.services.lifecycle.merge import EntityMerger
from provider.services.lifecycle.ports import LifecycleRecords
from provider.services.records.service import RecordService, writer_of
from provider.services.tree.memories import TreeService
from provider.services.types import catalog
from provider.services.types.names import identifiers, names_of, primary_name

UNKNOWN_RECORD = "No record with that id is in this memory."


def _unknown(param: str) -> RecordNotFoundError:
    return RecordNotFoundError(UNKNOWN_RECORD, param=param)


def _named(stored: StoredRecord) -> NamedRecord:
    current = stored.latest()
    attributes = current.attributes
    return NamedRecord(
        id=stored.id,
        type=current.type,
        title=current.title,
        text=None,
        name=attributes.get("name"),
        aliases=attributes.get("aliases"),
        emails=attributes.get("emails"),
        domains=attributes.get("domains"),
    )


class TypeService:
    """Lists the types and runs their operations; a merge writes through a consolidation run."""

    def __init__(
        self,
        tree: TreeService,
        records: RecordService,
        consolidation: ConsolidationService,
        merger: EntityMerger,
        record_store: LifecycleRecords,
    ):
        self.record_store = record_store
        self.tree = tree
        self.records = records
        self.consolidation = consolidation
        self.merger = merger

    def capabilities(self) -> dict[str, Any]:
        """People and companies are registered, with schemas checked on every write and operations."""
        return {"types": True}

    def listing(self) -> list[dict[str, Any]]:
        """The core types, then `x.person` and `x.company`."""
        return catalog.listing()

    async def reach(self, caller: Caller, memory_id: str, record_id: str, name: str) -> StoredRecord:
        """The record, once the caller holds the operation's privilege and the record's type offers it."""
        await self.tree.require(caller, memory_id, catalog.OPERATIONS[name].requires)
        stored = await self.record_store.read(record_id)
        if stored is None or stored.memory_id != memory_id:
            raise _unknown("record_id")
        kind = catalog.ADDED.get(stored.latest().type)
        if kind is None or not kind.offers(name):
            raise MemoryUnsupportedError(
                f"Records of type {stored.latest().type} offer no operation {name!r}; "
                "GET /v1/memories/types lists each type's.",
                param="name",
            )
        return stored

    async def operate(
        self, caller: Caller, memory_id: str, record_id: str, ask: OperationAsk
    ) -> OperationOutcome:
        """Runs a known operation (the edge refused unknown names and bad input) on the record."""
        stored = await self.reach(caller, memory_id, record_id, ask.name)
        if ask.name == catalog.ALIASES.name:
            return self._aliases(stored)
        return await self._merge(caller, stored, ask.duplicate or "")

    @staticmethod
    def _aliases(stored: StoredRecord) -> OperationOutcome:
        row = _named(stored)
        facts = {
            "name": primary_name(row),
            "aliases": [a for a in row.aliases or [] if isinstance(a, str)],
            "identifiers": identifiers(row),
            "names": names_of(row),
        }
        return OperationOutcome(name=catalog.ALIASES.name, facts=facts)

    async def _merge(self, caller: Caller, kept: StoredRecord, duplicate_id: str) -> OperationOutcome:
        duplicate = await self._duplicate(caller, kept, duplicate_id)
        plan = await self.merger.plan(kept, duplicate)

        async def writable(memories: set[str]) -> set[str]:
            views = await self.tree.views(caller, sorted(memories)) if memories else []
            return {v.node.id for v in views if "write" in v.privileges}

        async with self.consolidation.run(kept.memory_id, "operation") as run:
            writer = replace(writer_of(caller), consolidation_id=run.id)
            moved = await self.merger.apply(run, plan, writer, writable)
        reads = [
            *await self._after(caller, kept.id),
            *await self._after(caller, duplicate.id),  # the duplicate was required readable
        ]
        return OperationOutcome(
            name=catalog.MERGE.name,
            records=dict(zip(("record", "duplicate"), reads, strict=False)),
            facts={"consolidation_id": run.id, "references_moved": moved},
        )

    async def _after(self, caller: Caller, record_id: str) -> list[ReadRecord]:
        """A merged record as it is now, withheld from a caller who may not read its memory."""
        stored = await self.record_store.read(record_id)
        if stored is None:
            return []
        views = await self.tree.views(caller, [stored.memory_id])
        shown = bool(views) and access.shows_content(views[0].privileges)
        return await self.records.answered(caller, [stored.latest()], shown=shown)

    async def _duplicate(self, caller: Caller, kept: StoredRecord, duplicate_id: str) -> StoredRecord:
        """The duplicate, which the caller must read and write; unknown and out of reach answer alike."""
        if duplicate_id == kept.id:
            raise MemoryInvalidError("A record is not merged into itself.", param="duplicate")
        stored = await self.record_store.read(duplicate_id)
        views = await self.tree.views(caller, [stored.memory_id]) if stored else []
        access.require_record(views[0].privileges if views else None, "write", "duplicate")
        assert stored is not None  # require_record refused a record that is not there
        current, other = kept.latest(), stored.latest()
        if current.follows or other.follows:
            raise MemoryUnsupportedError(
                "A record that follows a source changes only with its source.", param="duplicate"
            )
        if current.status != "active":
            raise MemoryInvalidError("A forgotten record takes no merge.", param="record_id")
        if other.status != "active":
            raise MemoryInvalidError("The duplicate is forgotten or merged already.", param="duplicate")
        if other.type != current.type:
            raise MemoryInvalidError(
                f"A {current.type} merges only with another {current.type}.", param="duplicate"
            )
        return stored
