"""File metadata in Neo4j; the bytes are in the blob store, never in a property."""

from __future__ import annotations

from typing import Any

from provider.store.driver import Neo4jStore, Row


class Neo4jFileStore:
    """Stores and finds file metadata."""

    def __init__(self, store: Neo4jStore):
        self.store = store

    async def create(self, **fields: Any) -> Row:
        """One uploaded file if its owner's quota has room (`fits`), with the owner's usage before it."""
        return (await self.store.write("file_create", **fields))[0]

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

    async def unnamed(self, file_ids: list[str]) -> list[Row]:
        """Files no record version names any more."""
        return await self.store.read("file_unnamed", ids=file_ids)

    async def delete(self, file_ids: list[str]) -> None:
        """Removes file metadata."""
        await self.store.write("file_delete", ids=file_ids)

    async def unused_digests(self, digests: list[str], leaving: list[str]) -> list[str]:
        """Of these SHA-256 digests, those no File node holds but the `leaving` ones."""
        rows = await self.store.read("file_digest_unused", digests=digests, leaving=leaving)
        return [r["sha256"] for r in rows]

    async def get_many(self, file_ids: list[str]) -> dict[str, Row]:
        """Id → metadata for the ids that exist."""
        return {r["id"]: r for r in await self.store.read("file_get_many", ids=file_ids)}

    async def sweeps(self, before: int, limit: int) -> list[Row]:
        """Notes of files to check (left by erase and memory delete), oldest first."""
        return await self.store.read("file_sweep_pending", before=before, limit=limit)

    async def sweep_done(self, sweep_id: str) -> None:
        """Drops a note once its files are dealt with."""
        await self.store.write("file_sweep_done", id=sweep_id)
