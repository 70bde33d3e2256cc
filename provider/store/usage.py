"""The quota counters in Neo4j: a write charged in its own transaction, a delete's give-back, a reading.

A write runs first and `usage_charge` after it in the same transaction, raising the counters of the
principal who pays and of the root memory whose tree it writes into; past a quota the transaction is
rolled back, the write with it, and the caller hears 429 `quota_exhausted` naming the limit. A delete
runs `usage_release` the same way with what it says it removed.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from provider.errors import QuotaExhaustedError
from provider.ids import now_ms
from provider.models import Usage, UsageLimits
from provider.store.driver import Neo4jStore, Row

# (limit, counter, setting, unit): what a principal keeps.
PAYER_LIMITS = (
    ("records", "records", "UHP_QUOTA_RECORDS", "records"),
    ("content_bytes", "content_bytes", "UHP_QUOTA_CONTENT_BYTES", "bytes"),
    ("memories", "memories", "UHP_QUOTA_MEMORIES", "memories"),
)
# (limit, counter, what the write adds, setting, unit): what one root memory's tree holds.
ROOT_LIMITS = (
    ("root_records", "records", "adding_records", "UHP_QUOTA_ROOT_RECORDS", "records"),
    ("root_content_bytes", "content_bytes", "adding_bytes", "UHP_QUOTA_ROOT_CONTENT_BYTES", "bytes"),
)


@dataclass(frozen=True)
class Charge:
    """What one write adds: memories its payer created, and records and bytes per memory written."""

    payer: str | None
    held: list[dict[str, Any]] = field(default_factory=list)
    memories: int = 0

    @classmethod
    def of_records(cls, payer: str | None, added: list[tuple[str, int, int]]) -> Charge | None:
        """(memory_id, records, bytes) rows summed per memory; None when nothing was added."""
        per_memory: dict[str, list[int]] = {}
        for memory_id, records, size in added:
            sums = per_memory.setdefault(memory_id, [0, 0])
            sums[0] += records
            sums[1] += size
        held = [{"memory_id": m, "records": r, "bytes": b} for m, (r, b) in per_memory.items()]
        return cls(payer=payer, held=held) if held else None


@dataclass(frozen=True)
class _Check:
    """One limit as one charge meets it: what is held, what the write adds, and whose it is."""

    limit: str
    setting: str
    unit: str
    held: int
    adding: int
    whose: str  # "what you keep", "the memory tree of <id>"
    where: dict[str, str] = field(default_factory=dict)


def refusal(limits: UsageLimits, row: Row) -> QuotaExhaustedError | None:
    """The 429 for the first limit a charge (a `usage_charge` row) passes; None when it fits."""
    for check in _checks(row):
        quota = getattr(limits, check.limit)
        if quota and check.adding and check.held + check.adding > quota:
            message = (
                f"This write would take {check.whose} past its quota of {quota} {check.unit} "
                f"({check.setting}): {check.held} held, the write adds {check.adding}."
            )
            detail = {"limit": check.limit, "setting": check.setting, "quota": quota, "held": check.held}
            return QuotaExhaustedError(message, detail={**detail, "adding": check.adding, **check.where})
    return None


def _checks(row: Row) -> list[_Check]:
    held, adding = row["payer"], row["adding"]
    checks = [
        _Check(limit, setting, unit, held[counter], adding[counter], "what you keep")
        for limit, counter, setting, unit in PAYER_LIMITS
        if held is not None
    ]
    for root in row["roots"]:
        whose, where = f"the memory tree of {root['id']}", {"root_id": root["id"]}
        checks += [
            _Check(limit, setting, unit, root[counter], root[added], whose, where)
            for limit, counter, added, setting, unit in ROOT_LIMITS
        ]
    return checks


class Neo4jUsageStore:
    """Runs writes with their charge and deletes with their give-back; reads a principal's usage."""

    def __init__(self, store: Neo4jStore, limits: UsageLimits):
        self.store = store
        self.limits = limits

    async def charged(
        self, name: str, params: Mapping[str, Any], charge: Callable[[list[Row]], Charge | None]
    ) -> list[Row]:
        """Runs the write `name` and charges what `charge` reads off its rows; past a quota, 429.

        The refusal rolls the write back with the charge: nothing of it is kept.
        """

        def then(rows: list[Row]) -> tuple[str, Mapping[str, Any]] | None:
            made = charge(rows)
            if made is None:
                return None
            return "usage_charge", {
                "payer": made.payer,
                "memories": made.memories,
                "held": made.held,
                "now": now_ms(),
            }

        return await self.store.write_then((name, params), then, self._judge)

    def _judge(self, rows: list[Row]) -> None:
        refused = refusal(self.limits, rows[0])
        if refused is not None:
            raise refused

    async def released(self, name: str, params: Mapping[str, Any]) -> list[Row]:
        """Runs the delete `name` and gives back what its rows say it removed (`released`, `payers`)."""

        def then(rows: list[Row]) -> tuple[str, Mapping[str, Any]] | None:
            if not rows:
                return None
            return "usage_release", {
                "released": rows[0].get("released") or [],
                "memories": rows[0].get("payers") or [],
            }

        return await self.store.write_then((name, params), then, lambda _: None)

    async def of(self, principal: str) -> Usage:
        """What the principal keeps, beside the limits in force."""
        row = (await self.store.read("usage_read", principal=principal))[0]
        return Usage(
            principal=principal,
            records=int(row["records"]),
            content_bytes=int(row["content_bytes"]),
            memories=int(row["memories"]),
            limits=self.limits,
        )
