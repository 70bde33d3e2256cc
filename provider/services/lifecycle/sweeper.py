"""The sweeper: finishes or clears what a dead process left, at start-up and on a schedule.

Every multi-step write leaves something in Neo4j that says what is left to do, with an owner's lease
where someone may be waiting: idempotency keys, consolidation runs, file notes left by erase and
memory delete, erase notes, staged uploads, observe jobs; and uploads no record named within their
grace (UHP_FILE_ORPHAN_GRACE_SECONDS), which give their owner's quota back. A live request finishes
its own; this takes the rest, so nothing stays stuck past a lease, even when no retry ever comes. Sweeping
twice, or from two instances at once, does no harm: each step is safe to repeat.
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass

from provider import ids
from provider.blobs import BlobStore
from provider.services.lifecycle.consolidation import ConsolidationService
from provider.services.lifecycle.jobs import ObserveJobs
from provider.services.lifecycle.ports import LifecycleRecords
from provider.services.records.files import FileService
from provider.services.records.idempotency import KEEP_MS, IdempotencyService

log = logging.getLogger("provider.sweeper")
UPLOAD_GRACE_SECONDS = 3600.0  # a staged upload older than this has no live request behind it


@dataclass
class Swept:
    """What one pass cleared."""

    keys: int = 0
    runs: int = 0
    file_notes: int = 0
    erasures: int = 0
    uploads: int = 0
    orphans: int = 0
    jobs_resumed: int = 0
    jobs_forgotten: int = 0


class Sweeper:
    """One pass (`sweep`) and the loop that repeats it (`run`)."""

    def __init__(
        self,
        *,
        idempotency: IdempotencyService,
        consolidation: ConsolidationService,
        files: FileService,
        blobs: BlobStore,
        jobs: ObserveJobs,
        records: LifecycleRecords,
        lease_ms: int,
        interval_seconds: float,
    ):
        self.idempotency = idempotency
        self.consolidation = consolidation
        self.files = files
        self.blobs = blobs
        self.jobs = jobs
        self.records = records
        self.lease_ms = lease_ms
        self.interval_seconds = interval_seconds

    async def sweep(self) -> Swept:
        """One pass over everything a dead process could have left."""
        now = ids.now_ms()
        return Swept(
            keys=await self.idempotency.sweep(),
            runs=await self.consolidation.close_abandoned(),
            # A note younger than a lease may belong to a request still finishing it: leave it be.
            file_notes=await self.files.sweep(before=now - self.lease_ms),
            erasures=await self.records.sweep_erasures(now - KEEP_MS, 1000),
            uploads=await asyncio.to_thread(self.blobs.sweep_incoming, UPLOAD_GRACE_SECONDS),
            orphans=await self.files.reclaim_orphans(now),
            jobs_resumed=await self.jobs.resume_abandoned(),
            jobs_forgotten=await self.jobs.sweep(),
        )

    async def run(self) -> None:
        """Sweeps now, then every interval, until cancelled; a failed pass is logged and retried.

        An interval of 0 means no background sweeping: it returns at once (`sweep` is called by hand).
        """
        while self.interval_seconds > 0:
            try:
                swept = await self.sweep()
                if any(vars(swept).values()):
                    log.info("swept %s", swept)
            except Exception:
                log.exception("a sweep failed; the next one retries")
            await asyncio.sleep(self.interval_seconds)
