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
    ) -> RunStart:
        """`started` is false when another run holds the memory."""
        ...

    async def finish(self, run_id: str, status: str, now: int, read: RunRead, changed: RunCounts) -> None:
        """Closes a run."""
        ...

    async def runs(self, memory_id: str) -> list[ConsolidationRun]:
        """Newest first."""
        ...

    async def run(self, memory_id: str, run_id: str) -> ConsolidationRun | None:
        """One run of the memory, or None."""
        ...

    async def log(
        self,
        run_id: str,
        seq: int,
        record_id: str,
        action: str,
        before: int | None,
        after: int | None,
        now: int,
    ) -> None:
        """Appends one change."""
        ...

    async def changes(self, run_id: str) -> list[RunChange]:
        """What the run did, in order."""
        ...

    async def candidates(
        self,
        memory_id: str,
        after: int,
        after_id: str,
        entity_types: tuple[str, ...] = ("entity",),
        slot: str = "embedding",
    ) -> list[ConsolidationCandidate]:
        """Active facts and entities (of these types), oldest first, `fresh` past the last run's stop.

        `embedding` is each one's vector in `slot`.
        """
        ...

    async def referrers(self, record_id: str) -> list[Referrer]:
        """Active records referencing one."""
        ...

    async def mark_reverted(self, run_id: str, reverted_by: str) -> None:
        """Links a run to the run that undid it."""
        ...

    async def renew(self, run_id: str, lease_until: int) -> bool:
        """False once the run is no longer running (closed, or taken for dead)."""
        ...

    async def close_abandoned(self, now: int) -> int:
        """Closes as failed the runs whose lease ran out; how many."""
        ...


class EntityStorage(Protocol):
    """What the lifecycle services need of the entity store."""

    async def referrers(self, record_id: str) -> list[EntityReferrer]:
        """Active records referring to one, with their current version's references."""
        ...

    async def repoint(self, run_id: str, rows: list[Repoint], writer: Writer, now: int) -> list[str]:
        """Appends to each row's record a version with the row's references; the ids of those written.

        Each new version copies its content, so its bytes are charged again, to the writer.
        """
        ...


class JobStorage(Protocol):
    """What the lifecycle services need of the job store."""

    async def create(self, job: NewObserveJob) -> JobState:
        """The job (a new one, or the one a retry under the same key made)."""
        ...

    async def claim(self, job_id: str, owner: str, now: int, lease_until: int) -> ClaimedObserveJob | None:
        """The job's inputs when this runner now holds it; None when done or held by another."""
        ...

    async def finish(
        self, job_id: str, owner: str, status: str, record_ids: list[str], error: str, now: int
    ) -> None:
        """Closes the job with its outcome."""
        ...

    async def get(self, memory_id: str, job_id: str) -> StoredObserveJob | None:
        """A job of this memory, or None."""
        ...

    async def abandoned(self, now: int, limit: int) -> list[str]:
        """Pending jobs whose runner died."""
        ...

    async def sweep(self, before: int, batch: int) -> int:
        """Forgets finished jobs older than `before`; how many."""
        ...


class LifecycleRecords(Protocol):
    """What the lifecycle services need of the record store."""

    async def entities(
        self, memory_ids: list[str], types: tuple[str, ...] = ("entity",)
    ) -> list[NamedRecord]:
        """Active records of these types (entities, people, companies) with the names they go by."""
        ...

    async def standing(self, memory_id: str, limit: int) -> list[RecordVersion]:
        """Active records marked `attributes.standing`, oldest first."""
        ...

    async def sweep_erasures(self, before: int, batch: int) -> int:
        """Forgets notes of finished erases made before `before`; how many."""
        ...

    async def read(self, record_id: str) -> StoredRecord | None:
        """A record with all its versions, or None."""
        ...

    async def locate(self, record_ids: list[str]) -> dict[str, str]:
        """Record id → memory id for the ids that exist."""
        ...

    async def forget(self, memory_id: str, record_id: str, now: int) -> None:
        """Closes the current version as forgotten."""
        ...
