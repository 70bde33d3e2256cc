"""In-memory stores behind the tree's ports (provider/services/tree/ports.py), as the Neo4j ones behave.

Every rule here is copied from the Cypher the Neo4j store runs, named in each docstring.
tests/contract/test_tree_storage.py runs one set of scenarios on these and on the Neo4j stores.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from provider.models import (
    ALL_PRIVILEGES,
    CreatedMemory,
    Grant,
    GrantedFacts,
    GrantsOn,
    MemoryFacts,
    MemoryNode,
    NewMemory,
    ReachFacts,
    ScopeSizes,
    UsageLimits,
)
from provider.store.usage import refusal
from tests.fakes.principals import FakePrincipalStore, FakeUsageStore
from tests.fakes.tree_data import StoredGrant, StoredMemory, TreeData
from tests.fakes.usage import Counts, UsageLedger


def _coalesce(*values: str | None) -> str:
    """Cypher's coalesce: the first value that is not null."""
    return next(v for v in values if v is not None)


def _charge_memory(usage: UsageLedger, payer: str) -> None:
    """usage_charge for one memory made: the creator's count, judged first by the store's own `refusal`."""
    before = usage.payers.get(payer, Counts())
    adding = {"records": 0, "content_bytes": 0, "memories": 1}
    refused = refusal(usage.limits, {"payer": vars(before), "roots": [], "adding": adding})
    if refused is not None:
        raise refused
    usage.payers.setdefault(payer, Counts()).memories += 1


class FakeMemoryStore:
    """The tree as memory_views, memory_reach, memory_granted_facts and the memory writes keep it."""

    def __init__(self, data: TreeData):
        self.data = data

    async def facts(self, member_id: str, memory_ids: list[str]) -> dict[str, MemoryFacts]:
        """memory_views: each known memory, its chain (root first) and its direct children."""
        principals = self.data.principals(member_id)
        found: dict[str, MemoryFacts] = {}
        for memory_id in (m for m in memory_ids if m in self.data.memories):
            chain = [self.data.node(m, principals, i) for i, m in enumerate(self.data.chain(memory_id))]
            depth = len(chain)
            children = [self.data.node(c, principals, depth) for c in self.data.children(memory_id)]
            found[memory_id] = MemoryFacts(self._node(memory_id), chain, children)
        return found

    def _node(self, memory_id: str) -> MemoryNode:
        m = self.data.memories[memory_id]
        return MemoryNode(
            id=m.id,
            name=m.name,
            description=m.description,
            parent_id=m.parent_id,
            restricted=m.restricted,
            provider=m.provider,
            created_at=m.created_at,
            updated_at=m.updated_at,
            record_count=m.active_records,
        )

    async def reach(self, member_id: str, memory_id: str, depth: int | None) -> ReachFacts | None:
        """memory_reach: the chain and the subtree within `depth`, with each memory's IN degree."""
        if memory_id not in self.data.memories:
            return None
        principals = self.data.principals(member_id)
        chain = [self.data.node(m, principals, i) for i, m in enumerate(self.data.chain(memory_id))]
        base = chain[-1].depth
        below = list(self.data.below(memory_id, depth))
        scope = [self.data.memories[memory_id], *(m for m, _ in below)]
        sizes = ScopeSizes(
            records={m.id: m.active_records + m.forgotten_records for m in scope},
            versions={m.id: m.records_version for m in scope},
            total=sum(m.active_records + m.forgotten_records for m in self.data.memories.values()),
        )
        return ReachFacts(
            chain=chain,
            below=[self.data.node(m, principals, base + dist) for m, dist in below],
            names={m.id: m.name for m, _ in below},
            sizes=sizes,
        )

    async def granted_facts(self, member_id: str) -> GrantedFacts:
        """memory_granted_facts: every memory the caller holds a grant on, with its chain to the root."""
        principals = self.data.principals(member_id)
        held = {g.memory_id for g in self.data.grants.values() if g.principal in principals}
        nodes = {m.id: (m, i) for memory_id in held for i, m in enumerate(self.data.chain(memory_id))}
        facts = [self.data.node(m, principals, depth) for m, depth in nodes.values()]
        return GrantedFacts(facts, {m.id: m.name for m, _ in nodes.values()})

    async def create(self, memory: NewMemory) -> CreatedMemory | None:
        """memory_create with its charge: the creator's implicit grant, one memory on its quota."""
        parent = self.data.memories.get(memory.parent_id) if memory.parent_id else None
        if memory.parent_id is not None and parent is None:
            return None
        existing = self.data.memories.get(memory.id)
        if existing is not None:  # a retry finds the first write and is charged nothing
            return CreatedMemory(existing.id, existing.provider, created=False)
        _charge_memory(self.data.usage, memory.creator)
        provider = _coalesce(memory.provider, parent.provider if parent else None, memory.default_provider)
        self.data.memories[memory.id] = StoredMemory(
            id=memory.id,
            name=memory.name,
            description=memory.description,
            parent_id=memory.parent_id,
            restricted=memory.restricted,
            provider=provider,
            created_at=memory.now,
            updated_at=memory.now,
            charged_to=memory.creator,
        )
        self.data.grants[memory.grant_id] = StoredGrant(
            memory.grant_id,
            memory.id,
            memory.creator,
            list(ALL_PRIVILEGES),
            implicit=True,
            created_at=memory.now,
        )
        return CreatedMemory(memory.id, provider, created=True)

    async def update(
        self, memory_id: str, *, name: str | None, description: str | None, restricted: bool | None, now: int
    ) -> None:
        """memory_update: each field given replaces the stored one; an unknown memory is left alone."""
        memory = self.data.memories.get(memory_id)
        if memory is None:
            return
        memory.name = memory.name if name is None else name
        memory.description = memory.description if description is None else description
        memory.restricted = memory.restricted if restricted is None else restricted
        memory.updated_at = now

    async def move(self, memory_id: str, parent_id: str | None, now: int) -> Literal["moved", "cycle"] | None:
        """memory_move: a new parent that is the memory or lies below it is a cycle, and nothing moves."""
        memory = self.data.memories.get(memory_id)
        if memory is None or (parent_id is not None and parent_id not in self.data.memories):
            return None
        if parent_id is not None and memory in self.data.chain(parent_id):
            return "cycle"
        memory.parent_id = parent_id
        memory.updated_at = now
        return "moved"

    async def delete(self, memory_id: str) -> list[str]:
        """memory_delete: the subtree, nearest first, and its grants; each payer is given its memory back."""
        if memory_id not in self.data.memories:
            return []
        doomed = [self.data.memories[memory_id], *(m for m, _ in self.data.below(memory_id))]
        ids = {m.id for m in doomed}
        for grant_id in [g.id for g in self.data.grants.values() if g.memory_id in ids]:
            del self.data.grants[grant_id]
        for memory in doomed:
            paid = self.data.usage.payers.get(memory.charged_to)
            if paid is not None:
                paid.memories -= 1
            del self.data.memories[memory.id]
        return [m.id for m in doomed]


class FakeGrantStore:
    """Grants as grant_list, grant_put, grant_get and grant_delete keep them."""

    def __init__(self, data: TreeData):
        self.data = data

    async def bearing_on(self, memory_id: str) -> list[GrantsOn]:
        """grant_list: the chain from the memory up, nearest first, each with its grants, oldest first."""
        if memory_id not in self.data.memories:
            return []
        bearing = []
        for memory in reversed(self.data.chain(memory_id)):
            sitting = sorted(
                (g for g in self.data.grants.values() if g.memory_id == memory.id),
                key=lambda g: (g.created_at, g.id),
            )
            bearing.append(GrantsOn(memory.id, memory.restricted, [g.domain() for g in sitting]))
        return bearing

    async def put(
        self, memory_id: str, principal: str, privileges: list[str], grant_id: str, now: int
    ) -> Grant | None:
        """grant_put: one slot per (memory, principal) beside the creator's implicit grant; its id stays."""
        if memory_id not in self.data.memories:
            return None
        slot = next(
            (
                g
                for g in self.data.grants.values()
                if g.memory_id == memory_id and g.principal == principal and not g.implicit
            ),
            None,
        )
        if slot is None:
            slot = StoredGrant(grant_id, memory_id, principal, [], implicit=False, created_at=now)
            self.data.grants[grant_id] = slot
        slot.privileges = list(privileges)
        return slot.domain()

    async def get(self, memory_id: str, grant_id: str) -> Grant | None:
        """grant_get: only a grant sitting on this very memory."""
        grant = self.data.grants.get(grant_id)
        return grant.domain() if grant is not None and grant.memory_id == memory_id else None

    async def delete(self, memory_id: str, grant_id: str) -> None:
        """grant_delete: removes a grant sitting on this memory; one elsewhere stays."""
        if await self.get(memory_id, grant_id) is not None:
            del self.data.grants[grant_id]


@dataclass
class FakeTree:
    """The four fake stores over one `TreeData`, as the composition root builds the Neo4j ones."""

    data: TreeData
    memories: FakeMemoryStore
    grants: FakeGrantStore
    principals: FakePrincipalStore
    usage: FakeUsageStore


def fake_tree(limits: UsageLimits | None = None) -> FakeTree:
    """Fresh fake stores sharing one empty `TreeData`; `limits` are the quotas in force."""
    data = TreeData(usage=UsageLedger(limits=limits or UsageLimits()))
    return FakeTree(
        data, FakeMemoryStore(data), FakeGrantStore(data), FakePrincipalStore(data), FakeUsageStore(data)
    )
