"""Files: upload, completion of a record's file parts from our own store, and byte-exact reads."""

from __future__ import annotations

import asyncio
import fnmatch
from dataclasses import dataclass
from typing import Any

from provider import ids
from provider.blobs import BlobReader, BlobStore, StagedBlob
from provider.errors import (
    FileNotFoundInStoreError,
    MemoryInvalidError,
    MemoryUnsupportedError,
    QuotaExhaustedError,
)
from provider.models import Caller, FileMeta, StoredFile
from provider.services.records.ports import FileStorage

ORPHAN_BATCH = 100  # files one step of the orphan sweep checks against every record version
ORPHAN_BATCHES = 10  # steps of one sweep pass at most; what is left waits for the next pass


@dataclass(frozen=True)
class FileBytes:
    """Bytes to send: opened, not read, so a large file streams out piece by piece."""

    reader: BlobReader
    media_type: str
    size: int
    name: str | None = None  # a file part's own name, offered to whoever saves the bytes


@dataclass(frozen=True)
class FileQuota:
    """What one principal's uploads may hold at once, and how long one may wait to be named."""

    bytes: int
    files: int
    orphan_grace_ms: int

    def refusal(self, held_files: int, held_bytes: int, size: int) -> QuotaExhaustedError:
        """The 429 that names the limit reached and what is held."""
        if held_files >= self.files:
            message = f"Your uploads already hold {held_files} files, the quota of {self.files} files."
        else:
            message = (
                f"This upload of {size} bytes would take your uploads past the quota of {self.bytes} "
                f"bytes ({held_bytes} held)."
            )
        detail = {
            "quota_bytes": self.bytes,
            "quota_files": self.files,
            "held_bytes": held_bytes,
            "held_files": held_files,
            "upload_bytes": size,
        }
        return QuotaExhaustedError(message, param="file", detail=detail)


class FileService:
    """Bytes go to the blob store; records name files by id and we fill in name, type and size."""

    def __init__(self, files: FileStorage, blobs: BlobStore, media: list[str], quota: FileQuota):
        self.files = files
        self.blobs = blobs
        self.media = media
        self.quota = quota

    def keeps(self, media_type: str) -> bool:
        """True when a pattern of `content.media` matches."""
        return any(fnmatch.fnmatch(media_type, pattern) for pattern in self.media)

    def stage(self) -> StagedBlob:
        """Where an upload's bytes stream to before they are kept (the edge bounds their size)."""
        return self.blobs.stage()

    async def upload(
        self, caller: Caller, *, name: str, media_type: str, staged: StagedBlob, purpose: str
    ) -> StoredFile:
        """Records the file within the uploader's quota, then keeps its bytes; only they may name it.

        Metadata goes first, in the statement that checks the quota, so parallel uploads cannot pass
        it; bytes whose keeping fails take their metadata with them (or the orphan sweep does).
        """
        file = FileMeta(
            id=ids.new_id(ids.FILE),
            owner=caller.principal,
            name=name or "file",
            media_type=media_type,
            bytes=staged.size,
            sha256=staged.digest(),
        )
        admission = await self.files.create(
            file,
            purpose=purpose or "user_data",
            now=ids.now_ms(),
            max_files=self.quota.files,
            max_bytes=self.quota.bytes,
        )
        if admission.stored is None:
            raise self.quota.refusal(admission.held_files, admission.held_bytes, staged.size)
        try:
            await asyncio.to_thread(staged.keep)
        except Exception:
            await self.files.delete([file.id])
            raise
        return admission.stored

    async def complete(
        self, caller: Caller, content: list[dict[str, Any]], *, kept: frozenset[str] = frozenset()
    ) -> list[dict[str, Any]]:
        """File parts get name, media_type and bytes from our store; a client's values are not read.

        A writer names files it uploaded, or (`kept`) files the record it revises already holds.
        """
        wanted = [p["file"]["id"] for p in content if p.get("type") == "file"]
        if not wanted:
            return content
        found = await self.files.get_many(wanted)
        completed = []
        for index, part in enumerate(content):
            if part.get("type") == "file":
                part = self._complete_part(caller, part, found.get(part["file"]["id"]), index, kept)
            completed.append(part)
        # Named from now on: the orphan sweep leaves them be, or has claimed them and they are gone.
        refused = await self.files.name(sorted(set(wanted)), ids.now_ms())
        if refused:
            index = wanted.index(refused[0])
            raise MemoryInvalidError("No file with that id exists.", param=f"content.{index}.file.id")
        return completed

    def _complete_part(
        self,
        caller: Caller,
        part: dict[str, Any],
        meta: FileMeta | None,
        index: int,
        kept: frozenset[str],
    ) -> dict[str, Any]:
        if meta is None or (meta.owner != caller.principal and meta.id not in kept):
            raise MemoryInvalidError("No file with that id exists.", param=f"content.{index}.file.id")
        if not self.keeps(meta.media_type):
            raise MemoryUnsupportedError(
                f"This provider does not keep files of type {meta.media_type}.",
                param=f"content.{index}.file",
                detail={"media": self.media},
            )
        file = {"id": meta.id, "name": meta.name, "media_type": meta.media_type, "bytes": meta.bytes}
        return {**part, "file": file}

    async def erase_unnamed(self, file_ids: list[str]) -> list[str]:
        """Removes the bytes and metadata of files no remaining version names; their ids."""
        if not file_ids:
            return []
        gone = await self.files.unnamed(sorted(set(file_ids)))
        leaving = list(gone)
        # Bytes are content-addressed: the same bytes uploaded twice are one blob, kept while a file has it.
        # Bytes go before metadata: a crash in between leaves metadata the note's replay finds again.
        orphaned = await self.files.unused_digests(sorted(set(gone.values())), leaving)
        for digest in orphaned:
            await asyncio.to_thread(self.blobs.delete, digest)
        await self.files.delete(leaving)
        return leaving

    async def sweep(self, before: int | None = None, limit: int = 100) -> int:
        """Deals with the notes erase and memory delete left (all, or those made before `before`).

        Removing bytes no version names is safe to repeat, so two instances sweeping the same note
        do no harm; the note goes only after its files were dealt with, so a crash midway repeats it.
        """
        swept = 0
        for note in await self.files.sweeps(ids.now_ms() if before is None else before, limit):
            await self.erase_unnamed(note.file_ids)
            await self.files.sweep_done(note.id)
            swept += 1
        return swept

    async def reclaim_orphans(self, now: int | None = None) -> int:
        """Removes uploads no record named within the grace (bytes, metadata, quota share); how many.

        A candidate is claimed first, so no record write may name it any more; then every record
        version is checked, as erase does, and a file some version names is let go for good.
        """
        before = (ids.now_ms() if now is None else now) - self.quota.orphan_grace_ms
        removed = 0
        for _ in range(ORPHAN_BATCHES):
            candidates = await self.files.orphans(before, ORPHAN_BATCH)
            claimed = await self.files.claim(candidates, ids.now_ms()) if candidates else []
            gone = await self.erase_unnamed(claimed)
            named = sorted(set(claimed) - set(gone))
            if named:
                await self.files.release(named, ids.now_ms())
            removed += len(gone)
            if len(candidates) < ORPHAN_BATCH:
                break
        return removed

    async def open(self, file_id: str) -> FileBytes:
        """The exact bytes as a stream (the caller closes it), their media type and size."""
        meta = (await self.files.get_many([file_id])).get(file_id)
        if meta is None:
            raise FileNotFoundInStoreError("No file with that id exists.")
        try:
            reader = await asyncio.to_thread(self.blobs.open, meta.sha256)
        except FileNotFoundError as e:
            raise FileNotFoundInStoreError("The file's bytes are no longer kept.") from e
        return FileBytes(reader, meta.media_type, meta.bytes, meta.name)
