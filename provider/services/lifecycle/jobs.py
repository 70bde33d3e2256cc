"""Observe jobs: an observe answered 202 keeps its episodes after the answer, and survives a restart.

The job, its episodes and its runner's lease live in Neo4j. The instance that took the request runs
it at once; if that process dies, the lease runs out and the sweeper of any instance takes it over.
The records' ids derive from the job's id, so a job run twice keeps each episode once.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import uuid
from typing import Any

from provider import ids, metrics, tracing
from provider.errors import JobNotFoundError, ProviderError
from provider.fairness import FairGate, current_principal
from provider.models import Caller, JobState, NewObserveJob, ReadRecord, RecordDraft
from provider.services.lifecycle.observe import ObserveService
from provider.services.lifecycle.ports import JobStorage, LifecycleRecords
from provider.services.records.references import ReferenceResolver
from provider.services.records.service import RecordService
from provider.services.tree.memories import TreeService

log = logging.getLogger("provider.jobs")
KEEP_MS = 48 * 3600 * 1000


def episodes_json(episodes: list[RecordDraft]) -> str:
    """The episodes as a job keeps them until it has run: each draft's own fields."""
    return json.dumps(
        [
            {
                "type": "episode",
                "title": e.title,
                "content": e.content,
                "attributes": e.attributes,
                "valid_from": e.valid_from,
                "valid_to": e.valid_to,
            }
            for e in episodes
        ]
    )


def episodes_from(text: str) -> list[RecordDraft]:
    """The episodes a job keeps, as drafts (checked when the request came in)."""
    return [_episode(item) for item in json.loads(text)]


def _episode(item: dict[str, Any]) -> RecordDraft:
    """One kept episode; a job kept before drafts were holds the request's own shape (no `type`)."""
    time = item.get("time") or {}
    content = item["content"]
    return RecordDraft(
        type="episode",
        title=item.get("title"),
        content=[{"type": "text", "text": content}] if isinstance(content, str) else content,
        attributes=item.get("attributes") or {},
        valid_from=item.get("valid_from", time.get("valid_from")),
        valid_to=item.get("valid_to", time.get("valid_to")),
    )


class ObserveJobs:
    """Starts, runs, takes over and reads observe jobs."""

    def __init__(
        self,
        tree: TreeService,
        observe: ObserveService,
        records: RecordService,
        jobs: JobStorage,
        *,
        record_store: LifecycleRecords,
        references: ReferenceResolver,
        lease_ms: int,
        concurrent: int,
        turns: FairGate | None = None,
    ):
        self.record_store, self.references = record_store, references
        # However many jobs callers start, this process runs at most `concurrent` at once; the rest
        # wait their turn (or are taken over by another instance once their first lease runs out).
        # They wait in a queue served round-robin by the principal who observed, not in arrival order;
        # a job that runs also takes a turn among the process's writes (`turns`), so a flood of observed
        # episodes is bounded like a flood of remembers.
        self.slots = FairGate("observe jobs", slots=concurrent, max_waiting=1, max_wait_seconds=1.0)
        self.turns = turns
        self.tree = tree
        self.observe = observe
        self.records = records
        self.jobs = jobs
        self.lease_ms = lease_ms
        self.owner = uuid.uuid4().hex  # this process, as a lease holder
        self.running: set[asyncio.Task[None]] = set()

    async def start(
        self, caller: Caller, memory_id: str, episodes: list[RecordDraft], *, job_id: str
    ) -> JobState:
        """Records the job (needs write) and starts it; its id and status for the 202."""
        await self.tree.require(caller, memory_id, "write")
        now = ids.now_ms()
        job = NewObserveJob(
            id=job_id,
            memory_id=memory_id,
            caller=caller,
            episodes_json=episodes_json(episodes),
            count=len(episodes),
            now=now,
            lease_until=now + self.lease_ms,
            owner=self.owner,
        )
        state = await self.jobs.create(job)
        if state.status == "pending":
            task = asyncio.create_task(self._queued(job_id))
            self.running.add(task)
            task.add_done_callback(self.running.discard)
        return state

    async def _queued(self, job_id: str) -> None:
        principal = current_principal.get()
        metrics.OBSERVE_JOBS_WAITING.inc()
        try:
            await self.slots.acquire(principal, patient=True)
        finally:
            metrics.OBSERVE_JOBS_WAITING.dec()
        try:
            if self.turns is not None:
                await self.turns.acquire(principal, patient=True)
            try:
                with metrics.OBSERVE_JOBS_RUNNING.track_inprogress():
                    await self.run(job_id)
            finally:
                if self.turns is not None:
                    self.turns.release(principal)
        finally:
            self.slots.release(principal)

    async def run(self, job_id: str) -> None:
        """Runs a job this process holds, or one whose runner died; nothing when another holds it.

        Its span starts a trace of its own, linked to the request's: the job outlives the request.
        """
        with tracing.span("observe job", {"uhp.job.id": job_id}, root=True):
            await self._run(job_id)

    async def _run(self, job_id: str) -> None:
        now = ids.now_ms()
        claimed = await self.jobs.claim(job_id, self.owner, now, now + self.lease_ms)
        if claimed is None:
            return
        holder = asyncio.create_task(self._hold(job_id))
        try:
            episodes = episodes_from(claimed.episodes_json)
            kept = await self.observe.observe(claimed.caller, claimed.memory_id, episodes, seed=job_id)
            written = [r.version.record_id for r in kept]
            await self.jobs.finish(job_id, self.owner, "completed", written, "", ids.now_ms())
        except ProviderError as e:
            await self.jobs.finish(job_id, self.owner, "failed", [], e.message, ids.now_ms())
        except Exception:
            log.exception("observe job %s failed", job_id)
            message = "The provider failed to keep the episodes."
            await self.jobs.finish(job_id, self.owner, "failed", [], message, ids.now_ms())
        finally:
            holder.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await holder

    async def _hold(self, job_id: str) -> None:
        while True:
            await asyncio.sleep(self.lease_ms / 3000)
            now = ids.now_ms()
            try:
                if await self.jobs.claim(job_id, self.owner, now, now + self.lease_ms) is None:
                    return
            except ProviderError:
                continue  # the store is away: try again next time

    async def read(self, caller: Caller, memory_id: str, job_id: str) -> tuple[JobState, list[ReadRecord]]:
        """The job (needs read on its memory) and, once completed, the records it wrote."""
        await self.tree.require(caller, memory_id, "read")
        job = await self.jobs.get(memory_id, job_id)
        if job is None:
            raise JobNotFoundError("No job with that id is in this memory.", param="job_id")
        versions = []
        for record_id in job.record_ids:
            stored = await self.record_store.read(record_id)
            if stored is not None:
                versions.append(stored.latest())
        return job.state, await self.references.for_reads(caller, versions)

    async def resume_abandoned(self, limit: int = 20) -> int:
        """Runs jobs whose runner died (the sweeper calls this); how many were found."""
        found = await self.jobs.abandoned(ids.now_ms(), limit)
        for job_id in found:
            await self.run(job_id)
        return len(found)

    async def sweep(self) -> int:
        """Forgets finished jobs older than the keep period."""
        return await self.jobs.sweep(ids.now_ms() - KEEP_MS, 1000)

    async def close(self) -> None:
        """Stops this process's runners at shutdown; their leases run out and another instance resumes."""
        for task in list(self.running):
            task.cancel()
        for task in list(self.running):
            with contextlib.suppress(asyncio.CancelledError):
                await task
