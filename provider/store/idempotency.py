"""Idempotency keys in Neo4j, so replays and leases work across instances of a stateless service."""

from __future__ import annotations

from provider.models import IdempotencyKey
from provider.store.driver import Neo4jStore


class Neo4jIdempotencyStore:
    """Claim, renew, complete, release and sweep keys; only a key's owner (token) changes it."""

    def __init__(self, store: Neo4jStore):
        self.store = store

    async def claim(
        self, key_id: str, fingerprint: str, token: str, *, now: int, expires_before: int, lease_until: int
    ) -> IdempotencyKey:
        """`fresh` is true when this request owns the key now (new, expired, or its lease ran out)."""
        row = (
            await self.store.write(
                "idempotency_claim",
                id=key_id,
                fingerprint=fingerprint,
                token=token,
                now=now,
                expires_before=expires_before,
                lease_until=lease_until,
            )
        )[0]
        return IdempotencyKey(
            fresh=bool(row["fresh"]),
            fingerprint=row["fingerprint"],
            state=row["state"],
            status=row["status"],
            body=row["body"],
            created_at=row["created_at"],
        )

    async def renew(self, key_id: str, token: str, lease_until: int) -> bool:
        """False when the key is no longer this owner's."""
        rows = await self.store.write("idempotency_renew", id=key_id, token=token, lease_until=lease_until)
        return bool(rows and rows[0]["renewed"])

    async def complete(self, key_id: str, token: str, status: int, body: str, now: int) -> None:
        """Keeps the answer for replays."""
        await self.store.write(
            "idempotency_complete", id=key_id, token=token, status=status, body=body, now=now
        )

    async def release(self, key_id: str, token: str) -> None:
        """Lets a retry run again."""
        await self.store.write("idempotency_release", id=key_id, token=token)

    async def sweep(self, expires_before: int, stale_before: int, batch: int) -> int:
        """Deletes up to `batch` expired or abandoned keys; how many."""
        rows = await self.store.write(
            "idempotency_sweep", expires_before=expires_before, stale_before=stale_before, batch=batch
        )
        return int(rows[0]["swept"]) if rows else 0
