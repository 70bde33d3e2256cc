"""Writing another system's memories as records: child memories, batches, later versions, forgetting.

Every item becomes a record body as `POST .../records` takes it, parsed by the same wire model (so
the same bounds hold), then prepared and written in batches through the record service (the same
access check, attribute rules and quotas as any write, embedded by the deployment's model). Ids
derive from the source's ids, so a second run finds what the first wrote and writes nothing twice.
An item's later versions and its forgetting are applied after its first write, each from where the
stored record stands, so a run stopped between them finishes the item when run again.
"""

from __future__ import annotations

import sys
import time
from dataclasses import dataclass, field
from typing import Any, TextIO

from provider import ids
from provider.errors import MemoryInvalidError, MemoryUnsupportedError
from provider.models import Caller, RecordDraft
from provider.protocol.record_requests import RecordCreate, RecordRevise
from provider.protocol.wire import parse
from provider.services.records.service import RecordService
from provider.services.tree.memories import MemoryDraft, TreeService


@dataclass
class Item:
    """One source item as a record: where it goes, its derived id, and what follows its first write."""

    name: dict[str, Any]  # how the summary names it: {"uuid": ...} or {"item": n, "id": ...}
    memory_id: str
    record_id: str
    body: dict[str, Any]  # a record body as `POST .../records` takes it
    revisions: list[dict[str, Any]] = field(default_factory=list)  # later versions, as PATCH bodies
    forget: bool = False


@dataclass
class MigrationSummary:
    """What a migration did; printed as JSON at the end."""

    source: str
    into: str
    read: int = 0
    written: int = 0
    skipped: int = 0
    revised: int = 0
    forgotten: int = 0
    refused: list[dict[str, Any]] = field(default_factory=list)
    memories: dict[str, str] = field(default_factory=dict)
    left_out: dict[str, int] = field(default_factory=dict)
    seconds: float = 0.0

    def wire(self) -> dict[str, Any]:
        """The summary as printed: counts, why each refused item was refused, the memories made."""
        return {
            "source": self.source,
            "into": self.into,
            "read": self.read,
            "written": self.written,
            "skipped": self.skipped,
            "revised": self.revised,
            "forgotten": self.forgotten,
            "refused": len(self.refused),
            "why": self.refused,
            "memories": self.memories,
            "left_out": self.left_out,
            "seconds": self.seconds,
        }


class MigrationWriter:
    """Writes items as one member, in batches, reporting progress on a stream."""

    def __init__(
        self,
        records: RecordService,
        tree: TreeService,
        caller: Caller,
        summary: MigrationSummary,
        *,
        progress: TextIO = sys.stderr,
    ):
        self.records = records
        self.tree = tree
        self.caller = caller
        self.summary = summary
        self.progress = progress
        self.started = time.monotonic()

    def record_id(self, kind: str, source_id: str) -> str:
        """The id a source item's record has in this target memory, on every run."""
        return ids.derived(ids.RECORD, f"migrate:{self.summary.source}:{self.summary.into}", kind, source_id)

    async def child(self, name: str, description: str) -> str:
        """The child memory named `name` below the target: made on the first run, found on the next."""
        seed = f"migrate:{self.summary.source}:{self.summary.into}:{name}"
        draft = MemoryDraft(name=name, description=description, parent_id=self.summary.into)
        view = await self.tree.create(self.caller, draft, seed=seed)
        self.summary.memories[name] = view.node.id
        return view.node.id

    def refuse(self, name: dict[str, Any], message: str, code: str = "memory_invalid") -> None:
        """An item that cannot be read or written, named so its owner can find it."""
        self.summary.refused.append({**name, "code": code, "message": message})

    async def write(self, items: list[Item]) -> None:
        """One batch: parsed, prepared and written per memory, then each item's later steps."""
        self.summary.read += len(items)
        drafts: dict[str, list[tuple[Item, RecordDraft]]] = {}
        for item in items:
            draft = self._draft(item)
            if draft is not None:
                drafts.setdefault(item.memory_id, []).append((item, draft))
        for memory_id, batch in drafts.items():
            written = await self._store(memory_id, batch)
            for item in written:
                await self._follow_up(item)
        self.report()

    def _draft(self, item: Item) -> RecordDraft | None:
        """The first version, with every later one checked too: an item is refused before any write."""
        try:
            for n, body in enumerate(item.revisions, start=2):
                parse(RecordRevise, body, prefix=f"version {n}")
            return parse(RecordCreate, item.body).draft()
        except MemoryInvalidError as e:
            self.refuse(item.name, e.message)
            return None

    async def _store(self, memory_id: str, batch: list[tuple[Item, RecordDraft]]) -> list[Item]:
        """Writes the batch; returns the items whose record now exists (new or found)."""
        prepared = await self.records.prepare_many(
            self.caller, memory_id, [(item.record_id, draft) for item, draft in batch]
        )
        created = await self.records.store_prepared(prepared)
        refused = prepared.refused
        for item, _ in batch:
            if item.record_id in refused:
                self.refuse(item.name, refused[item.record_id].message, refused[item.record_id].code)
        self.summary.written += created
        self.summary.skipped += len(batch) - len(refused) - created
        return [item for item, _ in batch if item.record_id not in refused]

    async def _follow_up(self, item: Item) -> None:
        """The versions after the first, then forgetting, from where the stored record stands."""
        if not item.revisions and not item.forget:
            return
        stored = (await self.records.get(self.caller, item.memory_id, item.record_id, None)).version
        if stored.status == "forgotten":
            return
        for body in item.revisions[stored.version - 1 :]:
            try:
                changes = parse(RecordRevise, body).changes()
                await self.records.revise(self.caller, item.memory_id, item.record_id, changes)
            except (MemoryInvalidError, MemoryUnsupportedError) as e:
                self.refuse(item.name, f"a later version: {e.message}", e.code)
                return
            self.summary.revised += 1
        if item.forget:
            await self.records.forget(self.caller, item.memory_id, item.record_id)
            self.summary.forgotten += 1

    def report(self, *, done: bool = False) -> None:
        """One progress line on the stream (ended with a newline at the end of the run)."""
        self.summary.seconds = round(time.monotonic() - self.started, 3)
        s = self.summary
        rate = s.read / s.seconds if s.seconds else 0.0
        self.progress.write(
            f"\rmigrate {s.source}: {s.read} read, {s.written} written, {s.skipped} already there, "
            f"{s.revised} revised, {s.forgotten} forgotten, {len(s.refused)} refused, {rate:,.0f} items/s"
        )
        if done:
            self.progress.write("\n")
        self.progress.flush()
