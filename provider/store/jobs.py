"""Observe jobs in Neo4j: an observe answered 202 is finished by whichever instance holds its lease."""

from __future__ import annotations

from provider.models import Caller, ClaimedObserveJob, JobState, NewObserveJob, StoredObserveJob
from provider.store.driver import Neo4jStore


class Neo4jJobStore:
    """Create, claim, finish, read and sweep jobs; only the lease holder finishes one."""

    def __init__(self, store: Neo4jStore):
        self.store = store

    async def create(self, job: NewObserveJob) -> JobState:
        """The job (a new one, or the one a retry under the same key made)."""
        row = (
            await self.store.write(
                "observe_job_create",
                id=job.id,
                memory_id=job.memory_id,
                member_id=job.caller.member_id,
                member_type=job.caller.member_type,
                via_server=job.caller.via_server,
                episodes_json=job.episodes_json,
                count=job.count,
                now=job.now,
                lease_until=job.lease_until,
                owner=job.owner,
            )
        )[0]
        return JobState(id=row["id"], status=row["status"])

    async def claim(self, job_id: str, owner: str, now: int, lease_until: int) -> ClaimedObserveJob | None:
        """The job's inputs when this runner now holds it; None when done or held by another."""
        rows = await self.store.write(
            "observe_job_claim", id=job_id, owner=owner, now=now, lease_until=lease_until
        )
        if not rows:
            return None
        row = rows[0]
        caller = Caller(
            member_id=row["member_id"], member_type=row["member_type"], via_server=bool(row["via_server"])
        )
        return ClaimedObserveJob(row["id"], row["memory_id"], caller, row["episodes_json"])

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

    async def get(self, memory_id: str, job_id: str) -> StoredObserveJob | None:
        """A job of this memory, or None."""
        rows = await self.store.read("observe_job_get", id=job_id, memory_id=memory_id)
        if not rows:
            return None
        row = rows[0]
        return StoredObserveJob(
            JobState(row["id"], row["status"], row["error"] or None), list(row["record_ids"])
        )

    async def abandoned(self, now: int, limit: int) -> list[str]:
        """Pending jobs whose runner died."""
        return [r["id"] for r in await self.store.read("observe_job_abandoned", now=now, limit=limit)]

    async def sweep(self, before: int, batch: int) -> int:
        """Forgets finished jobs older than `before`; how many."""
        rows = await self.store.write("observe_job_sweep", before=before, batch=batch)
        return int(rows[0]["swept"]) if rows else 0
