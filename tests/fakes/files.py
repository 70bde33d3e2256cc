"""An in-memory FileStorage that does what Neo4jFileStore and its Cypher do, over a FakeRecordStore.

A file is :Unnamed until a record names it; a quota check counts the owner's File nodes; "no version
names it" is file_unnamed's substring test on every version's stored content; the sweep notes are the
ones the fake record store's erase leaves.
"""

from __future__ import annotations

from dataclasses import dataclass

from provider.models import FileAdmission, FileMeta, FileSweep, StoredFile
from provider.store.files import file_ids_in
from tests.fakes.records import FakeRecordStore


@dataclass
class FakeFile:
    """A File node."""

    meta: FileMeta
    purpose: str
    created_at: int
    unnamed: bool = True
    named_at: int | None = None
    reclaiming_at: int | None = None


class FakeFileStore:
    """File metadata in a dict; the bytes are the blob store's, as in production."""

    def __init__(self, records: FakeRecordStore):
        self.records = records
        self.files: dict[str, FakeFile] = {}

    async def create(
        self, file: FileMeta, *, purpose: str, now: int, max_files: int, max_bytes: int
    ) -> FileAdmission:
        """Kept when the owner's files and bytes leave room for it."""
        owned = [f.meta for f in self.files.values() if f.meta.owner == file.owner]
        held_files, held_bytes = len(owned), sum(m.bytes for m in owned)
        if held_files >= max_files or held_bytes + file.bytes > max_bytes:
            return FileAdmission(held_files=held_files, held_bytes=held_bytes, stored=None)
        self.files[file.id] = FakeFile(meta=file, purpose=purpose, created_at=now)
        stored = StoredFile(file.id, file.name, file.bytes, now, purpose, file.media_type)
        return FileAdmission(held_files=held_files, held_bytes=held_bytes, stored=stored)

    async def name(self, file_ids: list[str], now: int) -> list[str]:
        """Marks files named; returns those refused because the sweep claimed them."""
        refused = []
        for file_id in file_ids:
            f = self.files.get(file_id)
            if f is None:
                continue
            if f.reclaiming_at is None:
                f.unnamed, f.named_at = False, f.named_at or now
            else:
                f.named_at = None
                refused.append(file_id)
        return refused

    async def orphans(self, before: int, limit: int) -> list[str]:
        found = sorted(
            (f for f in self.files.values() if f.unnamed and f.created_at <= before),
            key=lambda f: f.created_at,
        )
        return [f.meta.id for f in found[:limit]]

    async def claim(self, file_ids: list[str], now: int) -> list[str]:
        claimed = []
        for file_id in file_ids:
            f = self.files.get(file_id)
            if f is not None:
                f.reclaiming_at = now if f.unnamed else None
                if f.unnamed:
                    claimed.append(file_id)
        return claimed

    async def release(self, file_ids: list[str], now: int) -> None:
        for file_id in file_ids:
            f = self.files.get(file_id)
            if f is not None:
                f.unnamed, f.reclaiming_at, f.named_at = False, None, f.named_at or now

    async def unnamed(self, file_ids: list[str]) -> dict[str, str]:
        """Of these, the files no stored version's content mentions."""
        return {
            i: self.files[i].meta.sha256
            for i in file_ids
            if i in self.files and not self.records.content_naming(i)
        }

    async def delete(self, file_ids: list[str]) -> None:
        for file_id in file_ids:
            self.files.pop(file_id, None)

    async def unused_digests(self, digests: list[str], leaving: list[str]) -> list[str]:
        held = {f.meta.sha256 for f in self.files.values() if f.meta.id not in leaving}
        return [d for d in digests if d not in held]

    async def get_many(self, file_ids: list[str]) -> dict[str, FileMeta]:
        return {i: self.files[i].meta for i in file_ids if i in self.files}

    async def sweeps(self, before: int, limit: int) -> list[FileSweep]:
        """The erase notes made at or before `before`, oldest first."""
        notes = sorted(
            (n for n in self.records.sweep_notes if n.created_at <= before), key=lambda n: n.created_at
        )
        return [FileSweep(id=n.id, file_ids=file_ids_in(n.contents)) for n in notes[:limit]]

    async def sweep_done(self, sweep_id: str) -> None:
        self.records.sweep_notes = [n for n in self.records.sweep_notes if n.id != sweep_id]
