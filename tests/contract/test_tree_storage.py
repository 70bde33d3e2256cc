"""The tree's storage, one set of scenarios on the fakes (tests/fakes/tree.py) and on the Neo4j stores.

Every test runs twice, `[fake]` and `[neo4j]`, and asserts the same results on both: what the fast tier
(tests/unit/test_tree_rules.py) learns on the fakes holds for the stores the service runs on. Each test
makes its own members, groups and memories under fresh ids, and deletes the memories it made.
"""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field

import pytest

from provider import ids
from provider.errors import QuotaExhaustedError
from provider.models import (
    ALL_PRIVILEGES,
    ApiKey,
    CreatedMemory,
    Grant,
    Group,
    KeyHolder,
    Member,
    MemoryNode,
    NewKey,
    NewMemory,
    NodeFacts,
    RecordVersion,
    Usage,
    UsageLimits,
    Writer,
)
from provider.services.tree.ports import GrantStorage, MemoryStorage, PrincipalStorage, UsageStorage
from provider.store.driver import Neo4jStore
from provider.store.grants import Neo4jGrantStore
from provider.store.memories import Neo4jMemoryStore
from provider.store.principals import Neo4jPrincipalStore
from provider.store.records import Neo4jRecordStore
from provider.store.schema import apply_schema
from provider.store.usage import Neo4jUsageStore
from tests.fakes.tree import fake_tree
from tests.neo4j_target import Neo4jTarget

pytestmark = pytest.mark.anyio

T0 = 1_700_000_000_000
DIMENSION = 384  # the session's embedding model (all-MiniLM-L6-v2), as the app applies the schema
ALL = frozenset(ALL_PRIVILEGES)
NONE: frozenset[str] = frozenset()


@dataclass
class Tree:
    """One backend's tree stores, and what a record write does to the counts the tree reads."""

    memories: MemoryStorage
    grants: GrantStorage
    principals: PrincipalStorage
    usage: UsageStorage
    add_record: Callable[[str], Awaitable[str]]
    forget_record: Callable[[str, str], Awaitable[None]]
    made: list[str] = field(default_factory=list)  # memories to delete at the end

    async def memory(
        self,
        creator: str,
        parent: str | None = None,
        *,
        name: str = "m",
        restricted: bool = False,
        provider: str | None = None,
        at: int = T0,
    ) -> str:
        """A new memory's id, made through the store."""
        memory_id = ids.new_id(ids.MEMORY)
        draft = NewMemory(
            memory_id, name, "", parent, restricted, provider, "neo4j", ids.new_id(ids.GRANT), creator, at
        )
        assert await self.memories.create(draft) is not None
        self.made.append(memory_id)
        return memory_id

    async def member(self, name: str = "t") -> str:
        """A new member's id."""
        return (await self.principals.create_member(ids.new_id(ids.MEMBER), "human", name, T0)).id

    async def group(self) -> str:
        """A new group's id."""
        return (await self.principals.create_group(ids.new_id(ids.GROUP), "g", T0)).id


TreeMaker = Callable[..., Awaitable[Tree]]
SCHEMA_APPLIED: set[str] = set()  # the Neo4j servers this module applied the schema to


def _fake(limits: UsageLimits) -> Tree:
    fakes = fake_tree(limits)

    async def add_record(memory_id: str) -> str:
        fakes.data.add_record(memory_id)
        return ids.new_id(ids.RECORD)

    async def forget_record(memory_id: str, _record_id: str) -> None:
        fakes.data.forget_record(memory_id)

    return Tree(fakes.memories, fakes.grants, fakes.principals, fakes.usage, add_record, forget_record)


def _note(memory_id: str, writer: str) -> RecordVersion:
    """A plain first version, as the record service would store it."""
    return RecordVersion(
        record_id=ids.new_id(ids.RECORD), memory_id=memory_id, type="note", title=None,
        content=[{"type": "text", "text": "a note"}], attributes={}, references=[], version=1,
        status="active", supersedes=None, valid_from=None, valid_to=None, written_at=T0,
        invalidated_at=None, superseded_at=None, forgotten_at=None,
        writer=Writer(kind="member", id=writer, type="human"),
    )  # fmt: skip


def _neo4j(store: Neo4jStore, limits: UsageLimits) -> Tree:
    records = Neo4jRecordStore(store, Neo4jUsageStore(store, UsageLimits()))
    writer = ids.new_id(ids.MEMBER)

    async def add_record(memory_id: str) -> str:
        version = _note(memory_id, writer)
        assert await records.create(version, "a note", None)
        return version.record_id

    async def forget_record(memory_id: str, record_id: str) -> None:
        await records.forget(memory_id, record_id, T0 + 1)

    return Tree(
        Neo4jMemoryStore(store, Neo4jUsageStore(store, limits)),
        Neo4jGrantStore(store),
        Neo4jPrincipalStore(store),
        Neo4jUsageStore(store, limits),
        add_record,
        forget_record,
    )


@pytest.fixture(params=["fake", "neo4j"])
async def open_tree(request: pytest.FixtureRequest) -> AsyncIterator[TreeMaker]:
    """Opens the stores this run is about, with the quotas a test asks for (none by default)."""
    trees: list[Tree] = []
    stores: list[Neo4jStore] = []

    async def build(limits: UsageLimits | None = None) -> Tree:
        limits = limits or UsageLimits()
        if request.param == "fake":
            return _fake(limits)
        if not stores:
            target: Neo4jTarget = request.getfixturevalue("neo4j_target")
            stores.append(Neo4jStore.connect(target.uri, target.user, target.password, "neo4j"))
            if target.uri not in SCHEMA_APPLIED:  # idempotent, as the app applies it at start
                await apply_schema(stores[0], DIMENSION)
                SCHEMA_APPLIED.add(target.uri)
        trees.append(_neo4j(stores[0], limits))
        return trees[-1]

    yield build
    for tree in trees:
        for memory_id in tree.made:
            await tree.memories.delete(memory_id)
    for store in stores:
        await store.close()


@pytest.fixture
async def tree(open_tree: TreeMaker) -> Tree:
    return await open_tree()


def _by_id(nodes: list[NodeFacts]) -> dict[str, tuple[str | None, bool, frozenset[str], int]]:
    """Facts by id, so an order the store does not promise is not compared."""
    return {n.id: (n.parent_id, n.restricted, n.granted, n.depth) for n in nodes}


def _principal() -> str:
    return f"member:{ids.new_id(ids.MEMBER)}"


# Memories: create and the facts access reads


async def test_a_new_memory_holds_its_creators_implicit_grant_and_inherits_the_provider(tree: Tree) -> None:
    owner = await tree.member()
    root = await tree.memory(f"member:{owner}", name="root", provider="elsewhere")
    child_id, grant_id = ids.new_id(ids.MEMORY), ids.new_id(ids.GRANT)
    draft = NewMemory(child_id, "child", "", root, False, None, "neo4j", grant_id, f"member:{owner}", T0 + 1)
    assert await tree.memories.create(draft) == CreatedMemory(child_id, "elsewhere", created=True)
    tree.made.append(child_id)
    facts = await tree.memories.facts(owner, [child_id, root, ids.new_id(ids.MEMORY)])
    assert set(facts) == {child_id, root}
    assert facts[child_id].node == MemoryNode(child_id, "child", "", root, False, "elsewhere", T0 + 1, T0 + 1)
    assert _by_id(facts[child_id].chain) == {root: (None, False, ALL, 0), child_id: (root, False, ALL, 1)}
    assert _by_id(facts[root].children) == {child_id: (root, False, ALL, 1)}
    stranger = await tree.memories.facts(ids.new_id(ids.MEMBER), [child_id])
    assert {n.granted for n in stranger[child_id].chain} == {NONE}


async def test_creating_an_existing_id_again_changes_and_charges_nothing(tree: Tree) -> None:
    owner = _principal()
    memory_id, grant_id = ids.new_id(ids.MEMORY), ids.new_id(ids.GRANT)
    first = NewMemory(memory_id, "first", "", None, False, None, "neo4j", grant_id, owner, T0)
    assert await tree.memories.create(first) == CreatedMemory(memory_id, "neo4j", created=True)
    tree.made.append(memory_id)
    again = NewMemory(memory_id, "again", "", None, True, "other", "neo4j", ids.new_id(ids.GRANT), owner, T0)
    assert await tree.memories.create(again) == CreatedMemory(memory_id, "neo4j", created=False)
    member_id = owner.removeprefix("member:")
    assert (await tree.memories.facts(member_id, [memory_id]))[memory_id].node.name == "first"
    assert (await tree.usage.of(owner)).memories == 1
    assert [g.id for _, _, grants in await tree.grants.bearing_on(memory_id) for g in grants] == [grant_id]


async def test_a_memory_under_an_unknown_parent_is_not_created(tree: Tree) -> None:
    owner = _principal()
    memory_id = ids.new_id(ids.MEMORY)
    parent = ids.new_id(ids.MEMORY)
    draft = NewMemory(memory_id, "m", "", parent, False, None, "neo4j", ids.new_id(ids.GRANT), owner, T0)
    assert await tree.memories.create(draft) is None
    assert await tree.memories.facts(owner.removeprefix("member:"), [memory_id]) == {}
    assert (await tree.usage.of(owner)).memories == 0


async def test_reach_reads_the_chain_and_the_subtree_within_a_depth_with_group_grants(tree: Tree) -> None:
    owner, reader = _principal(), await tree.member()
    outer, inner = await tree.group(), await tree.group()
    assert await tree.principals.add_to_group(inner, reader)
    assert await tree.principals.add_to_group(outer, inner)
    root = await tree.memory(owner, name="root")
    a, b = (
        await tree.memory(owner, root, name="a"),
        await tree.memory(owner, root, name="b", restricted=True),
    )
    a1 = await tree.memory(owner, a, name="a1")
    a11 = await tree.memory(owner, a1, name="a11")
    await tree.grants.put(a, f"member:{reader}", ["read"], ids.new_id(ids.GRANT), T0)
    await tree.grants.put(b, f"group:{outer}", ["write"], ids.new_id(ids.GRANT), T0)
    whole = await tree.memories.reach(reader, root, None)
    assert whole is not None
    assert _by_id(whole.chain) == {root: (None, False, NONE, 0)}
    assert _by_id(whole.below) == {
        a: (root, False, frozenset({"read"}), 1),
        b: (root, True, frozenset({"write"}), 1),
        a1: (a, False, NONE, 2),
        a11: (a1, False, NONE, 3),
    }
    assert whole.names == {a: "a", b: "b", a1: "a1", a11: "a11"}
    for depth, expected in ((0, set()), (1, {a, b}), (2, {a, b, a1})):
        within = await tree.memories.reach(reader, root, depth)
        assert within is not None and {n.id for n in within.below} == expected
    from_a1 = await tree.memories.reach(reader, a1, None)
    assert from_a1 is not None
    assert [(n.id, n.depth) for n in from_a1.chain] == [(root, 0), (a, 1), (a1, 2)]
    assert _by_id(from_a1.below) == {a11: (a1, False, NONE, 3)}
    assert await tree.memories.reach(reader, ids.new_id(ids.MEMORY), None) is None


async def test_the_scope_sizes_count_every_record_in_a_memory_and_the_view_only_the_active(
    tree: Tree,
) -> None:
    owner = await tree.member()
    root = await tree.memory(f"member:{owner}")
    child = await tree.memory(f"member:{owner}", root)
    kept, gone = await tree.add_record(root), await tree.add_record(root)
    await tree.add_record(child)
    await tree.forget_record(root, gone)
    reach = await tree.memories.reach(owner, root, None)
    assert reach is not None and kept != gone
    assert reach.sizes.records == {root: 2, child: 1}
    assert reach.sizes.versions == {root: 3, child: 1}
    assert reach.sizes.total >= 3
    facts = await tree.memories.facts(owner, [root, child])
    assert (facts[root].node.record_count, facts[child].node.record_count) == (1, 1)


async def test_granted_facts_are_the_granted_memories_and_their_chains(tree: Tree) -> None:
    owner, reader, team = _principal(), await tree.member(), await tree.group()
    assert await tree.principals.add_to_group(team, reader)
    root = await tree.memory(owner, name="root")
    middle = await tree.memory(owner, root, name="middle", restricted=True)
    leaf = await tree.memory(owner, middle, name="leaf")
    other = await tree.memory(owner, name="other")
    await tree.grants.put(leaf, f"member:{reader}", ["read"], ids.new_id(ids.GRANT), T0)
    await tree.grants.put(other, f"group:{team}", ["read", "create"], ids.new_id(ids.GRANT), T0)
    facts, names = await tree.memories.granted_facts(reader)
    assert _by_id(facts) == {
        root: (None, False, NONE, 0),
        middle: (root, True, NONE, 1),
        leaf: (middle, False, frozenset({"read"}), 2),
        other: (None, False, frozenset({"read", "create"}), 0),
    }
    assert names == {root: "root", middle: "middle", leaf: "leaf", other: "other"}


# Memories: update, move, delete, the quota


async def test_an_update_changes_only_the_fields_given(tree: Tree) -> None:
    owner = await tree.member()
    memory_id = await tree.memory(f"member:{owner}", name="before")
    await tree.memories.update(memory_id, name="after", description=None, restricted=True, now=T0 + 5)
    node = (await tree.memories.facts(owner, [memory_id]))[memory_id].node
    assert (node.name, node.description, node.restricted, node.created_at, node.updated_at) == (
        "after", "", True, T0, T0 + 5,
    )  # fmt: skip
    await tree.memories.update(memory_id, name=None, description="said", restricted=None, now=T0 + 6)
    node = (await tree.memories.facts(owner, [memory_id]))[memory_id].node
    assert (node.name, node.description, node.restricted) == ("after", "said", True)
    await tree.memories.update(ids.new_id(ids.MEMORY), name="x", description=None, restricted=None, now=T0)


async def test_a_move_carries_the_subtree_and_refuses_a_cycle(tree: Tree) -> None:
    owner = await tree.member()
    root, other = await tree.memory(f"member:{owner}"), await tree.memory(f"member:{owner}")
    a = await tree.memory(f"member:{owner}", root)
    b = await tree.memory(f"member:{owner}", a)
    assert await tree.memories.move(a, b, T0 + 1) == "cycle"
    assert await tree.memories.move(a, a, T0 + 1) == "cycle"
    assert await tree.memories.move(ids.new_id(ids.MEMORY), other, T0 + 1) is None
    assert await tree.memories.move(a, ids.new_id(ids.MEMORY), T0 + 1) is None
    assert (await tree.memories.facts(owner, [a]))[a].node.parent_id == root
    assert await tree.memories.move(a, other, T0 + 2) == "moved"
    facts = await tree.memories.facts(owner, [a, b])
    assert [n.id for n in facts[b].chain] == [other, a, b]
    assert (facts[a].node.parent_id, facts[a].node.updated_at) == (other, T0 + 2)
    assert await tree.memories.move(a, None, T0 + 3) == "moved"
    assert [n.id for n in (await tree.memories.facts(owner, [b]))[b].chain] == [a, b]


async def test_a_delete_removes_the_subtree_and_its_grants_and_gives_the_memories_back(tree: Tree) -> None:
    owner = await tree.member()
    principal = f"member:{owner}"
    root = await tree.memory(principal)
    a, b = await tree.memory(principal, root), await tree.memory(principal, root)
    a1 = await tree.memory(principal, a)
    grant = await tree.grants.put(a, _principal(), ["read"], ids.new_id(ids.GRANT), T0)
    assert grant is not None and (await tree.usage.of(principal)).memories == 4
    removed = await tree.memories.delete(a)
    assert removed[0] == a and sorted(removed) == sorted([a, a1])
    assert await tree.memories.facts(owner, [a, a1]) == {}
    assert await tree.grants.get(a, grant.id) is None
    assert await tree.grants.bearing_on(a1) == []
    assert (await tree.usage.of(principal)).memories == 2
    assert await tree.memories.delete(ids.new_id(ids.MEMORY)) == []
    assert await tree.memories.delete(root) == [root, b]
    assert (await tree.usage.of(principal)).memories == 0


async def test_the_memory_quota_refuses_one_more_and_counts_a_retry_once(open_tree: TreeMaker) -> None:
    limits = UsageLimits(memories=2)
    tree = await open_tree(limits)
    owner = await tree.member()
    principal = f"member:{owner}"
    first, second = await tree.memory(principal), await tree.memory(principal)
    third = NewMemory(
        ids.new_id(ids.MEMORY), "m", "", None, False, None, "neo4j", ids.new_id(ids.GRANT), principal, T0
    )
    with pytest.raises(QuotaExhaustedError) as refused:
        await tree.memories.create(third)
    assert refused.value.message == (
        "This write would take what you keep past its quota of 2 memories (UHP_QUOTA_MEMORIES): "
        "2 held, the write adds 1."
    )
    assert refused.value.detail == {
        "limit": "memories", "setting": "UHP_QUOTA_MEMORIES", "quota": 2, "held": 2, "adding": 1,
    }  # fmt: skip
    assert await tree.memories.facts(owner, [third.id]) == {}
    retry = NewMemory(first, "m", "", None, False, None, "neo4j", ids.new_id(ids.GRANT), principal, T0)
    assert await tree.memories.create(retry) == CreatedMemory(first, "neo4j", created=False)
    assert await tree.usage.of(principal) == Usage(principal, 0, 0, 2, limits)
    await tree.memories.delete(second)
    assert await tree.memories.create(third) is not None
    tree.made.append(third.id)


# Grants


async def test_a_grant_takes_its_principals_slot_and_the_creators_implicit_grant_stays_apart(
    tree: Tree,
) -> None:
    owner, reader = _principal(), _principal()
    memory_id = await tree.memory(owner)
    first, second, own = (ids.new_id(ids.GRANT) for _ in range(3))
    put = await tree.grants.put(memory_id, reader, ["read"], first, T0 + 1)
    assert put == Grant(first, memory_id, reader, frozenset({"read"}))
    replaced = await tree.grants.put(memory_id, reader, ["read", "write"], second, T0 + 2)
    assert replaced == Grant(first, memory_id, reader, frozenset({"read", "write"}))
    assert await tree.grants.put(memory_id, owner, ["read"], own, T0 + 3) == Grant(
        own, memory_id, owner, frozenset({"read"})
    )
    [(node, restricted, grants)] = await tree.grants.bearing_on(memory_id)
    assert (node, restricted) == (memory_id, False)
    assert [(g.principal, g.privileges, g.implicit) for g in grants] == [
        (owner, ALL, True),
        (reader, frozenset({"read", "write"}), False),
        (owner, frozenset({"read"}), False),
    ]
    assert grants[1:] == [replaced, Grant(own, memory_id, owner, frozenset({"read"}))]
    assert await tree.grants.put(ids.new_id(ids.MEMORY), reader, ["read"], ids.new_id(ids.GRANT), T0) is None


async def test_get_and_delete_reach_only_a_grant_sitting_on_the_memory_named(tree: Tree) -> None:
    owner, reader = _principal(), _principal()
    root = await tree.memory(owner)
    child = await tree.memory(owner, root)
    grant = await tree.grants.put(root, reader, ["read"], ids.new_id(ids.GRANT), T0 + 1)
    assert grant is not None
    assert await tree.grants.get(root, grant.id) == grant
    assert await tree.grants.get(child, grant.id) is None
    assert await tree.grants.get(root, ids.new_id(ids.GRANT)) is None
    [(_, _, on_root)] = await tree.grants.bearing_on(root)
    implicit = on_root[0]
    assert await tree.grants.get(root, implicit.id) == Grant(implicit.id, root, owner, ALL, implicit=True)
    await tree.grants.delete(child, grant.id)
    assert await tree.grants.get(root, grant.id) == grant
    await tree.grants.delete(root, grant.id)
    assert await tree.grants.get(root, grant.id) is None


async def test_the_grants_bearing_on_a_memory_run_up_to_its_root_nearest_first(tree: Tree) -> None:
    owner, reader = _principal(), _principal()
    root = await tree.memory(owner)
    cut = await tree.memory(owner, root, restricted=True)
    leaf = await tree.memory(owner, cut)
    await tree.grants.put(cut, reader, ["write"], ids.new_id(ids.GRANT), T0 + 1)
    bearing = await tree.grants.bearing_on(leaf)
    assert [(node, restricted) for node, restricted, _ in bearing] == [
        (leaf, False),
        (cut, True),
        (root, False),
    ]
    assert [[g.principal for g in grants] for _, _, grants in bearing] == [
        [owner],
        [owner, reader],
        [owner],
    ]


# Principals, keys and usage


async def test_members_and_groups_are_stored_and_read_back(tree: Tree) -> None:
    member_id, group_id = ids.new_id(ids.MEMBER), ids.new_id(ids.GROUP)
    made = await tree.principals.create_member(member_id, "agent", "Ada", T0)
    assert made == Member(member_id, "agent", "Ada")
    assert await tree.principals.get_member(member_id) == made
    assert await tree.principals.get_member(ids.new_id(ids.MEMBER)) is None
    assert await tree.principals.create_group(group_id, "Team", T0) == Group(group_id, "Team")


async def test_membership_carries_grants_through_nested_groups_until_it_is_removed(tree: Tree) -> None:
    member, outer, inner = await tree.member(), await tree.group(), await tree.group()
    assert await tree.principals.add_to_group(inner, member)
    assert await tree.principals.add_to_group(outer, inner)
    assert not await tree.principals.add_to_group(ids.new_id(ids.GROUP), member)
    assert not await tree.principals.add_to_group(outer, ids.new_id(ids.MEMBER))
    memory_id = await tree.memory(_principal())
    await tree.grants.put(memory_id, f"group:{outer}", ["read"], ids.new_id(ids.GRANT), T0)

    async def granted() -> frozenset[str]:
        return (await tree.memories.facts(member, [memory_id]))[memory_id].chain[-1].granted

    assert await granted() == frozenset({"read"})
    assert await tree.principals.remove_from_group(outer, inner) == (True, 1)
    assert await tree.principals.remove_from_group(outer, inner) == (True, 0)
    assert await tree.principals.remove_from_group(ids.new_id(ids.GROUP), member) == (False, 0)
    assert await granted() == NONE


async def test_a_key_resolves_while_in_force_and_its_use_is_stamped_once_a_minute(tree: Tree) -> None:
    member = await tree.member()
    key_id, key_hash = "hkey_" + uuid.uuid4().hex, uuid.uuid4().hex
    added = await tree.principals.add_key(
        member, key_id, key_hash, server=False, now=T0, expires_at=T0 + 100_000
    )
    assert added == ApiKey(key_id, member, False, T0, T0 + 100_000, None, None, T0)
    assert await tree.principals.resolve_key(key_hash, T0 + 10) == KeyHolder(
        member, "human", False, key_id, None
    )
    assert await tree.principals.resolve_key(key_hash, T0 + 100_000) is None
    assert await tree.principals.resolve_key(uuid.uuid4().hex, T0) is None
    missing = await tree.principals.add_key(
        ids.new_id(ids.MEMBER),
        "hkey_" + uuid.uuid4().hex,
        uuid.uuid4().hex,
        server=False,
        now=T0,
        expires_at=None,
    )
    assert missing is None
    for touched_at in (T0 + 10, T0 + 20, T0 + 60_010):
        await tree.principals.touch_key(key_id, touched_at, 60_000)
        holder = await tree.principals.resolve_key(key_hash, touched_at)
        assert holder is not None and holder.last_used_at_ms == (
            T0 + 60_010 if touched_at > T0 + 20 else T0 + 10
        )


async def test_rotate_and_revoke_end_a_key_and_an_earlier_end_stays(tree: Tree) -> None:
    member = await tree.member()
    old, old_hash = "hkey_" + uuid.uuid4().hex, uuid.uuid4().hex
    new, new_hash = "hkey_" + uuid.uuid4().hex, uuid.uuid4().hex
    await tree.principals.add_key(member, old, old_hash, server=True, now=T0, expires_at=None)
    rotated = await tree.principals.rotate_key(
        member, old, NewKey(new, new_hash), now=T0 + 5, old_ends=T0 + 100, expires_at=None
    )
    assert rotated == (
        ApiKey(new, member, True, T0 + 5, None, None, None, T0 + 5),
        ApiKey(old, member, True, T0, None, None, T0 + 100, T0 + 5),
    )
    assert await tree.principals.resolve_key(old_hash, T0 + 99) is not None
    assert await tree.principals.resolve_key(old_hash, T0 + 100) is None
    revoked = await tree.principals.revoke_key(member, old, T0 + 60)
    assert revoked is not None and revoked.revoked_at_ms == T0 + 60
    again = await tree.principals.revoke_key(member, old, T0 + 90)
    assert again == ApiKey(old, member, True, T0, None, None, T0 + 60, T0 + 90)
    assert await tree.principals.revoke_key(await tree.member(), old, T0) is None
    assert (
        await tree.principals.rotate_key(
            member, "hkey_" + uuid.uuid4().hex, NewKey(new, new_hash), now=T0, old_ends=T0, expires_at=None
        )
        is None
    )
    listed = await tree.principals.list_keys(member, T0 + 200)
    assert listed is not None
    assert [(k.id, k.revoked, k.expired) for k in listed] == [(new, False, False), (old, True, False)]
    assert await tree.principals.list_keys(ids.new_id(ids.MEMBER), T0) is None


async def test_usage_starts_at_nothing_and_carries_the_limits(open_tree: TreeMaker) -> None:
    limits = UsageLimits(records=5, content_bytes=6, memories=7)
    tree = await open_tree(limits)
    principal = _principal()
    assert await tree.usage.of(principal) == Usage(principal, 0, 0, 0, limits)
    await tree.memory(principal)
    assert await tree.usage.of(principal) == Usage(principal, 0, 0, 1, limits)
