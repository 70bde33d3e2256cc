"""Folding a duplicate person or company into the record kept, by appending versions to a run.

A merge appends, in this order, each logged to the consolidation run it is part of: the kept
record's next version (the duplicate's name and aliases among its aliases, its contact points or
domains added, its references joined); a version of every record that referred to the duplicate,
in a memory the merger may write, now referring to the kept record; and the duplicate's last
version, forgotten, whose one reference is `merged_into` the kept record (a reference the merger
could not move still leads there). Reverting the run appends each record's earlier version again.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, replace
from typing import Any

from provider import ids
from provider.errors import MemoryInvalidError, UnavailableError
from provider.models import EntityReferrer, RecordVersion, Repoint, StoredRecord, Writer
from provider.services.lifecycle.consolidation import Run
from provider.services.lifecycle.ports import ConsolidationStorage, EntityStorage, LifecycleRecords
from provider.services.records import attributes as kinds
from provider.services.records.service import RecordService
from provider.services.types.catalog import ADDED
from provider.services.types.names import folded

MERGED_INTO = "merged_into"
UNIONED = ("emails", "phones", "handles", "domains")
NOT_CARRIED = ("standing", "revision_reason")  # the duplicate's own bookkeeping, not the entity's
REPOINT_BATCH = 500
REPOINT_ROUNDS = 3  # re-reads of referrers revised while the merge ran
Writable = Callable[[set[str]], Awaitable[set[str]]]


@dataclass(frozen=True)
class Plan:
    """A merge checked and ready: the kept record's folded next version, and the duplicate."""

    kept: StoredRecord
    duplicate: StoredRecord
    folded: RecordVersion


def _joined(mine: list[Any], theirs: list[Any], seen: set[str]) -> list[Any]:
    joined = list(mine)
    for value in theirs:
        if isinstance(value, str) and value.strip() and folded(value) not in seen:
            seen.add(folded(value))
            joined.append(value)
    return joined


def folded_attributes(kept: dict[str, Any], duplicate: dict[str, Any]) -> dict[str, Any]:
    """The kept record's attributes with the duplicate's names, contacts and missing fields folded in."""
    result = dict(kept)
    aliases = [a for a in kept.get("aliases") or [] if isinstance(a, str)]
    seen = {folded(kept.get("name") or ""), *(folded(a) for a in aliases)}
    aliases = _joined(aliases, [duplicate.get("name"), *(duplicate.get("aliases") or [])], seen)
    if aliases:
        result["aliases"] = aliases
    for key in UNIONED:
        mine = list(kept.get(key) or [])
        seen = {folded(v) for v in mine if isinstance(v, str)}
        joined = _joined(mine, list(duplicate.get(key) or []), seen)
        if joined:
            result[key] = joined
    for key, value in duplicate.items():
        if key not in NOT_CARRIED:
            result.setdefault(key, value)
    return result


def folded_references(kept: RecordVersion, duplicate: RecordVersion, cap: int) -> list[dict[str, Any]]:
    """The kept record's references and the duplicate's, once each, none to either of the two."""
    ends = {kept.record_id, duplicate.record_id}
    taken = {r["rel"] for r in kept.references if r["rel"] in ("subject", "object")}
    refs = [r for r in kept.references if r["record_id"] not in ends]
    present = {(r["rel"], r["record_id"]) for r in refs}
    for ref in duplicate.references:
        key = (ref["rel"], ref["record_id"])
        if ref["record_id"] in ends or key in present or ref["rel"] in taken or ref["rel"] == MERGED_INTO:
            continue
        present.add(key)
        refs.append(ref)
    if len(refs) > cap:
        raise MemoryInvalidError(
            f"The merged record would hold more than {cap} references.", param="references"
        )
    return refs


def repointed(refs: list[dict[str, Any]], duplicate: str, kept: RecordVersion) -> list[dict[str, Any]]:
    """A referrer's references with the duplicate replaced by the kept record, each (rel, target) once."""
    out: list[dict[str, Any]] = []
    present: set[tuple[str, str]] = set()
    for ref in refs:
        if ref["record_id"] == duplicate:
            ref = {**ref, "record_id": kept.record_id, "memory_id": kept.memory_id}
        if (ref["rel"], ref["record_id"]) not in present:
            present.add((ref["rel"], ref["record_id"]))
            out.append(ref)
    return out


class EntityMerger:
    """Plans a merge (nothing written), then applies it inside a run it is given."""

    def __init__(
        self,
        records: RecordService,
        entities: EntityStorage,
        runs: ConsolidationStorage,
        *,
        record_store: LifecycleRecords,
        reference_cap: int,
    ):
        self.records = records
        self.reference_cap = reference_cap  # a merged record holds at most this many, as a written one
        self.record_store = record_store
        self.entities = entities
        self.runs = runs

    async def plan(self, kept: StoredRecord, duplicate: StoredRecord) -> Plan:
        """The kept record's folded version, checked against its type's schema (422 when it would not fit)."""
        current, other = kept.latest(), duplicate.latest()
        attributes = folded_attributes(current.attributes, other.attributes)
        try:
            await kinds.checked(current.type, attributes)
        except MemoryInvalidError as e:
            raise MemoryInvalidError(f"The merged record would not fit: {e.message}", param=e.param) from None
        version = replace(
            current, attributes=attributes, references=folded_references(current, other, self.reference_cap)
        )
        return Plan(kept=kept, duplicate=duplicate, folded=version)

    async def apply(self, run: Run, plan: Plan, writer: Writer, writable: Writable) -> int:
        """Writes the plan as the run's changes, stamped `writer`; how many references were moved."""
        await self._append(run, plan.kept, plan.folded, writer)
        moved = await self._repoint(run, plan, writer, writable)
        duplicate = plan.duplicate.latest()
        link = {"rel": MERGED_INTO, "memory_id": plan.kept.memory_id, "record_id": plan.kept.id}
        closing = replace(duplicate, references=[link], status="forgotten")
        await self._append(run, plan.duplicate, closing, writer)
        return moved

    async def handled(self, run: Run, duplicate_id: str, kept_id: str) -> bool:
        """For consolidation: folds two people (or companies) of the run's memory; False for other pairs.

        A pair whose merged record would not fit its schema is left as it is.
        """
        kept = await self.record_store.read(kept_id)
        duplicate = await self.record_store.read(duplicate_id)
        if kept is None or duplicate is None or kept.latest().type not in ADDED:
            return False
        if duplicate.latest().type != kept.latest().type:
            return False
        try:
            plan = await self.plan(kept, duplicate)
        except MemoryInvalidError:
            return True

        async def here(memories: set[str]) -> set[str]:
            return memories & {run.memory_id}

        await self.apply(run, plan, run.writer, here)
        return True

    async def _append(self, run: Run, stored: StoredRecord, wanted: RecordVersion, writer: Writer) -> None:
        version = await self.records.append(stored, wanted, writer)
        if version is None:
            raise UnavailableError("A record of the merge was revised meanwhile; try the merge again.")
        run.seq += 1
        run.superseded += 1
        await self.runs.log(
            run.id, run.seq, stored.id, "superseded", stored.current, version.version, version.written_at
        )

    async def _repoint(self, run: Run, plan: Plan, writer: Writer, writable: Writable) -> int:
        moved = 0
        ends = {plan.kept.id, plan.duplicate.id}
        for _ in range(REPOINT_ROUNDS):
            rows = [r for r in await self.entities.referrers(plan.duplicate.id) if r.id not in ends]
            allowed = await writable({r.memory_id for r in rows})
            rows = [r for r in rows if r.memory_id in allowed]
            if not rows:
                break
            for start in range(0, len(rows), REPOINT_BATCH):
                moved += await self._repoint_batch(run, plan, writer, rows[start : start + REPOINT_BATCH])
        return moved

    async def _repoint_batch(self, run: Run, plan: Plan, writer: Writer, rows: list[EntityReferrer]) -> int:
        batch = [
            Repoint(
                id=row.id,
                expected=row.version,
                seq=run.seq + 1 + i,
                references=repointed(row.references, plan.duplicate.id, plan.folded),
            )
            for i, row in enumerate(rows)
        ]
        run.seq += len(batch)
        written = await self.entities.repoint(run.id, batch, writer, ids.now_ms())
        run.superseded += len(written)
        return len(written)
