"""Records from an archive, a batch at a time: compared with what is there, embedded, written whole."""

from __future__ import annotations

from typing import Any

from provider.embeddings import Embedder
from provider.errors import RestoreClashError
from provider.models import ArchiveCounts, RecordVersion, RestoredRecord
from provider.services.archive.format import invalid, version_entry, version_of
from provider.services.records.attributes import words_of
from provider.store.archive import Neo4jArchiveStore


class RecordWriter:
    """Buffers one batch of record entries; `flush` writes it (every version, re-embedded here)."""

    def __init__(
        self, store: Neo4jArchiveStore, embedder: Embedder, created: ArchiveCounts, present: ArchiveCounts
    ):
        self.store = store
        self.embedder = embedder
        self.created = created
        self.present = present
        self.pending: list[tuple[list[RecordVersion], int]] = []

    async def add(self, entry: dict[str, Any], memories: set[str], batch: int) -> None:
        """Takes one record entry; a full batch is written at once."""
        versions = [version_of(v) for v in entry["versions"]]
        if not versions or any(v.record_id != entry["id"] for v in versions):
            raise invalid(f"The archive's record {entry['id']} has no versions of its own.")
        if any(v.memory_id != entry["memory_id"] for v in versions) or entry["memory_id"] not in memories:
            raise invalid(f"The archive's record {entry['id']} is in a memory the archive does not hold.")
        versions.sort(key=lambda v: v.version)
        if versions[-1].version != entry["current"]:
            raise invalid(f"The archive's record {entry['id']} does not end at its current version.")
        self.pending.append((versions, int(entry["created_at"] or versions[0].written_at)))
        if len(self.pending) >= batch:
            await self.flush(memories)

    async def flush(self, memories: set[str]) -> None:
        """Writes the buffered records that are not there yet; a different record with an id is a clash."""
        pending, self.pending = self.pending, []
        if not pending:
            return
        existing = await self.store.existing([versions[0].record_id for versions, _ in pending])
        fresh = []
        for versions, created_at in pending:
            there = existing.get(versions[0].record_id)
            if there is None:
                fresh.append((versions, created_at))
            elif [version_entry(v) for v in there] != [version_entry(v) for v in versions]:
                raise RestoreClashError("record", versions[0].record_id)
            else:
                self.present.records += 1
                self.present.versions += len(versions)
        made = await self.store.restore_records(await self._embedded(fresh))
        self.created.records += made
        self.created.versions += sum(len(v) for v, _ in fresh)

    async def _embedded(self, records: list[tuple[list[RecordVersion], int]]) -> list[RestoredRecord]:
        """Each version's words and their vector (none for a version without words), one model call."""
        words = [[words_of(v) for v in versions] for versions, _ in records]
        flat = [w for ws in words for w in ws if w.strip()]
        vectors = iter(await self.embedder.embed(flat)) if flat else iter([])
        return [
            RestoredRecord(
                versions=versions,
                words=ws,
                vectors=[next(vectors) if w.strip() else None for w in ws],
                created_at=created_at,
            )
            for (versions, created_at), ws in zip(records, words, strict=True)
        ]

    async def link(self, entries: list[dict[str, Any]]) -> None:
        """Lays the references of records' current versions, once every target may be there."""
        current = [version_of(e["versions"][-1]) for e in entries]
        await self.store.link([v for v in current if v.references])
