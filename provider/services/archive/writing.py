"""Records from an archive, a batch at a time: compared with what is there, embedded, written whole.

When the restore trusts the archive (restore.py: signed with this deployment's archive key), a
version's vector travels with it where a vector slot of this deployment holds the model that made it:
it is written as it came, and every other live slot's vector (another model, or none carried) is made
here. An archive not trusted has every vector made here.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from provider.errors import RestoreClashError
from provider.models import ArchiveCounts, RecordVersion, RestoredRecord, Vectors
from provider.services.archive.format import invalid, unpacked, version_entry, version_of
from provider.services.archive.ports import ArchiveStorage
from provider.services.records.attributes import words_of
from provider.services.vectors import VectorModels

Vector = list[float] | None
Carried = tuple[str | None, list[Vector]]  # the model that made the carried vectors, one per version
Pending = tuple[list[RecordVersion], int, Carried]  # versions, created_at, what the archive carried


class RecordWriter:
    """Buffers one batch of record entries; `flush` writes it (carried vectors kept, the rest embedded)."""

    def __init__(
        self,
        store: ArchiveStorage,
        vectors: VectorModels,
        keep_carried: bool,
        created: ArchiveCounts,
        present: ArchiveCounts,
        refuse_unreadable_files: Callable[[list[str]], Awaitable[None]],
        *,
        payer: str,
    ):
        self.store = store
        self.payer = payer  # the restorer: every restored version counts against its quotas
        self.vectors = vectors
        self.keep_carried = keep_carried  # False: every vector is made here
        self.models_differed = False  # a trusted record's vectors came from no model live here
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
        model, carried = await self._carried(entry, len(versions))
        paired = sorted(zip(versions, carried, strict=True), key=_by_version)
        versions = [v for v, _ in paired]
        if versions[-1].version != entry["current"]:
            raise invalid(f"The archive's record {entry['id']} does not end at its current version.")
        created_at = int(entry["created_at"] or versions[0].written_at)
        self.pending.append((versions, created_at, (model, [vector for _, vector in paired])))
        if len(self.pending) >= batch:
            await self.flush(memories)

    async def _carried(self, entry: dict[str, Any], count: int) -> Carried:
        """The entry's vectors, one per version, when a live slot's model made them; else Nones."""
        carried = entry.get("vectors")
        if not self.keep_carried:
            return None, [None] * count
        live = (await self.vectors.state()).models.values()
        if not isinstance(carried, dict) or carried.get("model") not in live:
            self.models_differed = True
            return None, [None] * count
        model, packed = str(carried["model"]), carried.get("float32")
        if not isinstance(packed, list) or len(packed) != count:
            self.models_differed = True
            return None, [None] * count
        dimension = (await self.vectors.embedder(model)).dimension
        return model, [unpacked(p, dimension) for p in packed]

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
        made = await self.store.restore_records(await self._embedded(fresh), self.payer)
        self.created.records += made
        self.created.versions += sum(len(v) for v, _, _ in fresh)

    async def _embedded(self, records: list[Pending]) -> list[RestoredRecord]:
        """Each version's words and their vectors (none without words), in every live slot.

        A slot's vector is carried when the slot's model made it, else made in one call of that model.
        """
        words = [[words_of(v) for v in versions] for versions, _, _ in records]
        slots: list[list[Vectors | None]] = [[{} if w.strip() else None for w in ws] for ws in words]
        for slot, model in (await self.vectors.state()).models.items():
            missing = [
                w
                for ws, (_, _, (made_by, carried)) in zip(words, records, strict=True)
                for w, vector in zip(ws, carried, strict=True)
                if w.strip() and (vector is None or made_by != model)
            ]
            embedder = await self.vectors.embedder(model)
            made = iter(await embedder.embed(missing)) if missing else iter([])
            for (_, _, (made_by, carried)), record_slots in zip(records, slots, strict=True):
                for vector, version_slots in zip(carried, record_slots, strict=True):
                    if version_slots is not None:
                        kept = vector is not None and made_by == model
                        version_slots[slot] = vector if kept and vector is not None else next(made)
        return [
            RestoredRecord(versions=versions, words=ws, vectors=record_slots, created_at=created_at)
            for (versions, created_at, _), ws, record_slots in zip(records, words, slots, strict=True)
        ]

    async def link(self, entries: list[dict[str, Any]]) -> None:
        """Lays the references of records' current versions, once every target may be there."""
        current = [version_of(e["versions"][-1]) for e in entries]
        await self.store.link([v for v in current if v.references])


def _by_version(pair: tuple[RecordVersion, Vector]) -> int:
    return pair[0].version
