"""Consolidation runs and their change logs in Neo4j."""

from __future__ import annotations

from provider.ids import now_ms
from provider.models import (
    ConsolidationCandidate,
    ConsolidationRun,
    Referrer,
    RunChange,
    RunCounts,
    RunRead,
    RunStart,
)
from provider.store.driver import Neo4jStore, Row
from provider.store.records import named_record


def run_of(row: Row) -> ConsolidationRun:
    """A stored run's properties as the domain's `ConsolidationRun`."""
    return ConsolidationRun(
        id=row["id"],
        memory_id=row["memory_id"],
        status=row["status"],
        trigger=row.get("trigger"),
        started_at_ms=row.get("started_at"),
        finished_at_ms=row.get("finished_at"),
        examined=row.get("read_examined") or 0,
        read_through_ms=row.get("read_through"),
        created=row.get("changes_created") or 0,
        superseded=row.get("changes_superseded") or 0,
        forgotten=row.get("changes_forgotten") or 0,
        budget_limit=row.get("budget_limit"),
        budget_exhausted=bool(row.get("budget_exhausted")),
        error=row.get("error") or "",
        revert_of=row.get("revert_of") or None,
        reverted_by=row.get("reverted_by") or None,
    )


class Neo4jConsolidationStore:
    """Runs (:Consolidation) and what each did (:ConsolidationChange), per memory."""

    def __init__(self, store: Neo4jStore):
        self.store = store

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
        row = (
            await self.store.write(
                "consolidation_start",
                id=id,
                memory_id=memory_id,
                trigger=trigger,
                now=now,
                budget=budget,
                revert_of=revert_of,
                lease_until=lease_until,
            )
        )[0]
        return RunStart(started=bool(row["started"]), after=int(row["after"]), after_id=str(row["after_id"]))

    async def finish(self, run_id: str, status: str, now: int, read: RunRead, changed: RunCounts) -> None:
        """Closes a run."""
        await self.store.write(
            "consolidation_finish",
            id=run_id,
            status=status,
            now=now,
            examined=read.examined,
            through=read.through,
            through_id=read.through_id,
            exhausted=read.exhausted,
            error=read.error,
            created=changed.created,
            superseded=changed.superseded,
            forgotten=changed.forgotten,
        )

    async def runs(self, memory_id: str) -> list[ConsolidationRun]:
        """Newest first."""
        return [run_of(r["run"]) for r in await self.store.read("consolidation_list", memory_id=memory_id)]

    async def run(self, memory_id: str, run_id: str) -> ConsolidationRun | None:
        """One run of the memory, or None."""
        rows = await self.store.read("consolidation_get", memory_id=memory_id, id=run_id)
        return run_of(rows[0]["run"]) if rows else None

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
        await self.store.write(
            "consolidation_change_add",
            run_id=run_id,
            seq=seq,
            record_id=record_id,
            action=action,
            before=before,
            after=after,
            now=now,
        )

    async def changes(self, run_id: str) -> list[RunChange]:
        """What the run did, in order."""
        rows = await self.store.read("consolidation_changes", run_id=run_id)
        return [RunChange(r["seq"], r["record_id"], r["action"], r["before"], r["after"]) for r in rows]

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
        rows = await self.store.read(
            "consolidation_candidates",
            memory_id=memory_id,
            after=after,
            after_id=after_id,
            entity_types=list(entity_types),
            slot=slot,
        )
        return [
            ConsolidationCandidate(
                **vars(named_record(row)),
                written_at=row["written_at"],
                valid_to_ms=row["valid_to_ms"],
                embedding=row["embedding"],
                subject=row["subject"],
                fresh=bool(row["fresh"]),
            )
            for row in rows
        ]

    async def referrers(self, record_id: str) -> list[Referrer]:
        """Active records referencing one."""
        return [
            Referrer(r["id"], r["memory_id"]) for r in await self.store.read("record_referrers", id=record_id)
        ]

    async def mark_reverted(self, run_id: str, reverted_by: str) -> None:
        """Links a run to the run that undid it."""
        await self.store.write("consolidation_mark_reverted", id=run_id, reverted_by=reverted_by)

    async def busy_below(self, memory_id: str) -> bool:
        """A run is active in the memory or below it."""
        rows = await self.store.read("consolidation_active_below", memory_id=memory_id, now=now_ms())
        return bool(rows and rows[0]["busy"])

    async def renew(self, run_id: str, lease_until: int) -> bool:
        """False once the run is no longer running (closed, or taken for dead)."""
        rows = await self.store.write("consolidation_renew", id=run_id, lease_until=lease_until)
        return bool(rows and rows[0]["renewed"])

    async def close_abandoned(self, now: int) -> int:
        """Closes as failed the runs whose lease ran out; how many."""
        rows = await self.store.write("consolidation_abandoned", now=now)
        return int(rows[0]["closed"]) if rows else 0
