"""The tree's access and scope rules, through the real TreeService, GrantService and access.py, on the fakes.

Seconds, not minutes: the stores are tests/fakes/tree.py, which tests/contract/test_tree_storage.py
holds to the Neo4j stores. The same rules are tested end to end over HTTP in tests/api (test_tree.py,
test_grants.py, test_quotas.py, test_unknown_is_hidden.py); these say why each rule holds, fast.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass

import pytest

from provider import access, ids
from provider.errors import (
    MemoryForbiddenError,
    MemoryInvalidError,
    MemoryNotFoundError,
    ProviderError,
    QuotaExhaustedError,
)
from provider.models import Caller, UsageLimits, ordered_privileges
from provider.services.tree import AdminService, GrantService, TreeService
from provider.services.tree.memories import MemoryChanges, MemoryDraft
from tests.fakes.tree import FakeTree, fake_tree

pytestmark = pytest.mark.anyio


@dataclass
class Rules:
    """The tree's services over one set of fake stores, and two members to play the parts."""

    stores: FakeTree
    tree: TreeService
    grants: GrantService
    admin: AdminService
    alice: Caller
    bob: Caller

    async def memory(
        self, who: Caller, name: str, parent: str | None = None, *, restricted: bool = False
    ) -> str:
        draft = MemoryDraft(name=name, parent_id=parent, restricted=restricted)
        return (await self.tree.create(who, draft)).node.id

    async def grant(self, memory_id: str, principal: str, *privileges: str) -> str:
        """Alice gives the grant (she holds delete wherever she made the memory)."""
        return (await self.grants.create(self.alice, memory_id, principal, list(privileges))).grant.id

    async def privileges(self, who: Caller, memory_id: str) -> list[str] | None:
        """What the caller holds on the memory, in the chapter's order; None when it is hidden."""
        try:
            return list(ordered_privileges((await self.tree.view(who, memory_id)).privileges))
        except MemoryNotFoundError:
            return None

    async def move(self, who: Caller, memory_id: str, parent: str | None) -> None:
        await self.tree.update(who, memory_id, MemoryChanges(move=True, parent_id=parent))


async def _rules(limits: UsageLimits | None = None) -> Rules:
    stores = fake_tree(limits)
    tree = TreeService(stores.memories, "neo4j")
    admin = AdminService(stores.principals, stores.usage)
    alice, bob = [
        Caller(member_id=(await admin.create_member("human", name)).id, member_type="human")
        for name in ("alice", "bob")
    ]
    return Rules(stores, tree, GrantService(tree, stores.grants), admin, alice, bob)


@pytest.fixture
async def rules() -> Rules:
    return await _rules()


def _unknown() -> str:
    return ids.new_id(ids.MEMORY)


def _answer(error: ProviderError) -> tuple[type, str, str, str | None, object]:
    """Everything a refusal tells the caller."""
    return type(error), error.code, error.message, error.param, error.detail


async def _refusal(attempt: Awaitable[object]) -> tuple[type, str, str, str | None, object]:
    with pytest.raises(ProviderError) as refused:
        await attempt
    return _answer(refused.value)


# Grants flow down the tree


async def test_privileges_are_the_union_of_the_grants_down_the_path(rules: Rules) -> None:
    root = await rules.memory(rules.alice, "root")
    middle = await rules.memory(rules.alice, "middle", root)
    leaf = await rules.memory(rules.alice, "leaf", middle)
    await rules.grant(root, rules.bob.principal, "read")
    await rules.grant(middle, rules.bob.principal, "write")
    await rules.grant(leaf, rules.bob.principal, "delete")
    assert await rules.privileges(rules.bob, root) == ["read"]
    assert await rules.privileges(rules.bob, middle) == ["read", "write"]
    assert await rules.privileges(rules.bob, leaf) == ["read", "write", "delete"]
    assert (await rules.tree.view(rules.bob, leaf)).ancestors == [root, middle]


async def test_a_group_grant_reaches_members_through_nested_groups_until_one_leaves(rules: Rules) -> None:
    inner = (await rules.admin.create_group("inner")).id
    outer = (await rules.admin.create_group("outer")).id
    await rules.admin.add_to_group(inner, rules.bob.member_id)
    await rules.admin.add_to_group(outer, inner)
    root = await rules.memory(rules.alice, "root")
    child = await rules.memory(rules.alice, "child", root)
    await rules.grant(root, f"group:{outer}", "read")
    await rules.grant(child, f"group:{inner}", "write")
    assert await rules.privileges(rules.bob, child) == ["read", "write"]
    await rules.admin.remove_from_group(outer, inner)
    assert await rules.privileges(rules.bob, root) is None
    assert await rules.privileges(rules.bob, child) == ["write"]


# A restricted memory (the cutoff) stops grants from above


async def test_a_restricted_memory_stops_the_grants_from_above_and_its_own_grant_opens_it(
    rules: Rules,
) -> None:
    root = await rules.memory(rules.alice, "root")
    await rules.grant(root, rules.bob.principal, "read", "create")
    private = await rules.memory(rules.bob, "bob's own", root, restricted=True)
    below = await rules.memory(rules.bob, "below", private)
    assert await rules.privileges(rules.alice, private) is None  # her grant on the root stops at the cutoff
    assert await rules.privileges(rules.alice, below) is None
    assert (await rules.tree.view(rules.alice, root)).visible_children == 0
    assert (await rules.tree.view(rules.bob, root)).visible_children == 1
    closed = await rules.memory(rules.alice, "closed", root, restricted=True)
    assert await rules.privileges(rules.bob, closed) is None
    await rules.grant(closed, rules.bob.principal, "write")
    assert await rules.privileges(rules.bob, closed) == ["write"]  # not read: the root's read is cut off
    assert (await rules.tree.view(rules.bob, closed)).ancestors == [root]


async def test_ancestors_shown_are_the_unbroken_visible_run_above_a_memory(rules: Rules) -> None:
    root = await rules.memory(rules.alice, "root")
    cut = await rules.memory(rules.alice, "cut", root, restricted=True)
    inner = await rules.memory(rules.alice, "inner", cut, restricted=True)
    leaf = await rules.memory(rules.alice, "leaf", inner)
    await rules.grant(root, rules.bob.principal, "read")
    await rules.grant(inner, rules.bob.principal, "read")
    seen = await rules.tree.view(rules.bob, leaf)
    assert seen.ancestors == [inner]  # the root is visible, but above a node bob cannot see
    assert (await rules.tree.view(rules.bob, inner)).visible_parent_id is None
    assert (await rules.tree.view(rules.alice, leaf)).ancestors == [root, cut, inner]


async def test_lifting_a_cutoff_lets_the_grants_from_above_through_again(rules: Rules) -> None:
    root = await rules.memory(rules.alice, "root")
    await rules.grant(root, rules.bob.principal, "read")
    cut = await rules.memory(rules.alice, "cut", root, restricted=True)
    below = await rules.memory(rules.alice, "below", cut)
    assert await rules.privileges(rules.bob, below) is None
    await rules.tree.update(rules.alice, cut, MemoryChanges(restricted=False))
    assert await rules.privileges(rules.bob, below) == ["read"]
    assert (await rules.tree.view(rules.bob, below)).ancestors == [root, cut]


async def test_the_grant_listing_stops_at_the_nearest_cutoff_and_at_what_the_caller_cannot_see(
    rules: Rules,
) -> None:
    root = await rules.memory(rules.alice, "root")
    cut = await rules.memory(rules.alice, "cut", root, restricted=True)
    leaf = await rules.memory(rules.alice, "leaf", cut)
    on_root = await rules.grant(root, rules.bob.principal, "read")
    on_cut = await rules.grant(cut, rules.bob.principal, "write")
    listed = await rules.grants.listing(rules.alice, leaf)
    assert {v.grant.memory_id for v in listed} == {leaf, cut}
    assert on_cut in {v.grant.id for v in listed} and on_root not in {v.grant.id for v in listed}
    assert {(v.grant.memory_id, v.inherited) for v in listed} == {(leaf, False), (cut, True)}
    child = await rules.memory(rules.alice, "child", root)
    mine = await rules.grant(child, rules.bob.principal, "read")
    seen_by_bob = await rules.grants.listing(rules.bob, child)
    assert {v.grant.memory_id for v in seen_by_bob} == {child, root}  # bob reads the root
    write_only = await rules.memory(rules.alice, "write only", root, restricted=True)
    await rules.grant(write_only, rules.bob.principal, "write")
    with pytest.raises(MemoryForbiddenError):  # listing grants needs read
        await rules.grants.listing(rules.bob, write_only)
    await rules.grants.delete(rules.alice, root, on_root)  # bob no longer sees the root, nor its grants
    after = await rules.grants.listing(rules.bob, child)
    assert {v.grant.memory_id for v in after} == {child} and mine in {v.grant.id for v in after}


# Unknown and hidden look the same


async def test_a_hidden_memory_answers_every_operation_as_an_unknown_one(rules: Rules) -> None:
    hidden = await rules.memory(rules.alice, "hidden")
    await rules.memory(rules.alice, "child", hidden)
    grant_id = (await rules.grants.listing(rules.alice, hidden))[0].grant.id
    bob = rules.bob
    operations: list[Callable[[str], Awaitable[object]]] = [
        lambda m: rules.tree.view(bob, m),
        lambda m: rules.tree.update(bob, m, MemoryChanges(name="n")),
        lambda m: rules.tree.update(bob, m, MemoryChanges(restricted=True)),
        lambda m: rules.tree.update(bob, m, MemoryChanges(move=True, parent_id=None)),
        lambda m: rules.tree.delete(bob, m),
        lambda m: rules.tree.create(bob, MemoryDraft(name="x", parent_id=m)),
        lambda m: rules.tree.list_children(bob, m, None, 10),
        lambda m: rules.tree.list_descendants(bob, m, None, 10),
        lambda m: rules.tree.readable_scope(bob, m, None),
        lambda m: rules.grants.listing(bob, m),
        lambda m: rules.grants.create(bob, m, bob.principal, ["read"]),
        lambda m: rules.grants.delete(bob, m, grant_id),
    ]
    for operation in operations:
        as_hidden, as_unknown = await _refusal(operation(hidden)), await _refusal(operation(_unknown()))
        assert as_hidden == as_unknown
        assert as_hidden[:2] == (MemoryNotFoundError, "memory_not_found")
    assert (await rules.tree.view(rules.alice, hidden)).node.name == "hidden"  # nothing changed
    assert len(await rules.grants.listing(rules.alice, hidden)) == 1


async def test_a_memory_seen_without_the_privilege_is_forbidden_and_says_which(rules: Rules) -> None:
    root = await rules.memory(rules.alice, "root")
    await rules.grant(root, rules.bob.principal, "read")
    refused = await _refusal(rules.tree.delete(rules.bob, root))
    assert refused[:2] == (MemoryForbiddenError, "memory_forbidden")
    assert refused[4] == {"required": "delete"}
    with pytest.raises(MemoryForbiddenError):
        await rules.tree.create(rules.bob, MemoryDraft(name="x", parent_id=root))
    assert await rules.privileges(rules.alice, root) == ["read", "write", "create", "delete"]


# The readable scope (what recall reads) and its cap


async def test_the_readable_scope_is_the_subtree_less_what_the_caller_may_not_read(rules: Rules) -> None:
    alice, bob = rules.alice, rules.bob
    root = await rules.memory(alice, "root")
    a = await rules.memory(alice, "a", root)
    a1 = await rules.memory(alice, "a1", a)
    cut = await rules.memory(alice, "cut", root, restricted=True)
    inside = await rules.memory(alice, "granted inside", cut, restricted=True)
    deep = await rules.memory(alice, "deep", inside)
    write_only = await rules.memory(alice, "write only", root, restricted=True)
    await rules.grant(root, bob.principal, "read")
    await rules.grant(inside, bob.principal, "read")
    await rules.grant(write_only, bob.principal, "write")
    scope = (await rules.tree.readable_scope(bob, root, None)).readable_scope()
    assert scope[0] == root and set(scope) == {root, a, a1, inside, deep}
    assert len(scope) == len(set(scope))
    everything = (await rules.tree.readable_scope(alice, root, None)).readable_scope()
    assert set(everything) == {root, a, a1, cut, inside, deep, write_only}
    assert set((await rules.tree.readable_scope(bob, root, 1)).readable_scope()) == {root, a}
    listed = await rules.tree.list_descendants(bob, root, None, 100)
    assert {v.node.id for v in listed.items} == {a, a1, inside, deep}
    with pytest.raises(MemoryNotFoundError):
        await rules.tree.readable_scope(bob, cut, None)


async def test_the_scope_is_nearest_first_and_a_cap_cuts_it_and_says_so(rules: Rules) -> None:
    root = await rules.memory(rules.alice, "root")
    children = [await rules.memory(rules.alice, f"child {i}", root) for i in range(3)]
    grandchild = await rules.memory(rules.alice, "grandchild", children[0])
    reach = await rules.tree.readable_scope(rules.alice, root, None)
    whole = access.scope_for(reach, None, cap=10)
    assert whole.memory_ids[0] == root and whole.memory_ids[-1] == grandchild
    assert set(whole.memory_ids[1:4]) == set(children) and whole.degraded == []
    capped = access.scope_for(reach, None, cap=3)
    assert capped.memory_ids == whole.memory_ids[:3]
    assert capped.degraded == ["subtree:capped_at_3_memories"]
    assert access.scope_for(reach, None, cap=5) == whole
    assert access.scope_for(reach, 0, cap=1) == access.Scope([root], [])


# Moves


async def test_a_move_below_itself_is_refused_and_nothing_moves(rules: Rules) -> None:
    a = await rules.memory(rules.alice, "a")
    b = await rules.memory(rules.alice, "b", a)
    c = await rules.memory(rules.alice, "c", b)
    for memory_id, parent in ((a, a), (a, c), (b, c)):
        refused = await _refusal(rules.move(rules.alice, memory_id, parent))
        assert refused[:4] == (
            MemoryInvalidError,
            "memory_invalid",
            "A memory cannot move below itself.",
            "parent_id",
        )
    assert (await rules.tree.view(rules.alice, c)).ancestors == [a, b]
    assert (await rules.tree.view(rules.alice, a)).node.parent_id is None


async def test_a_move_needs_delete_on_the_memory_and_create_on_the_new_parent(rules: Rules) -> None:
    a, b = await rules.memory(rules.alice, "a"), await rules.memory(rules.alice, "b")
    node = await rules.memory(rules.alice, "node", a)
    await rules.grant(a, rules.bob.principal, "read", "write")
    with pytest.raises(MemoryForbiddenError):  # no delete on the node
        await rules.move(rules.bob, node, b)
    await rules.grant(node, rules.bob.principal, "delete")
    with pytest.raises(MemoryNotFoundError):  # the new parent does not exist for bob
        await rules.move(rules.bob, node, b)
    await rules.grant(b, rules.bob.principal, "read")
    with pytest.raises(MemoryForbiddenError):  # bob sees the new parent but may not create in it
        await rules.move(rules.bob, node, b)
    await rules.grant(b, rules.bob.principal, "create")
    await rules.move(rules.bob, node, b)
    moved = await rules.tree.view(rules.bob, node)
    assert (moved.node.parent_id, moved.ancestors) == (b, [b])
    assert ordered_privileges(moved.privileges) == ["create", "delete"]  # now inherits from b, not a


# The memory quota


async def test_the_memory_quota_refuses_one_more_memory_and_makes_nothing() -> None:
    rules = await _rules(UsageLimits(memories=2))
    root = await rules.memory(rules.alice, "root")
    child = await rules.memory(rules.alice, "child", root)
    with pytest.raises(QuotaExhaustedError) as refused:
        await rules.memory(rules.alice, "one too many", root)
    assert refused.value.code == "quota_exhausted"
    assert refused.value.detail is not None and refused.value.detail["limit"] == "memories"
    assert "2 memories" in refused.value.message
    listed = await rules.tree.list_descendants(rules.alice, root, None, 100)
    assert [v.node.id for v in listed.items] == [child]
    assert (await rules.admin.usage_of(rules.alice.member_id)).memories == 2
    assert await rules.memory(rules.bob, "bob's own") != ""  # the quota is each principal's own
    await rules.tree.delete(rules.alice, child)
    assert (await rules.admin.usage_of(rules.alice.member_id)).memories == 1
    assert await rules.memory(rules.alice, "room again", root) != ""
