"""The ports of lifecycle: what its services need of storage.

That is consolidation runs, entity merges, observe jobs and the records they touch.
The Neo4j stores in provider/store implement them and the composition root passes those in. These
ports have no fakes yet: their services are tested against Neo4j (tests/api, tests/integration).
"""

from __future__ import annotations

from typing import Protocol

from provider.models import (
    ClaimedObserveJob,
    ConsolidationCandidate,
    ConsolidationRun,
    EntityReferrer,
    JobState,
    NamedRecord,
    NewObserveJob,
    RecordVersion,
    Referrer,
    Repoint,
    RunChange,
    RunCounts,
    RunRead,
    RunStart,
    StoredObserveJob,
    StoredRecord,
    Writer,
)


class ConsolidationStorage(Protocol):
    """What the lifecycle services need of the consolidation store."""

    async def start(
        self,
        *,
        id: str,
        memory_id: str,
        trigger: str,
        now: int,
        budget: int,
        revert_of: str | None,
        lease_until: int,
    ) -> RunStart: ...

    async def finish(self, run_id: str, status: str, now: int, read: RunRead, changed: RunCounts) -> None: ...

    async def runs(self, memory_id: str) -> list[ConsolidationRun]: ...

    async def run(self, memory_id: str, run_id: str) -> ConsolidationRun | None: ...

    async def log(
        self,
        run_id: str,
        seq: int,
        record_id: str,
        action: str,
        before: int | None,
        after: int | None,
        now: int,
    ) -> None: ...

    async def changes(self, run_id: str) -> list[RunChange]: ...

    async def candidates(
        self,
        memory_id: str,
        after: int,
        after_id: str,
        entity_types: tuple[str, ...] = ("entity",),
        slot: str = "embedding",
    ) -> list[ConsolidationCandidate]: ...

    async def referrers(self, record_id: str) -> list[Referrer]: ...

    async def mark_reverted(self, run_id: str, reverted_by: str) -> None: ...

    async def renew(self, run_id: str, lease_until: int) -> bool: ...

    async def close_abandoned(self, now: int) -> int: ...


class EntityStorage(Protocol):
    """What the lifecycle services need of the entity store."""

    async def referrers(self, record_id: str) -> list[EntityReferrer]: ...

    async def repoint(self, run_id: str, rows: list[Repoint], writer: Writer, now: int) -> list[str]: ...


class JobStorage(Protocol):
    """What the lifecycle services need of the job store."""

    async def create(self, job: NewObserveJob) -> JobState: ...

    async def claim(
        self, job_id: str, owner: str, now: int, lease_until: int
    ) -> ClaimedObserveJob | None: ...

    async def finish(
        self, job_id: str, owner: str, status: str, record_ids: list[str], error: str, now: int
    ) -> None: ...

    async def get(self, memory_id: str, job_id: str) -> StoredObserveJob | None: ...

    async def abandoned(self, now: int, limit: int) -> list[str]: ...

    async def sweep(self, before: int, batch: int) -> int: ...


class LifecycleRecords(Protocol):
    """What the lifecycle services need of the record store."""

    async def entities(
        self, memory_ids: list[str], types: tuple[str, ...] = ("entity",)
    ) -> list[NamedRecord]: ...

    async def standing(self, memory_id: str, limit: int) -> list[RecordVersion]: ...

    async def sweep_erasures(self, before: int, batch: int) -> int: ...

    async def read(self, record_id: str) -> StoredRecord | None: ...

    async def locate(self, record_ids: list[str]) -> dict[str, str]: ...

    async def forget(self, memory_id: str, record_id: str, now: int) -> None: ...
