"""The data the fake tree stores share, as the Neo4j stores share one database: nodes as plain records.

Records belong to another capability: `TreeData.add_record` and `forget_record` stand for what its
writes do to the counts the tree reads (a record's IN edge, records_version).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field

from provider.models import ApiKey, Grant, Group, Member, NodeFacts
from tests.fakes.usage import UsageLedger


@dataclass
class StoredMemory:
    """A Memory node's properties, and the records the records capability put in it."""

    id: str
    name: str
    description: str
    parent_id: str | None
    restricted: bool
    provider: str
    created_at: int
    updated_at: int
    charged_to: str
    active_records: int = 0
    forgotten_records: int = 0
    records_version: int = 0


@dataclass
class StoredGrant:
    """A Grant node ON a memory; an implicit one is the creator's and has no slot."""

    id: str
    memory_id: str
    principal: str
    privileges: list[str]
    implicit: bool
    created_at: int

    def domain(self) -> Grant:
        return Grant(self.id, self.memory_id, self.principal, frozenset(self.privileges), self.implicit)


@dataclass
class StoredKey:
    """An ApiKey node: its hash, never the key."""

    id: str
    member_id: str
    hash: str
    server: bool
    created_at: int
    expires_at: int | None
    last_used_at: int | None = None
    revoked_at: int | None = None

    def judged_at(self, now: int) -> ApiKey:
        return ApiKey(
            self.id,
            self.member_id,
            self.server,
            self.created_at,
            self.expires_at,
            self.last_used_at,
            self.revoked_at,
            now,
        )


@dataclass
class TreeData:
    """What the fake stores share, as the real ones share a database.

    `usage` is the quota ledger; a FakeRecordStore given it (and `root_of`) charges the same counters.
    """

    memories: dict[str, StoredMemory] = field(default_factory=dict)
    grants: dict[str, StoredGrant] = field(default_factory=dict)
    members: dict[str, Member] = field(default_factory=dict)
    groups: dict[str, Group] = field(default_factory=dict)
    member_of: dict[str, set[str]] = field(default_factory=dict)  # member or group id -> its direct groups
    keys: dict[str, StoredKey] = field(default_factory=dict)
    usage: UsageLedger = field(default_factory=UsageLedger)

    def chain(self, memory_id: str) -> list[StoredMemory]:
        """The memory and every ancestor, root first (the `above` of memory_views, then the memory)."""
        chain: list[StoredMemory] = []
        node: str | None = memory_id
        while node is not None:
            chain.append(self.memories[node])
            node = self.memories[node].parent_id
        return chain[::-1]

    def root_of(self, memory_id: str) -> str | None:
        """The root of a memory's tree; None when there is no such memory."""
        return self.chain(memory_id)[0].id if memory_id in self.memories else None

    def children(self, memory_id: str) -> list[StoredMemory]:
        return [m for m in self.memories.values() if m.parent_id == memory_id]

    def below(self, memory_id: str, depth: int | None = None) -> Iterator[tuple[StoredMemory, int]]:
        """Descendants within `depth` (None: all) with their distance, nearest first."""
        level, dist = self.children(memory_id), 1
        while level and (depth is None or dist <= depth):
            yield from ((m, dist) for m in level)
            level, dist = [c for m in level for c in self.children(m.id)], dist + 1

    def principals(self, member_id: str) -> set[str]:
        """The member and every group it is in, directly or through groups (`MEMBER_OF*1..`)."""
        found: set[str] = set()
        todo = list(self.member_of.get(member_id, ()))
        while todo:
            group = todo.pop()
            if group not in found:
                found.add(group)
                todo += self.member_of.get(group, ())
        return {f"member:{member_id}"} | {f"group:{g}" for g in found}

    def node(self, memory: StoredMemory, principals: set[str], depth: int) -> NodeFacts:
        """What access needs of one memory: the union of the caller's own grants sitting on it."""
        granted = frozenset(
            p
            for g in self.grants.values()
            if g.memory_id == memory.id and g.principal in principals
            for p in g.privileges
        )
        return NodeFacts(memory.id, memory.parent_id, memory.restricted, granted, depth)

    def add_record(self, memory_id: str) -> None:
        """What record_create does to the tree's counts: one more IN edge, records_version bumped."""
        memory = self.memories[memory_id]
        memory.active_records += 1
        memory.records_version += 1

    def forget_record(self, memory_id: str) -> None:
        """What record_forget does: the record stays IN its memory but is no longer active."""
        memory = self.memories[memory_id]
        memory.active_records -= 1
        memory.forgotten_records += 1
        memory.records_version += 1
