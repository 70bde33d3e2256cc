"""The quota counters in memory: what each payer keeps and each memory holds, judged as Neo4j judges them.

`usage_charge` raises the payer's Usage counters and the held counters of each memory written (a root's
tree total is the sum over the memories of its tree); past a quota nothing is kept. `usage_release`
gives back what a delete removed. The judgement itself is the real one (`provider.store.usage.refusal`),
fed the columns `usage_charge` returns.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from provider.models import RecordVersion, UsageLimits
from provider.store.usage import refusal

RootOf = Callable[[str], str | None]
"""The root of a memory's tree; None when there is no such memory."""


@dataclass
class Counts:
    """One counter set: records and content bytes (and, for a payer, memories created)."""

    records: int = 0
    content_bytes: int = 0
    memories: int = 0


@dataclass(frozen=True)
class Held:
    """What one version counts against: its payer, its memory, the record it adds and its stored bytes."""

    payer: str | None
    memory_id: str
    records: int
    content_bytes: int

    @classmethod
    def of(cls, version: RecordVersion) -> Held:
        """As `version_properties` charges it: content and attributes as ASCII JSON, a record once."""
        size = len(json.dumps(version.content)) + len(json.dumps(version.attributes))
        return cls(version.writer.payer, version.memory_id, int(version.supersedes is None), size)


@dataclass
class UsageLedger:
    """Usage nodes (by principal) and the held counters of memories, for one fake database."""

    limits: UsageLimits = field(default_factory=UsageLimits)
    payers: dict[str, Counts] = field(default_factory=dict)
    held: dict[str, Counts] = field(default_factory=dict)

    def charge(self, charges: list[Held], root_of: RootOf) -> None:
        """Counts a write's versions, all of one payer; raises the 429 and counts nothing past a quota."""
        if not charges:
            return
        payer = charges[0].payer
        records = sum(c.records for c in charges)
        size = sum(c.content_bytes for c in charges)
        before = self.payers.get(payer, Counts()) if payer is not None else None
        row = {
            "payer": None if before is None else vars(before),
            "roots": self._roots(charges, root_of),
            "adding": {"records": records, "content_bytes": size, "memories": 0},
        }
        refused = refusal(self.limits, row)
        if refused is not None:
            raise refused
        if payer is not None:
            counts = self.payers.setdefault(payer, Counts())
            counts.records += records
            counts.content_bytes += size
        for c in charges:
            if root_of(c.memory_id) is not None:
                held = self.held.setdefault(c.memory_id, Counts())
                held.records += c.records
                held.content_bytes += c.content_bytes

    def release(self, gone: Iterable[Held], root_of: RootOf) -> None:
        """Gives back what removed versions were charged; a payer never charged has nothing to give back."""
        for g in gone:
            payer = self.payers.get(g.payer) if g.payer is not None else None
            if payer is not None:
                payer.records -= g.records
                payer.content_bytes -= g.content_bytes
            if root_of(g.memory_id) is not None:
                held = self.held.setdefault(g.memory_id, Counts())
                held.records -= g.records
                held.content_bytes -= g.content_bytes

    def tree(self, root_id: str, root_of: RootOf) -> Counts:
        """What a root's tree holds: the sum of its memories' held counters."""
        total = Counts()
        for memory_id, held in self.held.items():
            if root_of(memory_id) == root_id:
                total.records += held.records
                total.content_bytes += held.content_bytes
        return total

    def _roots(self, charges: list[Held], root_of: RootOf) -> list[dict[str, object]]:
        adding: dict[str, Counts] = {}
        for c in charges:
            root = root_of(c.memory_id)
            if root is not None:
                sums = adding.setdefault(root, Counts())
                sums.records += c.records
                sums.content_bytes += c.content_bytes
        return [
            {
                "id": root,
                **{k: v for k, v in vars(self.tree(root, root_of)).items() if k != "memories"},
                "adding_records": sums.records,
                "adding_bytes": sums.content_bytes,
            }
            for root, sums in sorted(adding.items())
        ]
