"""The memory tree in Neo4j: nodes joined by CHILD_OF, grants as nodes ON a memory."""

from __future__ import annotations

import uuid
from dataclasses import asdict
from typing import Literal, cast

from provider.errors import UnavailableError
from provider.ids import now_ms
from provider.models import (
    CreatedMemory,
    GrantedFacts,
    MemoryFacts,
    MemoryNode,
    NewMemory,
    NodeFacts,
    ReachFacts,
    ScopeSizes,
)
from provider.store.driver import Neo4jStore, Row
from provider.store.usage import Charge, Neo4jUsageStore

# Nodes (with their versions) deleted per transaction when a memory is deleted.
DELETE_BATCH = 5_000
# Runs of a move whose chain a concurrent move changed meanwhile; past them the caller hears 503.
MOVE_ATTEMPTS = 20


def _granted(lists: list[list[str]] | None) -> frozenset[str]:
    return frozenset(p for privileges in lists or [] for p in privileges)


def _chain(row: Row) -> list[NodeFacts]:
    above = row["above"]
    chain = [
        NodeFacts(
            id=a["id"],
            parent_id=a["parent_id"],
            restricted=a["restricted"],
            granted=_granted(a["grants"]),
            depth=i,
        )
        for i, a in enumerate(above)
    ]
    chain.append(
        NodeFacts(
            id=row["id"],
            parent_id=row["parent_id"],
            restricted=row["restricted"],
            granted=_granted(row["grants"]),
            depth=len(above),
        )
    )
    return chain


def _memory_facts(row: Row) -> MemoryFacts:
    chain = _chain(row)
    depth = chain[-1].depth + 1
    children = [
        NodeFacts(
            id=c["id"],
            parent_id=row["id"],
            restricted=c["restricted"],
            granted=_granted(c["grants"]),
            depth=depth,
        )
        for c in row["children"]
    ]
    node = MemoryNode(
        id=row["id"],
        name=row["name"],
        description=row["description"] or "",
        parent_id=row["parent_id"],
        restricted=row["restricted"],
        provider=row["provider"],
        created_at=row["created_at"],
        updated_at=row["updated_at"],
        record_count=row["record_count"],
    )
    return MemoryFacts(node=node, chain=chain, children=children)


class Neo4jMemoryStore:
    """Reads facts for access decisions and writes the tree."""

    def __init__(self, store: Neo4jStore, usage: Neo4jUsageStore):
        """`usage` holds the quota counters its writes charge in the same transaction."""
        self.store = store
        self.usage = usage

    async def facts(self, member_id: str, memory_ids: list[str]) -> dict[str, MemoryFacts]:
        """Each known memory with its chain and children, in one round trip."""
        rows = await self.store.read("memory_views", member_id=member_id, ids=memory_ids)
        return {row["id"]: _memory_facts(row) for row in rows}

    async def reach(self, member_id: str, memory_id: str, depth: int | None) -> ReachFacts | None:
        """The chain and the subtree within `depth`, or None when the memory is unknown."""
        rows = await self.store.read("memory_reach", member_id=member_id, memory_id=memory_id, depth=depth)
        if not rows:
            return None
        row = rows[0]
        chain = _chain(row)
        base = chain[-1].depth
        below = [
            NodeFacts(
                id=d["id"],
                parent_id=d["parent_id"],
                restricted=d["restricted"],
                granted=_granted(d["grants"]),
                depth=base + d["dist"],
            )
            for d in row["below"]
        ]
        sizes = ScopeSizes(
            records={row["id"]: int(row["records"]), **{d["id"]: int(d["records"]) for d in row["below"]}},
            versions={
                row["id"]: int(row["records_version"]),
                **{d["id"]: int(d["records_version"]) for d in row["below"]},
            },
            total=int(row["total_records"]),
        )
        return ReachFacts(
            chain=chain, below=below, names={d["id"]: d["name"] for d in row["below"]}, sizes=sizes
        )

    async def granted_facts(self, member_id: str) -> GrantedFacts:
        """Every node the caller holds a grant on, with their chains, and the nodes' names."""
        rows = await self.store.read("memory_granted_facts", member_id=member_id)
        facts = [
            NodeFacts(
                id=r["id"],
                parent_id=r["parent_id"],
                restricted=r["restricted"],
                granted=_granted(r["grants"]),
                depth=r["depth"],
            )
            for r in rows
        ]
        return GrantedFacts(facts, {r["id"]: r["name"] for r in rows})

    async def create(self, memory: NewMemory) -> CreatedMemory | None:
        """Creates a memory with its creator's grant; None when the parent vanished.

        The memory is charged to its creator's quota of memories: past it, 429 and nothing created.
        A memory whose id stands already is left as it is and charged nothing (`created` False).
        """
        made = Charge(payer=memory.creator, memories=1)
        rows = await self.usage.charged(
            "memory_create", asdict(memory), lambda rows: made if rows and rows[0]["created"] else None
        )
        if not rows:
            return None
        row = rows[0]
        return CreatedMemory(id=row["id"], provider=row["provider"], created=bool(row["created"]))

    async def update(
        self, memory_id: str, *, name: str | None, description: str | None, restricted: bool | None, now: int
    ) -> None:
        """Changes the fields given."""
        await self.store.write(
            "memory_update", id=memory_id, name=name, description=description, restricted=restricted, now=now
        )

    async def move(self, memory_id: str, parent_id: str | None, now: int) -> Literal["moved", "cycle"] | None:
        """'moved', 'cycle' (refused: the new parent lies below), or None when either memory is unknown.

        A 'stale' answer means a concurrent move changed the new parent's chain between the read and
        the locks (memory_move.cypher), so it runs again, on the chain as it now is.
        """
        for _ in range(MOVE_ATTEMPTS):
            rows = await self.store.write("memory_move", id=memory_id, parent_id=parent_id, now=now)
            if not rows:
                return None
            outcome = rows[0]["outcome"]
            if outcome in ("moved", "cycle"):
                return cast(Literal["moved", "cycle"], outcome)
        raise UnavailableError("The tree kept changing under this move; try again.")

    async def delete(self, memory_id: str) -> list[str]:
        """Removes the subtree; the ids removed.

        What the subtree holds goes first, batch by batch: one transaction for 100,000 records and
        their versions ran past Neo4j's transaction memory limit. A failure part-way leaves the memory
        in place, fewer of its contents, and the same call finishes the job. Each batch gives back
        what its versions were charged, and the last step the memories' own charge.
        """
        while True:
            sweep_id = "hfsw_" + uuid.uuid4().hex
            done = await self.usage.released(
                "memory_delete_batch",
                {"id": memory_id, "batch": DELETE_BATCH, "sweep_id": sweep_id, "now": now_ms()},
            )
            if not done[0]["deleted"]:
                break
        rows = await self.usage.released("memory_delete", {"id": memory_id})
        return list(rows[0]["memories"]) if rows else []
