"""Consolidation runs and their change logs in Neo4j."""

from __future__ import annotations

from typing import Any

from provider.ids import now_ms
from provider.store.driver import Neo4jStore, Row


class Neo4jConsolidationStore:
    """Runs (:Consolidation) and what each did (:ConsolidationChange), per memory."""

    def __init__(self, store: Neo4jStore):
        self.store = store

    async def start(self, **fields: Any) -> Row:
        """`started` is false when another run holds the memory."""
        return (await self.store.write("consolidation_start", **fields))[0]

    async def finish(self, **fields: Any) -> None:
        """Closes a run."""
        await self.store.write("consolidation_finish", **fields)

    async def runs(self, memory_id: str) -> list[dict[str, Any]]:
        """Newest first."""
        return [r["run"] for r in await self.store.read("consolidation_list", memory_id=memory_id)]

    async def run(self, memory_id: str, run_id: str) -> dict[str, Any] | None:
        """One run of the memory, or None."""
        rows = await self.store.read("consolidation_get", memory_id=memory_id, id=run_id)
        return rows[0]["run"] if rows else None

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

    async def changes(self, run_id: str) -> list[Row]:
        """What the run did, in order."""
        return await self.store.read("consolidation_changes", run_id=run_id)

    async def candidates(
        self,
        memory_id: str,
        after: int,
        after_id: str,
        entity_types: tuple[str, ...] = ("entity",),
        slot: str = "embedding",
    ) -> list[Row]:
        """Active facts and entities (of these types), oldest first, `fresh` past the last run's stop.

        `embedding` is each one's vector in `slot`.
        """
        return await self.store.read(
            "consolidation_candidates",
            memory_id=memory_id,
            after=after,
            after_id=after_id,
            entity_types=list(entity_types),
            slot=slot,
        )

    async def referrers(self, record_id: str) -> list[Row]:
        """Active records referencing one."""
        return await self.store.read("record_referrers", id=record_id)

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
