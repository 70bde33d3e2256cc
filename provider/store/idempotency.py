"""Idempotency keys in Neo4j, so replays work across instances of a stateless service."""

from __future__ import annotations

import uuid

from provider.store.driver import Neo4jStore, Row


class Neo4jIdempotencyStore:
    """Claim, complete, release and read a key."""

    def __init__(self, store: Neo4jStore):
        self.store = store

    async def claim(self, key_id: str, fingerprint: str, now: int, expires_before: int) -> Row:
        """`fresh` is true when this request owns the key now."""
        rows = await self.store.write(
            "idempotency_claim",
            id=key_id,
            fingerprint=fingerprint,
            now=now,
            expires_before=expires_before,
            token=uuid.uuid4().hex,
        )
        return rows[0]

    async def complete(self, key_id: str, status: int, body: str, now: int) -> None:
        """Keeps the answer for replays."""
        await self.store.write("idempotency_complete", id=key_id, status=status, body=body, now=now)

    async def release(self, key_id: str) -> None:
        """Lets a retry run again."""
        await self.store.write("idempotency_release", id=key_id)

    async def read(self, key_id: str) -> Row | None:
        """The key's state, or None once released."""
        rows = await self.store.read("idempotency_read", id=key_id)
        return rows[0] if rows else None
