"""Observe jobs in Neo4j: an observe answered 202 is finished by whichever instance holds its lease."""

from __future__ import annotations

from typing import Any

from provider.store.driver import Neo4jStore, Row


class Neo4jJobStore:
    """Create, claim, finish, read and sweep jobs; only the lease holder finishes one."""

    def __init__(self, store: Neo4jStore):
        self.store = store

    async def create(self, **fields: Any) -> Row:
        """The job (a new one, or the one a retry under the same key made)."""
        return (await self.store.write("observe_job_create", **fields))[0]

    async def claim(self, job_id: str, owner: str, now: int, lease_until: int) -> Row | None:
        """The job's inputs when this runner now holds it; None when done or held by another."""
        rows = await self.store.write(
            "observe_job_claim", id=job_id, owner=owner, now=now, lease_until=lease_until
        )
        return rows[0] if rows else None

    async def finish(
        self, job_id: str, owner: str, status: str, record_ids: list[str], error: str, now: int
    ) -> None:
        """Closes the job with its outcome."""
        await self.store.write(
            "observe_job_finish",
            id=job_id,
            owner=owner,
            status=status,
            record_ids=record_ids,
            error=error,
            now=now,
        )

    async def get(self, memory_id: str, job_id: str) -> Row | None:
        """A job of this memory, or None."""
        rows = await self.store.read("observe_job_get", id=job_id, memory_id=memory_id)
        return rows[0] if rows else None

    async def abandoned(self, now: int, limit: int) -> list[str]:
        """Pending jobs whose runner died."""
        return [r["id"] for r in await self.store.read("observe_job_abandoned", now=now, limit=limit)]

    async def sweep(self, before: int, batch: int) -> int:
        """Forgets finished jobs older than `before`; how many."""
        rows = await self.store.write("observe_job_sweep", before=before, batch=batch)
        return int(rows[0]["swept"]) if rows else 0
