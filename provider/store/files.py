"""File metadata in Neo4j; the bytes are in the blob store, never in a property."""

from __future__ import annotations

import json

from provider.models import FileAdmission, FileMeta, FileSweep, StoredFile
from provider.store.driver import Neo4jStore, Row


def file_ids_in(contents: list[str]) -> list[str]:
    """The file ids named in stored content (each a JSON list of parts, as versions keep it)."""
    found: list[str] = []
    for raw in contents:
        for part in json.loads(raw or "[]"):
            if isinstance(part, dict) and part.get("type") == "file" and isinstance(part.get("file"), dict):
                found.append(str(part["file"].get("id")))
    return found


def _meta(row: Row) -> FileMeta:
    return FileMeta(
        id=row["id"],
        owner=row["owner"],
        name=row["name"],
        media_type=row["media_type"],
        bytes=row["bytes"],
        sha256=row["sha256"],
    )


class Neo4jFileStore:
    """Stores and finds file metadata."""

    def __init__(self, store: Neo4jStore):
        self.store = store

    async def create(
        self, file: FileMeta, *, purpose: str, now: int, max_files: int, max_bytes: int
    ) -> FileAdmission:
        """One uploaded file if its owner's quota has room, with what the owner held before it."""
        row = (
            await self.store.write(
                "file_create",
                id=file.id,
                owner=file.owner,
                name=file.name,
                media_type=file.media_type,
                bytes=file.bytes,
                sha256=file.sha256,
                purpose=purpose,
                now=now,
                max_files=max_files,
                max_bytes=max_bytes,
            )
        )[0]
        stored = None
        if row["fits"]:
            stored = StoredFile(
                id=row["id"],
                filename=row["name"],
                bytes=row["bytes"],
                created_at_ms=row["created_at"],
                purpose=row["purpose"],
                media_type=row["media_type"],
            )
        return FileAdmission(held_files=row["files"], held_bytes=row["used"], stored=stored)

    async def name(self, file_ids: list[str], now: int) -> list[str]:
        """Marks files as named by a record; the ids refused because the sweep is reclaiming them."""
        rows = await self.store.write("file_name", ids=file_ids, now=now)
        return [r["id"] for r in rows if not r["free"]]

    async def orphans(self, before: int, limit: int) -> list[str]:
        """Files no record has named, uploaded at or before `before`, oldest first."""
        return [r["id"] for r in await self.store.read("file_orphans", before=before, limit=limit)]

    async def claim(self, file_ids: list[str], now: int) -> list[str]:
        """Of these, the files still unnamed, now claimed: no record write may name them any more."""
        return [r["id"] for r in await self.store.write("file_claim", ids=file_ids, now=now)]

    async def release(self, file_ids: list[str], now: int) -> None:
        """Claimed files a version turned out to name: never candidates again."""
        await self.store.write("file_release", ids=file_ids, now=now)

    async def unnamed(self, file_ids: list[str]) -> dict[str, str]:
        """Of these, the files no record version names any more: file id → the digest of its bytes."""
        return {r["id"]: r["sha256"] for r in await self.store.read("file_unnamed", ids=file_ids)}

    async def delete(self, file_ids: list[str]) -> None:
        """Removes file metadata."""
        await self.store.write("file_delete", ids=file_ids)

    async def unused_digests(self, digests: list[str], leaving: list[str]) -> list[str]:
        """Of these SHA-256 digests, those no File node holds but the `leaving` ones."""
        rows = await self.store.read("file_digest_unused", digests=digests, leaving=leaving)
        return [r["sha256"] for r in rows]

    async def get_many(self, file_ids: list[str]) -> dict[str, FileMeta]:
        """Id → metadata for the ids that exist."""
        return {r["id"]: _meta(r) for r in await self.store.read("file_get_many", ids=file_ids)}

    async def sweeps(self, before: int, limit: int) -> list[FileSweep]:
        """Notes of files to check (left by erase and memory delete), oldest first."""
        rows = await self.store.read("file_sweep_pending", before=before, limit=limit)
        return [FileSweep(id=r["id"], file_ids=file_ids_in(r["contents"])) for r in rows]

    async def sweep_done(self, sweep_id: str) -> None:
        """Drops a note once its files are dealt with."""
        await self.store.write("file_sweep_done", id=sweep_id)
