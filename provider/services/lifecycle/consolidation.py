"""Consolidation runs: visible, bounded by a budget, and reversible by appending."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from dataclasses import dataclass, field, replace
from typing import Any, Protocol

from provider import ids, tracing
from provider.errors import (
    ConflictError,
    ConsolidationNotFoundError,
    MemoryForbiddenError,
    MemoryInvalidError,
    ProviderError,
)
from provider.models import (
    Caller,
    ConsolidationRun,
    NetChange,
    RecordVersion,
    RunChange,
    RunCounts,
    RunRead,
    StoredRecord,
    Writer,
)
from provider.services.lifecycle.ports import ConsolidationStorage, LifecycleRecords
from provider.services.lifecycle.rules import decide
from provider.services.records.service import RecordService
from provider.services.tree.memories import TreeService
from provider.services.types.catalog import ENTITY_TYPES
from provider.services.vectors import VectorModels


@dataclass
class Run:
    """A run in progress: who it writes as and what it has done so far."""

    id: str
    memory_id: str
    writer: Writer
    seq: int = 0
    created: int = 0
    superseded: int = 0
    forgotten: int = 0
    holder: asyncio.Task[None] | None = field(default=None, repr=False)

    async def release(self) -> None:
        """Stops renewing the lease (the run is closed, or its request was cancelled)."""
        if self.holder is not None:
            self.holder.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self.holder


def net_changes(changes: list[RunChange]) -> list[NetChange]:
    """Each record's changes in a run as one, the last changed first, for a revert.

    A record the run changed twice (two duplicates folded into it) is restored once, to the version
    before the run's first change, provided it is still where the run's last change left it.
    """
    first: dict[str, RunChange] = {}
    last: dict[str, RunChange] = {}
    for change in changes:
        first.setdefault(change.record_id, change)
        last[change.record_id] = change
    ordered = sorted(last.values(), key=lambda c: c.seq, reverse=True)
    return [
        NetChange(
            record_id=end.record_id,
            action=first[end.record_id].action,
            before=first[end.record_id].before,
            expected=end.before if end.action == "forgotten" else end.after,
        )
        for end in ordered
    ]


class EntityFolder(Protocol):
    """Folds a duplicate person or company into the record kept (services/lifecycle/merge.py)."""

    async def handled(self, run: Run, duplicate_id: str, kept_id: str) -> bool:
        """True when it merged the pair (or left it, unable to); False when the pair is not its kind."""
        ...


class ConsolidationService:
    """Runs on one memory at a time; a second start while one runs is `memory_busy`."""

    def __init__(
        self,
        tree: TreeService,
        runs: ConsolidationStorage,
        records: RecordService,
        *,
        record_store: LifecycleRecords,
        vectors: VectorModels,
        provider_id: str,
        threshold: float,
        default_budget: int,
        lease_ms: int,
        merger: EntityFolder | None = None,
    ):
        self.merger = merger
        self.record_store, self.vectors = record_store, vectors
        self.lease_ms = lease_ms
        self.tree = tree
        self.runs = runs
        self.records = records
        self.provider_id = provider_id
        self.threshold = threshold
        self.default_budget = default_budget

    def capabilities(self) -> dict[str, Any]:
        """Runs are listed, inspected and reverted."""
        return {"consolidate": "runs"}

    async def start(self, caller: Caller, memory_id: str, budget_limit: int | None) -> ConsolidationRun:
        """Runs the rules now, within the budget (unit: records examined); None: the default budget."""
        await self.tree.require(caller, memory_id, "write")
        budget = budget_limit or self.default_budget
        with tracing.span("consolidation run", {"uhp.consolidation.trigger": "request"}):
            run, (after, after_id) = await self._open(memory_id, "request", budget, None)
            try:
                return await self._run_rules(caller, run, budget, after, after_id)
            finally:
                await run.release()

    async def _run_rules(
        self, caller: Caller, run: Run, budget: int, after: int, after_id: str
    ) -> ConsolidationRun:
        memory_id = run.memory_id
        try:
            slot = await self.vectors.reading()
            rows = await self.runs.candidates(memory_id, after, after_id, ENTITY_TYPES, slot)
            # Comparing each examined fact with those kept before it is CPU work: off the event loop.
            decisions = await asyncio.to_thread(
                decide, rows, now=ids.now_ms(), budget=budget, threshold=self.threshold
            )
            for record_id in decisions.expired + decisions.duplicates:
                await self._forget(run, caller, record_id)
            for duplicate, kept in decisions.merges:
                await self._merge(run, caller, duplicate, kept)
        except Exception as e:
            await self._close(run, "failed", error=type(e).__name__)
            raise
        status = "stopped" if decisions.exhausted else "completed"
        await self._close(
            run,
            status,
            examined=decisions.examined,
            through=decisions.through or after or None,
            through_id=decisions.through_id or after_id or None,
            exhausted=decisions.exhausted,
        )
        return await self._answer(memory_id, run.id)

    async def _open(
        self, memory_id: str, trigger: str, budget: int, revert_of: str | None
    ) -> tuple[Run, tuple[int, str]]:
        run_id = ids.new_id(ids.CONSOLIDATION)
        start = await self.runs.start(
            id=run_id,
            memory_id=memory_id,
            trigger=trigger,
            now=ids.now_ms(),
            budget=budget,
            revert_of=revert_of,
            lease_until=ids.now_ms() + self.lease_ms,
        )
        if not start.started:
            raise ConflictError("A consolidation already runs in this memory.")
        writer = Writer(kind="provider", id=self.provider_id, consolidation_id=run_id)
        run = Run(id=run_id, memory_id=memory_id, writer=writer)
        run.holder = asyncio.create_task(self._hold(run.id))
        return run, (start.after, start.after_id)

    @contextlib.asynccontextmanager
    async def run(self, memory_id: str, trigger: str, *, revert_of: str | None = None) -> AsyncIterator[Run]:
        """A run another service writes its changes through (a record operation's merge).

        Its changes are then listed and reverted as any run's; it closes completed, or failed on an error.
        """
        with tracing.span("consolidation run", {"uhp.consolidation.trigger": trigger}):
            run, _ = await self._open(memory_id, trigger, 0, revert_of)
            try:
                yield run
            except BaseException as e:
                await self._close(run, "failed", error=type(e).__name__)
                raise
            finally:
                await run.release()
            await self._close(run, "completed")

    async def _hold(self, run_id: str) -> None:
        """Renews the run's lease a third of a lease apart until it is released or no longer running."""
        while True:
            await asyncio.sleep(self.lease_ms / 3000)
            try:
                if not await self.runs.renew(run_id, ids.now_ms() + self.lease_ms):
                    return
            except ProviderError:
                continue  # the store is away: try again next time

    async def close_abandoned(self) -> int:
        """Closes runs whose process died (the sweeper calls this); how many."""
        return await self.runs.close_abandoned(ids.now_ms())

    async def _close(
        self,
        run: Run,
        status: str,
        *,
        examined: int = 0,
        through: int | None = None,
        through_id: str | None = None,
        exhausted: bool = False,
        error: str = "",
    ) -> None:
        read = RunRead(examined, through, through_id, exhausted, error)
        await self.runs.finish(
            run.id, status, ids.now_ms(), read, RunCounts(run.created, run.superseded, run.forgotten)
        )

    async def _log(
        self, run: Run, record_id: str, action: str, before: int | None, after: int | None
    ) -> None:
        run.seq += 1
        await self.runs.log(run.id, run.seq, record_id, action, before, after, ids.now_ms())

    async def _forget(self, run: Run, caller: Caller, record_id: str) -> None:
        stored = await self.record_store.read(record_id)
        if stored is None or stored.latest().status != "active":
            return
        await self.record_store.forget(run.memory_id, record_id, ids.now_ms())
        run.forgotten += 1
        await self._log(run, record_id, "forgotten", stored.current, None)

    async def _merge(self, run: Run, caller: Caller, duplicate: str, kept: str) -> None:
        if self.merger is not None and await self.merger.handled(run, duplicate, kept):
            return
        for referrer in await self.runs.referrers(duplicate):
            if referrer.memory_id != run.memory_id:
                continue
            stored = await self.record_store.read(referrer.id)
            if stored is None:
                continue
            current = stored.latest()
            refs = [
                {**r, "record_id": kept, "memory_id": run.memory_id} if r["record_id"] == duplicate else r
                for r in current.references
            ]
            await self._append(run, stored, replace(current, references=refs))
        await self._forget(run, caller, duplicate)

    async def _append(self, run: Run, stored: StoredRecord, wanted: RecordVersion) -> None:
        """A run's next version of a record, always active; lost to a concurrent write, it is skipped."""
        version = await self.records.append(stored, replace(wanted, status="active"), run.writer)
        if version is not None:
            run.superseded += 1
            await self._log(run, stored.id, "superseded", stored.current, version.version)

    async def revert(self, caller: Caller, memory_id: str, run_id: str) -> ConsolidationRun:
        """Undoes a run by appending, never by rewriting.

        What the run forgot or superseded is current again as a new version; what it created is
        forgotten. History keeps the run and its reversal.
        """
        await self.tree.require(caller, memory_id, "write")
        original = await self._run(memory_id, run_id)
        if original.reverted_by or original.revert_of or original.status == "running":
            raise MemoryInvalidError(
                "That run is running, was reverted already, or is itself a revert.", param="run_id"
            )
        changes = await self.runs.changes(run_id)
        await self._require_reach(caller, memory_id, changes)
        async with self.run(memory_id, "revert", revert_of=run_id) as run:
            for change in net_changes(changes):
                await self._undo(run, caller, change)
        await self.runs.mark_reverted(run_id, run.id)
        return await self._answer(memory_id, run.id)

    async def _require_reach(self, caller: Caller, memory_id: str, changes: list[RunChange]) -> None:
        """A run that changed records of other memories (a merge across them): write on each reverts it."""
        located = await self.record_store.locate(sorted({c.record_id for c in changes}))
        others = sorted(set(located.values()) - {memory_id})
        views = await self.tree.views(caller, others) if others else []
        writable = {v.node.id for v in views if "write" in v.privileges}
        if set(others) - writable:
            raise MemoryForbiddenError(
                "This run changed records in memories you may not write; one who may write them reverts it.",
                param="run_id",
            )

    async def _undo(self, run: Run, caller: Caller, change: NetChange) -> None:
        stored = await self.record_store.read(change.record_id)
        if stored is None:
            return
        if change.action == "created":
            await self._forget(run, caller, change.record_id)
            return
        if stored.current != change.expected:
            return
        before = next(v for v in stored.versions if v.version == change.before)
        await self._append(run, stored, before)

    async def _run(self, memory_id: str, run_id: str) -> ConsolidationRun:
        found = await self.runs.run(memory_id, run_id)
        if found is None:
            raise ConsolidationNotFoundError(
                "No consolidation run with that id in this memory.", param="run_id"
            )
        return found

    async def _answer(self, memory_id: str, run_id: str) -> ConsolidationRun:
        """The run a write started, answered under write: a writer without read gets it too.

        A run carries counts and status, never a record's content; reading runs later needs read.
        """
        return await self._run(memory_id, run_id)

    async def get(self, caller: Caller, memory_id: str, run_id: str) -> ConsolidationRun:
        """One run."""
        await self.tree.require(caller, memory_id, "read")
        return await self._run(memory_id, run_id)

    async def listing(self, caller: Caller, memory_id: str) -> list[ConsolidationRun]:
        """Newest first."""
        await self.tree.require(caller, memory_id, "read")
        return await self.runs.runs(memory_id)

    async def changes(self, caller: Caller, memory_id: str, run_id: str) -> list[RunChange]:
        """The records the run wrote, superseded or forgot, in order."""
        await self.tree.require(caller, memory_id, "read")
        await self._run(memory_id, run_id)
        return await self.runs.changes(run_id)
