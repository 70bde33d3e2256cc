"""The two sides the records contract runs on: the fakes (tests/fakes) and the Neo4j stores.

A `Side` is one implementation of the record and file ports, with what a scenario needs around them:
memories to write into, and the quota counters to read. `sides` builds them for one test and, on the
Neo4j side, deletes the memories and files the test made.
"""

from __future__ import annotations

import contextlib
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from provider.models import NewMemory, RecordVersion, UsageLimits, Writer
from provider.services.records.ports import FileStorage, RecordStorage
from provider.store.driver import Neo4jStore
from provider.store.files import Neo4jFileStore
from provider.store.memories import Neo4jMemoryStore
from provider.store.records import Neo4jRecordStore
from provider.store.schema import apply_schema
from provider.store.usage import Neo4jUsageStore
from tests.fakes.files import FakeFileStore
from tests.fakes.records import FakeRecordStore
from tests.fakes.usage import UsageLedger
from tests.neo4j_target import Neo4jTarget

T0 = 1_767_225_600_000  # 2026-01-01T00:00:00Z, in ms
DIMENSION = 384  # the session's embedding model (all-MiniLM-L6-v2), as the app applies the schema


def new_id(prefix: str) -> str:
    return f"{prefix}_{uuid.uuid4().hex}"


@dataclass
class Side:
    """One implementation of the ports, with memories to write into and the quota counters to read."""

    name: str
    records: RecordStorage
    files: FileStorage
    make_memory: Callable[[str | None], Awaitable[str]]
    usage_of: Callable[[str], Awaitable[tuple[int, int]]]
    made_files: list[str]
    member: str = field(default_factory=lambda: new_id("hmbr"))

    async def memory(self, parent: str | None = None) -> str:
        return await self.make_memory(parent)

    async def usage(self) -> tuple[int, int]:
        """The member's (records, content bytes) as the quota counters hold them."""
        return await self.usage_of(f"member:{self.member}")


class FakeWorld:
    """The fake side: the record and file fakes over a tree of memories kept as parent links."""

    def __init__(self, limits: UsageLimits):
        self.parents: dict[str, str | None] = {}
        self.ledger = UsageLedger(limits)
        self.records = FakeRecordStore(self.root_of, self.ledger)
        self.files = FakeFileStore(self.records)

    def root_of(self, memory_id: str) -> str | None:
        if memory_id not in self.parents:
            return None
        parent = self.parents[memory_id]
        return memory_id if parent is None else self.root_of(parent)

    async def memory(self, parent: str | None) -> str:
        memory_id = new_id("hmem")
        self.parents[memory_id] = parent
        return memory_id

    async def usage(self, principal: str) -> tuple[int, int]:
        counts = self.ledger.payers.get(principal)
        return (counts.records, counts.content_bytes) if counts else (0, 0)


class Neo4jWorld:
    """The real side on the session's Neo4j: memories made by Neo4jMemoryStore, deleted at the end."""

    def __init__(self, store: Neo4jStore, limits: UsageLimits):
        self.memories = Neo4jMemoryStore(store, Neo4jUsageStore(store, UsageLimits()))
        self.records = Neo4jRecordStore(store, Neo4jUsageStore(store, limits))
        self.files = Neo4jFileStore(store)
        self.counters = Neo4jUsageStore(store, limits)
        self.roots: list[str] = []
        self.made_files: list[str] = []

    async def memory(self, parent: str | None) -> str:
        memory_id = new_id("hmem")
        made = await self.memories.create(
            NewMemory(
                id=memory_id,
                name=memory_id,
                description="",
                parent_id=parent,
                restricted=False,
                provider=None,
                default_provider="neo4j",
                grant_id=new_id("hgrt"),
                creator="member:" + new_id("hmbr"),
                now=T0,
            )
        )
        assert made is not None and made.created
        if parent is None:
            self.roots.append(memory_id)
        return memory_id

    async def usage(self, principal: str) -> tuple[int, int]:
        used = await self.counters.of(principal)
        return used.records, used.content_bytes

    async def clean(self) -> None:
        for root in self.roots:
            await self.memories.delete(root)
        await self.files.delete(self.made_files)


def first_version(
    side: Side,
    memory_id: str,
    *,
    at: int,
    text: str = "Harlow Mills pays net sixty.",
    kind: str = "fact",
    references: list[dict[str, Any]] | None = None,
    record_id: str | None = None,
) -> RecordVersion:
    """A first version as RecordService states one, written by the side's member."""
    return RecordVersion(
        record_id=record_id or new_id("hrec"),
        memory_id=memory_id,
        type=kind,
        title=None,
        content=[{"type": "text", "text": text}],
        attributes={"account": "harlow", "tier": {"level": 2}},
        references=references or [],
        version=1,
        status="active",
        supersedes=None,
        valid_from=None,
        valid_to=None,
        written_at=at,
        invalidated_at=None,
        superseded_at=None,
        forgotten_at=None,
        writer=Writer(kind="member", id=side.member, type="human"),
    )


SideMaker = Callable[..., Awaitable[Side]]


@contextlib.asynccontextmanager
async def sides(kind: str, neo4j: Callable[[], Neo4jTarget]) -> AsyncIterator[SideMaker]:
    """Builds sides of one kind ("fake" or "neo4j") with the quotas a test asks for (none by default)."""
    stores: list[Neo4jStore] = []
    worlds: list[Neo4jWorld] = []

    async def build(limits: UsageLimits | None = None) -> Side:
        limits = limits or UsageLimits()
        if kind == "fake":
            fake = FakeWorld(limits)
            return Side("fake", fake.records, fake.files, fake.memory, fake.usage, [])
        if not stores:
            target = neo4j()
            stores.append(Neo4jStore.connect(target.uri, target.user, target.password, "neo4j"))
            await apply_schema(stores[0], DIMENSION)  # a run on a fresh database has it, as the app would
        world = Neo4jWorld(stores[0], limits)
        worlds.append(world)
        return Side("neo4j", world.records, world.files, world.memory, world.usage, world.made_files)

    try:
        yield build
    finally:
        for world in worlds:
            await world.clean()
        for store in stores:
            await store.close()
