"""Files: upload, completion of a record's file parts from our own store, and byte-exact reads."""

from __future__ import annotations

import asyncio
import fnmatch
import json
from dataclasses import dataclass
from typing import Any

from provider import ids
from provider.blobs import BlobReader, BlobStore, StagedBlob
from provider.errors import FileNotFoundInStoreError, MemoryInvalidError, MemoryUnsupportedError
from provider.models import Caller
from provider.store.files import Neo4jFileStore


@dataclass(frozen=True)
class FileBytes:
    """Bytes to send: opened, not read, so a large file streams out piece by piece."""

    reader: BlobReader
    media_type: str
    size: int


class FileService:
    """Bytes go to the blob store; records name files by id and we fill in name, type and size."""

    def __init__(self, files: Neo4jFileStore, blobs: BlobStore, media: list[str]):
        self.files = files
        self.blobs = blobs
        self.media = media

    def keeps(self, media_type: str) -> bool:
        """True when a pattern of `content.media` matches."""
        return any(fnmatch.fnmatch(media_type, pattern) for pattern in self.media)

    def stage(self) -> StagedBlob:
        """Where an upload's bytes stream to before they are kept (the edge bounds their size)."""
        return self.blobs.stage()

    async def upload(
        self, caller: Caller, *, name: str, media_type: str, staged: StagedBlob, purpose: str
    ) -> dict[str, Any]:
        """Keeps the staged bytes and their metadata; the uploader alone may name the file in a record."""
        digest = await asyncio.to_thread(staged.keep)
        row = await self.files.create(
            id=ids.new_id(ids.FILE),
            owner=caller.principal,
            name=name or "file",
            media_type=media_type,
            bytes=staged.size,
            sha256=digest,
            purpose=purpose or "user_data",
            now=ids.now_ms(),
        )
        return {
            "id": row["id"],
            "object": "file",
            "filename": row["name"],
            "bytes": row["bytes"],
            "created_at": row["created_at"] // 1000,
            "purpose": row["purpose"],
            "media_type": row["media_type"],
        }

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
        return completed

    def _complete_part(
        self,
        caller: Caller,
        part: dict[str, Any],
        meta: dict[str, Any] | None,
        index: int,
        kept: frozenset[str],
    ) -> dict[str, Any]:
        if meta is None or (meta["owner"] != caller.principal and meta["id"] not in kept):
            raise MemoryInvalidError("No file with that id exists.", param=f"content.{index}.file.id")
        if not self.keeps(meta["media_type"]):
            raise MemoryUnsupportedError(
                f"This provider does not keep files of type {meta['media_type']}.",
                param=f"content.{index}.file",
                detail={"media": self.media},
            )
        file = {
            "id": meta["id"],
            "name": meta["name"],
            "media_type": meta["media_type"],
            "bytes": meta["bytes"],
        }
        return {**part, "file": file}

    async def erase_unnamed(self, file_ids: list[str]) -> list[str]:
        """Removes the bytes and metadata of files no remaining version names; their ids."""
        if not file_ids:
            return []
        gone = await self.files.unnamed(sorted(set(file_ids)))
        leaving = [row["id"] for row in gone]
        # Bytes are content-addressed: the same bytes uploaded twice are one blob, kept while a file has it.
        # Bytes go before metadata: a crash in between leaves metadata the note's replay finds again.
        orphaned = await self.files.unused_digests(sorted({row["sha256"] for row in gone}), leaving)
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
            await self.erase_unnamed(_file_ids(note["contents"]))
            await self.files.sweep_done(note["id"])
            swept += 1
        return swept

    async def open(self, file_id: str) -> FileBytes:
        """The exact bytes as a stream (the caller closes it), their media type and size."""
        meta = (await self.files.get_many([file_id])).get(file_id)
        if meta is None:
            raise FileNotFoundInStoreError("No file with that id exists.")
        try:
            reader = await asyncio.to_thread(self.blobs.open, meta["sha256"])
        except FileNotFoundError as e:
            raise FileNotFoundInStoreError("The file's bytes are no longer kept.") from e
        return FileBytes(reader, meta["media_type"], meta["bytes"])


def _file_ids(contents: list[str]) -> list[str]:
    """The file ids named in stored content (each a JSON list of parts)."""
    found: list[str] = []
    for raw in contents:
        for part in json.loads(raw or "[]"):
            if isinstance(part, dict) and part.get("type") == "file" and isinstance(part.get("file"), dict):
                found.append(str(part["file"].get("id")))
    return found
