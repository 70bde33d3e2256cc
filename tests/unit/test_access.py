"""The pure access walk (provider.access): hand-made cases, then random forests against the oracle."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from provider import access
from provider.errors import MemoryForbiddenError, MemoryNotFoundError
from provider.models import NodeFacts
from tests.property.oracle import PRIVILEGES, Forest, GrantRec

ME = "me"
R, W, C, D = (frozenset({p}) for p in PRIVILEGES)
ALL = frozenset(PRIVILEGES)


def node(
    node_id: str,
    parent: str | None,
    depth: int,
    granted: frozenset[str] = frozenset(),
    *,
    restricted: bool = False,
) -> NodeFacts:
    return NodeFacts(id=node_id, parent_id=parent, restricted=restricted, granted=granted, depth=depth)


# --- effective privileges ----------------------------------------------------------------------


def test_privileges_flow_down_and_add_up() -> None:
    nodes = [node("a", None, 0, R), node("b", "a", 1, W), node("c", "b", 2)]
    got = access.effective_privileges(nodes)
    assert got == {"a": R, "b": R | W, "c": R | W}


def test_restricted_node_stops_inheritance_but_keeps_its_own_grants() -> None:
    nodes = [node("a", None, 0, ALL), node("b", "a", 1, R, restricted=True), node("c", "b", 2, W)]
    got = access.effective_privileges(nodes)
    assert got == {"a": ALL, "b": R, "c": R | W}


def test_restricted_node_without_grants_is_unseen_and_so_is_its_subtree() -> None:
    nodes = [node("a", None, 0, ALL), node("b", "a", 1, restricted=True), node("c", "b", 2)]
    got = access.effective_privileges(nodes)
    assert got["b"] == frozenset() and got["c"] == frozenset()


def test_order_of_facts_does_not_matter() -> None:
    nodes = [node("c", "b", 2), node("b", "a", 1, W), node("a", None, 0, R)]
    assert access.effective_privileges(nodes)["c"] == R | W


def test_missing_parent_grants_nothing() -> None:
    assert access.effective_privileges([node("x", "gone", 3, C)]) == {"x": C}


# --- require ------------------------------------------------------------------------------------


def test_require_hides_unseen_memories_as_not_found() -> None:
    with pytest.raises(MemoryNotFoundError) as caught:
        access.require(frozenset(), "read")
    assert caught.value.code == "memory_not_found"


def test_require_refuses_a_seen_memory_without_the_privilege() -> None:
    with pytest.raises(MemoryForbiddenError) as caught:
        access.require(R, "delete")
    assert caught.value.code == "memory_forbidden"
    access.require(R | D, "delete")


# --- visible ancestors --------------------------------------------------------------------------


def test_visible_ancestors_stop_at_the_first_unseen_one_going_up() -> None:
    privileges = {"a": R, "b": frozenset(), "c": W, "d": R}
    assert access.visible_ancestors(["a", "b", "c", "d"], privileges) == ["c", "d"]
    assert access.visible_ancestors(["a", "b"], privileges) == []
    assert access.visible_ancestors([], privileges) == []


# --- reach --------------------------------------------------------------------------------------


def test_reach_judges_each_descendant_one_by_one() -> None:
    chain = [node("root", None, 0, R), node("m", "root", 1)]
    below = [
        node("x", "m", 2, restricted=True),  # cut off: unseen
        node("y", "x", 3, R),  # granted inside the cut-off branch
        node("z", "m", 2),  # inherits read
        node("w", "z", 3, W, restricted=True),  # write only
    ]
    got = access.reach("m", chain, below)
    assert got.visible and got.privileges == R
    assert got.chain == ["root"]
    assert sorted(got.readable_scope()) == ["m", "y", "z"]
    assert sorted(got.visible_children()) == ["z"]
    with pytest.raises(MemoryForbiddenError):
        got.require("write")


def test_reach_of_an_unseen_memory_is_not_visible() -> None:
    got = access.reach("m", [node("m", None, 0)], [node("k", "m", 1, R)])
    assert not got.visible
    assert got.readable_scope() == ["k"]
    with pytest.raises(MemoryNotFoundError):
        got.require("read")


def test_one_scope_rule_searches_nearest_first_and_says_where_it_cut() -> None:
    chain = [node("m", None, 0, R)]
    below = [node("c1", "m", 1), node("g1", "c1", 2), node("c2", "m", 1), node("x", "m", 1, restricted=True)]
    reach = access.reach("m", chain, below)
    whole = access.scope_for(reach, None, 10)
    assert whole.memory_ids[0] == "m" and sorted(whole.memory_ids) == ["c1", "c2", "g1", "m"]
    assert whole.degraded == []
    assert access.scope_for(reach, 0, 10) == access.Scope(["m"], [])
    cut = access.scope_for(reach, None, 3)
    assert cut.memory_ids == ["m", "c1", "c2"], "the grandchild is the one left out"
    assert cut.degraded == ["subtree:capped_at_3_memories"]


def test_the_cap_keeps_memories_by_depth_then_id_whatever_order_the_store_gives() -> None:
    chain = [node("m", None, 0, R)]
    below = [
        node("c9", "m", 1),
        node("g1", "c9", 2),
        node("c2", "m", 1),
        node("c5", "m", 1),
        node("g0", "c2", 2),
    ]
    expected = ["m", "c2", "c5", "c9", "g0"]
    for order in (below, below[::-1], sorted(below, key=lambda n: n.id)):
        cut = access.scope_for(access.reach("m", chain, order), None, 5)
        assert cut.memory_ids == expected, "the same request on the same data is cut the same way"


# --- entry points and the granted listing --------------------------------------------------------


def test_entry_points_are_seen_memories_whose_parent_is_unseen() -> None:
    facts = [
        node("top", None, 0),
        node("a", "top", 1, W),
        node("b", "a", 2, R),
        node("cut", "a", 2, restricted=True),
        node("inner", "cut", 3, R),
    ]
    assert access.entry_points(facts) == ["a", "inner"]


def test_granted_listing_lists_readable_entries_and_where_privileges_change() -> None:
    facts = [
        node("top", None, 0),
        node("a", "top", 1, R),
        node("b", "a", 2, W),  # changes: read -> read+write
        node("c", "b", 3, W),  # same as parent: not listed
        node("d", "c", 4, R, restricted=True),  # cutoff: read only, differs
    ]
    assert access.granted_listing(facts) == [("a", R), ("b", R | W), ("d", R)]


def test_granted_listing_leaves_out_write_only_entries() -> None:
    facts = [node("a", None, 0, W)]
    assert access.granted_listing(facts) == []


# --- random forests against the oracle ------------------------------------------------------------

privilege_sets = st.frozensets(st.sampled_from(PRIVILEGES), max_size=4)


@st.composite
def forests(draw: st.DrawFn) -> Forest:
    """A random forest; each node has a random cutoff and a random grant for ME (often none)."""
    forest = Forest()
    size = draw(st.integers(1, 14))
    for i in range(size):
        name = f"n{i}"
        parent = draw(st.one_of(st.none(), st.sampled_from([f"n{j}" for j in range(i)]))) if i else None
        forest.add(name, parent, restricted=draw(st.booleans()))
        granted = draw(st.one_of(st.just(frozenset()), privilege_sets))
        if granted:
            forest.grants[name].append(GrantRec(id=f"g{i}", principal=f"member:{ME}", privileges=granted))
    return forest


def facts_of(forest: Forest, ids: list[str] | None = None) -> list[NodeFacts]:
    principals = forest.principals(ME)
    return [
        NodeFacts(
            id=m,
            parent_id=forest.parent[m],
            restricted=forest.restricted[m],
            granted=forest.own(m, principals),
            depth=forest.depth(m),
        )
        for m in (ids if ids is not None else forest.parent)
    ]


def granted_closure(forest: Forest) -> list[str]:
    """What the store's granted-facts statement returns: granted nodes and their chains to the root."""
    kept: set[str] = set()
    for m in forest.parent:
        if forest.grants[m]:
            kept |= {m, *forest.up(m)}
    return sorted(kept)


@settings(max_examples=300, deadline=None)
@given(forests())
def test_effective_privileges_match_the_oracle(forest: Forest) -> None:
    got = access.effective_privileges(facts_of(forest))
    assert got == {m: forest.privileges(ME, m) for m in forest.parent}


@settings(max_examples=300, deadline=None)
@given(forests())
def test_entry_points_match_the_oracle(forest: Forest) -> None:
    got = access.entry_points(facts_of(forest, granted_closure(forest)))
    assert sorted(got) == sorted(forest.entries(ME))
    depths = [forest.depth(m) for m in got]
    assert depths == sorted(depths)


@settings(max_examples=300, deadline=None)
@given(forests())
def test_granted_listing_matches_the_oracle(forest: Forest) -> None:
    got = access.granted_listing(facts_of(forest, granted_closure(forest)))
    assert {m for m, _ in got} == forest.granted(ME)
    for m, privileges in got:
        assert privileges == forest.privileges(ME, m)
    depths = [forest.depth(m) for m, _ in got]
    assert depths == sorted(depths)


@settings(max_examples=300, deadline=None)
@given(forests(), st.data())
def test_reach_matches_the_oracle(forest: Forest, data: st.DataObject) -> None:
    memory = data.draw(st.sampled_from(sorted(forest.parent)))
    chain = facts_of(forest, [*reversed(forest.up(memory)), memory])
    below = facts_of(forest, forest.descendants(memory))
    got = access.reach(memory, chain, below)
    assert got.privileges == forest.privileges(ME, memory)
    assert got.visible == forest.sees(ME, memory)
    expected_scope = forest.readable_below(ME, memory) | ({memory} if "read" in got.privileges else set())
    assert sorted(got.readable_scope()) == sorted(expected_scope)
    assert sorted(got.visible_children()) == sorted(forest.children_seen(ME, memory))
    if forest.sees(ME, memory):
        assert got.chain == forest.view(ME, memory).ancestors


def test_a_restore_counts_a_memory_there_as_its_own_only_with_all_it_needs() -> None:
    full = frozenset({"read", "write", "create", "delete"})
    assert access.may_restore_into(full, grants=True)
    assert access.may_restore_into(full - {"delete"}, grants=False)
    assert not access.may_restore_into(full - {"delete"}, grants=True)
    for missing in ("read", "write", "create"):
        assert not access.may_restore_into(full - {missing}, grants=False)
    assert not access.may_restore_into(None, grants=False)
    assert not access.may_restore_into(access.NOTHING, grants=False)


def test_a_file_is_read_by_its_uploader_or_a_reader_of_a_record_naming_it() -> None:
    assert access.may_read_file("alice", "alice", [])
    assert access.may_read_file("bob", "alice", [frozenset({"write"}), frozenset({"read"})])
    assert not access.may_read_file("bob", "alice", [frozenset({"write", "create"})])
    assert not access.may_read_file("bob", "alice", [])
