"""Records from an archive, a batch at a time: compared with what is there, embedded, written whole.

A version's vector travels with it when this deployment runs the model that made it: it is written as
it came, and only the versions without one (another model, or none carried) go through the model.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from provider.embeddings import Embedder
from provider.errors import RestoreClashError
from provider.models import ArchiveCounts, RecordVersion, RestoredRecord
from provider.services.archive.format import invalid, unpacked, version_entry, version_of
from provider.services.records.attributes import words_of
from provider.store.archive import Neo4jArchiveStore

Vector = list[float] | None
Pending = tuple[list[RecordVersion], int, list[Vector]]  # versions, created_at, carried vectors


class RecordWriter:
    """Buffers one batch of record entries; `flush` writes it (carried vectors kept, the rest embedded)."""

    def __init__(
        self,
        store: Neo4jArchiveStore,
        embedder: Embedder,
        model: str | None,
        created: ArchiveCounts,
        present: ArchiveCounts,
        refuse_unreadable_files: Callable[[list[str]], Awaitable[None]],
    ):
        self.store = store
        self.embedder = embedder
        self.model = model  # whose carried vectors are kept; None keeps none
        self.created = created
        self.present = present
        self.refuse_unreadable_files = refuse_unreadable_files
        self.pending: list[Pending] = []

    async def add(self, entry: dict[str, Any], memories: set[str], batch: int) -> None:
        """Takes one record entry; a full batch is written at once."""
        versions = [version_of(v) for v in entry["versions"]]
        if not versions or any(v.record_id != entry["id"] for v in versions):
            raise invalid(f"The archive's record {entry['id']} has no versions of its own.")
        if any(v.memory_id != entry["memory_id"] for v in versions) or entry["memory_id"] not in memories:
            raise invalid(f"The archive's record {entry['id']} is in a memory the archive does not hold.")
        paired = sorted(zip(versions, self._carried(entry, len(versions)), strict=True), key=_by_version)
        versions = [v for v, _ in paired]
        if versions[-1].version != entry["current"]:
            raise invalid(f"The archive's record {entry['id']} does not end at its current version.")
        created_at = int(entry["created_at"] or versions[0].written_at)
        self.pending.append((versions, created_at, [vector for _, vector in paired]))
        if len(self.pending) >= batch:
            await self.flush(memories)

    def _carried(self, entry: dict[str, Any], count: int) -> list[Vector]:
        """The entry's vectors, one per version, when this deployment's model made them; else Nones."""
        carried = entry.get("vectors")
        if self.model is None or not isinstance(carried, dict) or carried.get("model") != self.model:
            return [None] * count
        packed = carried.get("float32")
        if not isinstance(packed, list) or len(packed) != count:
            return [None] * count
        return [unpacked(p, self.embedder.dimension) for p in packed]

    async def flush(self, memories: set[str]) -> None:
        """Writes the buffered records that are not there yet; a different record with an id is a clash.

        A record there already is the same only in a memory of this restore (those the caller may
        restore into): the archive states that memory, and every version is compared, memory included.
        A new record may not name a file that exists and that the caller may not read, or restoring it
        would hand the file's bytes to whoever reads the record.
        """
        pending, self.pending = self.pending, []
        if not pending:
            return
        existing = await self.store.existing([versions[0].record_id for versions, _, _ in pending])
        fresh = []
        for versions, created_at, vectors in pending:
            there = existing.get(versions[0].record_id)
            if there is None:
                fresh.append((versions, created_at, vectors))
            elif there[-1].memory_id not in memories or [version_entry(v) for v in there] != [
                version_entry(v) for v in versions
            ]:
                raise RestoreClashError("record", versions[0].record_id)
            else:
                self.present.records += 1
                self.present.versions += len(versions)
        await self.refuse_unreadable_files(
            [
                p["file"]["id"]
                for versions, _, _ in fresh
                for v in versions
                for p in v.content
                if p.get("type") == "file"
            ]
        )
        made = await self.store.restore_records(await self._embedded(fresh))
        self.created.records += made
        self.created.versions += sum(len(v) for v, _, _ in fresh)

    async def _embedded(self, records: list[Pending]) -> list[RestoredRecord]:
        """Each version's words and their vector (none without words): carried, or made in one model call."""
        words = [[words_of(v) for v in versions] for versions, _, _ in records]
        missing = [
            w
            for ws, (_, _, carried) in zip(words, records, strict=True)
            for w, vector in zip(ws, carried, strict=True)
            if w.strip() and vector is None
        ]
        made = iter(await self.embedder.embed(missing)) if missing else iter([])
        return [
            RestoredRecord(
                versions=versions,
                words=ws,
                vectors=[
                    None if not w.strip() else vector if vector is not None else next(made)
                    for w, vector in zip(ws, carried, strict=True)
                ],
                created_at=created_at,
            )
            for (versions, created_at, carried), ws in zip(records, words, strict=True)
        ]

    async def link(self, entries: list[dict[str, Any]]) -> None:
        """Lays the references of records' current versions, once every target may be there."""
        current = [version_of(e["versions"][-1]) for e in entries]
        await self.store.link([v for v in current if v.references])


def _by_version(pair: tuple[RecordVersion, Vector]) -> int:
    return pair[0].version
