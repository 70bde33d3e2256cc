"""Idempotency-Key on every write: a repeat returns the first answer and does nothing again."""

from __future__ import annotations

import asyncio
import hashlib
from dataclasses import dataclass

from provider import ids
from provider.errors import ConflictError, MemoryInvalidError
from provider.store.idempotency import Neo4jIdempotencyStore

KEEP_MS = 48 * 3600 * 1000
WAIT_SECONDS = 30.0
POLL_SECONDS = 0.05
MAX_KEY_LENGTH = 255


@dataclass(frozen=True)
class Replay:
    """The stored answer of the first request made with this key."""

    status: int
    body: str


def digest(*parts: bytes | str) -> str:
    """SHA-256 over the parts, each length-prefixed so no two splits collide."""
    h = hashlib.sha256()
    for part in parts:
        raw = part.encode() if isinstance(part, str) else part
        h.update(len(raw).to_bytes(8, "big"))
        h.update(raw)
    return h.hexdigest()


class IdempotencyService:
    """Keys are scoped to the credential that sent them and kept 48 hours (the chapter asks ≥ 24)."""

    def __init__(self, keys: Neo4jIdempotencyStore):
        self.keys = keys

    async def begin(self, caller_hash: str, key: str, fingerprint: str) -> tuple[str, Replay | None]:
        """The key's id, and the first answer when this is a repeat (waiting while it is running)."""
        if not key or len(key) > MAX_KEY_LENGTH:
            raise MemoryInvalidError("Idempotency-Key is 1 to 255 characters.", param="Idempotency-Key")
        key_id = digest(caller_hash, key)
        now = ids.now_ms()
        row = await self.keys.claim(key_id, fingerprint, now, now - KEEP_MS)
        if row["fresh"]:
            return key_id, None
        return key_id, await self._replay(key_id, fingerprint, row)

    async def _replay(self, key_id: str, fingerprint: str, row: dict[str, object] | None) -> Replay | None:
        waited = 0.0
        while row is not None and row["state"] == "pending" and waited < WAIT_SECONDS:
            await asyncio.sleep(POLL_SECONDS)
            waited += POLL_SECONDS
            row = await self.keys.read(key_id)
        if row is None:
            raise ConflictError("The first request with this Idempotency-Key failed; send it again.")
        if row["fingerprint"] != fingerprint:
            raise MemoryInvalidError(
                "This Idempotency-Key was used with another request.", param="Idempotency-Key"
            )
        if row["state"] == "pending":
            raise ConflictError("The first request with this Idempotency-Key is still running.")
        return Replay(status=int(str(row["status"])), body=str(row["body"]))

    async def finish(self, key_id: str, status: int, body: bytes) -> None:
        """Keeps what the client was told; a server failure frees the key for a retry instead."""
        if status >= 500 or status in (401, 403, 409, 429):
            await self.keys.release(key_id)
            return
        await self.keys.complete(key_id, status, body.decode("utf-8", "replace"), ids.now_ms())

    async def abandon(self, key_id: str) -> None:
        """The request raised before answering."""
        await self.keys.release(key_id)
