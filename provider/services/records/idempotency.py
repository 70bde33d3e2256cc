"""Idempotency-Key on every write: a repeat returns the first answer and does the work only once.

A key belongs to a principal (not to the credential that sent it, so a rotated key still replays)
and is kept 48 hours (the chapter asks at least 24). While its first request runs, the key is held
under a lease its owner renews; a request that finds the lease run out (its owner died) takes the
key over. The work itself is done once because a write under a key derives its new ids from the
key (`seed`): the taker makes the ids the dead owner made, and the store keeps the first.
"""

from __future__ import annotations

import asyncio
import hashlib
import uuid
from dataclasses import dataclass

from provider import ids
from provider.errors import ConflictError, MemoryInvalidError, ProviderError
from provider.models import IdempotencyKey
from provider.services.records.ports import IdempotencyStorage

KEEP_MS = 48 * 3600 * 1000
POLL_SECONDS = 0.05
MAX_KEY_LENGTH = 255


@dataclass(frozen=True)
class Replay:
    """The stored answer of the first request made with this key."""

    status: int
    body: str


@dataclass(frozen=True)
class Claim:
    """A key this request holds: its id, the owner's token, and the seed its new ids derive from."""

    key_id: str
    token: str
    seed: str


def digest(*parts: bytes | str) -> str:
    """SHA-256 over the parts, each length-prefixed so no two splits collide."""
    h = hashlib.sha256()
    for part in parts:
        raw = part.encode() if isinstance(part, str) else part
        h.update(len(raw).to_bytes(8, "big"))
        h.update(raw)
    return h.hexdigest()


class IdempotencyService:
    """Claims, leases, replays and sweeps keys."""

    def __init__(self, keys: IdempotencyStorage, *, lease_ms: int, wait_seconds: float):
        self.keys = keys
        self.lease_ms = lease_ms
        self.wait_seconds = wait_seconds

    async def begin(self, principal: str, key: str, fingerprint: str) -> Claim | Replay:
        """The request's claim on the key, or the first answer when it is a repeat.

        A repeat of a request still running waits for it, and takes the key over if its owner's
        lease runs out while waiting.
        """
        if not key or len(key) > MAX_KEY_LENGTH:
            raise MemoryInvalidError("Idempotency-Key is 1 to 255 characters.", param="Idempotency-Key")
        key_id = digest(principal, key)
        token = uuid.uuid4().hex
        waited = 0.0
        while True:
            key_state = await self._claim(key_id, fingerprint, token)
            if key_state.fresh:
                return Claim(key_id=key_id, token=token, seed=digest(key_id, str(key_state.created_at)))
            if key_state.fingerprint != fingerprint:
                raise MemoryInvalidError(
                    "This Idempotency-Key was used with another request.", param="Idempotency-Key"
                )
            if key_state.state != "pending":
                return Replay(status=int(str(key_state.status)), body=str(key_state.body))
            if waited >= self.wait_seconds:
                raise ConflictError("The first request with this Idempotency-Key is still running.")
            await asyncio.sleep(POLL_SECONDS)
            waited += POLL_SECONDS

    async def _claim(self, key_id: str, fingerprint: str, token: str) -> IdempotencyKey:
        now = ids.now_ms()
        return await self.keys.claim(
            key_id,
            fingerprint,
            token,
            now=now,
            expires_before=now - KEEP_MS,
            lease_until=now + self.lease_ms,
        )

    async def hold(self, claim: Claim) -> None:
        """Renews the lease until cancelled (the request's answer is in), a third of a lease apart."""
        while True:
            await asyncio.sleep(self.lease_ms / 3000)
            try:
                if not await self.keys.renew(claim.key_id, claim.token, ids.now_ms() + self.lease_ms):
                    return
            except ProviderError:
                continue  # the store is away: try again next time; the lease may run out meanwhile

    async def finish(
        self, claim: Claim, status: int, body: bytes, *, kept: tuple[int, bytes] | None = None
    ) -> None:
        """Keeps what the client was told (or `kept`, in place of a secret); a failure frees the key."""
        if status >= 500 or status in (401, 403, 409, 429):
            await self.keys.release(claim.key_id, claim.token)
            return
        kept_status, kept_body = kept or (status, body)
        text = kept_body.decode("utf-8", "replace")
        await self.keys.complete(claim.key_id, claim.token, kept_status, text, ids.now_ms())

    async def abandon(self, claim: Claim) -> None:
        """The request raised before answering."""
        await self.keys.release(claim.key_id, claim.token)

    async def sweep(self, batch: int = 1000) -> int:
        """Deletes expired keys and keys abandoned for a whole keep period; how many."""
        now = ids.now_ms()
        return await self.keys.sweep(now - KEEP_MS, now - KEEP_MS, batch)
