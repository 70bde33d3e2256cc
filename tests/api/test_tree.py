"""The memory tree over HTTP: create, read, change, move, delete, the listings, and who may do what."""

from __future__ import annotations

import uuid
from collections.abc import Iterator

import pytest
from fastapi.testclient import TestClient
from neo4j import GraphDatabase

from provider.store import memories as memories_store
from tests.api.tree_support import (
    ALL,
    MEMORY_ID,
    Memories,
    Reply,
    forbidden,
    invalid,
    listed_ids,
    listing,
    not_found,
    ok,
    validate,
)
from tests.conftest import Admin, Member
from tests.neo4j_target import Neo4jTarget


@pytest.fixture
def mem(client: TestClient) -> Iterator[Memories]:
    tracker = Memories(client)
    yield tracker
    tracker.cleanup()


def ghost() -> str:
    """A well-formed id no memory has."""
    return "hmem_" + uuid.uuid4().hex


# --- create and read ------------------------------------------------------------------------------


def test_a_new_root_is_the_creators_with_all_four_privileges(mem: Memories, alice: Member) -> None:
    made = mem.make(alice, "Company", description="What the company knows.")
    assert MEMORY_ID.match(made["id"])
    assert made["object"] == "memory"
    assert made["name"] == "Company" and made["description"] == "What the company knows."
    assert made["parent_id"] is None and made["ancestors"] == []
    assert made["restricted"] is False
    assert isinstance(made["provider"], str) and made["provider"]
    assert made["privileges"] == ALL
    assert made["records"] == {"count": 0} and made["children"] == {"count": 0}
    assert isinstance(made["createdAt"], int) and made["createdAt"] == made["updatedAt"]
    assert mem.get(alice, made["id"]) == made


def test_a_child_sits_under_its_parent_and_inherits_the_provider(mem: Memories, alice: Member) -> None:
    root = mem.make(alice, "root")
    child = mem.make(alice, "child", parent_id=root["id"], description="d")
    assert child["parent_id"] == root["id"] and child["ancestors"] == [root["id"]]
    assert child["provider"] == root["provider"]
    grandchild = mem.make(alice, "grandchild", parent_id=child["id"])
    assert grandchild["ancestors"] == [root["id"], child["id"]]
    assert mem.get(alice, root["id"])["children"]["count"] == 1
    assert mem.get(alice, child["id"])["children"]["count"] == 1


def test_naming_the_own_provider_works_and_an_unknown_one_is_refused(
    client: TestClient, mem: Memories, alice: Member
) -> None:
    root = mem.make(alice, "root")
    same = mem.make(alice, "same", parent_id=root["id"], provider=root["provider"])
    assert same["provider"] == root["provider"]
    invalid(
        client.post(
            "/v1/memories",
            json={"name": "x", "provider": "no-such-provider-" + uuid.uuid4().hex},
            headers=alice.headers,
        )
    )


@pytest.mark.parametrize("body", [{}, {"name": ""}, {"name": 5}, {"name": "x", "restricted": "maybe"}])
def test_a_malformed_create_is_refused(client: TestClient, alice: Member, body: dict[str, object]) -> None:
    invalid(client.post("/v1/memories", json=body, headers=alice.headers))


def test_a_restricted_root_can_be_created(mem: Memories, alice: Member) -> None:
    made = mem.make(alice, "private", restricted=True)
    assert made["restricted"] is True and made["privileges"] == ALL


def test_creating_a_child_needs_create_on_the_parent(
    client: TestClient, mem: Memories, alice: Member, bob: Member
) -> None:
    root = mem.make(alice, "root")

    def attempt() -> Reply:
        return client.post("/v1/memories", json={"name": "b", "parent_id": root["id"]}, headers=bob.headers)

    not_found(attempt())  # holds nothing: the parent does not exist for bob
    mem.grant(alice, root["id"], bob.principal, "read", "write", "delete")
    forbidden(attempt())  # sees it, lacks create
    mem.grant(alice, root["id"], bob.principal, "create")  # replaces bob's first grant
    made = mem.make(bob, "b", parent_id=root["id"])
    assert made["privileges"] == ALL  # the creator's implicit grant
    assert made["parent_id"] == root["id"] and made["ancestors"] == [root["id"]]
    assert mem.privileges(bob, root["id"]) == ["create"]
    not_found(client.post("/v1/memories", json={"name": "x", "parent_id": ghost()}, headers=alice.headers))


def test_a_stranger_gets_not_found_never_forbidden(
    client: TestClient, mem: Memories, alice: Member, bob: Member
) -> None:
    root = mem.make(alice, "root")
    stranger_view = client.get(f"/v1/memories/{root['id']}", headers=bob.headers)
    unknown_view = client.get(f"/v1/memories/{ghost()}", headers=bob.headers)
    not_found(stranger_view)
    not_found(unknown_view)
    hidden, unknown = stranger_view.json()["error"], unknown_view.json()["error"]
    assert {k: v for k, v in hidden.items() if k != "request_id"} == {
        k: v for k, v in unknown.items() if k != "request_id"
    }


def test_every_route_hides_a_memory_the_caller_holds_nothing_on(
    client: TestClient, mem: Memories, alice: Member, bob: Member
) -> None:
    root = mem.make(alice, "root")
    child = mem.make(alice, "child", parent_id=root["id"])
    grant_id = mem.grants(alice, root["id"])[0]["id"]
    for memory_id in (root["id"], ghost()):
        base = f"/v1/memories/{memory_id}"
        h = bob.headers
        not_found(client.get(base, headers=h))
        not_found(client.put(base, json={"name": "n"}, headers=h))
        not_found(client.put(base, json={"restricted": True}, headers=h))
        not_found(client.put(base, json={"parent_id": None}, headers=h))
        not_found(client.delete(base, headers=h))
        not_found(client.get(f"{base}/grants", headers=h))
        not_found(
            client.post(
                f"{base}/grants", json={"principal": bob.principal, "privileges": ["read"]}, headers=h
            )
        )
        not_found(client.delete(f"{base}/grants/{grant_id}", headers=h))
        not_found(client.get("/v1/memories", params={"parent": memory_id}, headers=h))
        not_found(client.get("/v1/memories", params={"ancestor": memory_id}, headers=h))
        not_found(client.post("/v1/memories", json={"name": "x", "parent_id": memory_id}, headers=h))
    assert root["id"] not in listed_ids(client, bob) + listed_ids(client, bob, granted="true")
    assert mem.get(alice, child["id"])["name"] == "child"  # nothing changed


# --- effective privileges -------------------------------------------------------------------------


def test_privileges_are_the_union_down_the_path(
    client: TestClient, mem: Memories, alice: Member, bob: Member
) -> None:
    root = mem.make(alice, "root")
    mid = mem.make(alice, "mid", parent_id=root["id"])
    leaf = mem.make(alice, "leaf", parent_id=mid["id"])
    mem.grant(alice, root["id"], bob.principal, "read")
    mem.grant(alice, mid["id"], bob.principal, "write")
    mem.grant(alice, leaf["id"], bob.principal, "delete")
    assert mem.privileges(bob, root["id"]) == ["read"]
    assert mem.privileges(bob, mid["id"]) == ["read", "write"]
    assert mem.privileges(bob, leaf["id"]) == ["read", "write", "delete"]
    assert mem.get(bob, leaf["id"])["ancestors"] == [root["id"], mid["id"]]


def test_groups_and_nested_groups_carry_privileges(
    admin: Admin, mem: Memories, alice: Member, bob: Member
) -> None:
    carol = admin.member("agent")
    inner = admin.group(bob.id)
    outer = admin.group(inner)
    outermost = admin.group(outer, carol.id)
    root = mem.make(alice, "root")
    child = mem.make(alice, "child", parent_id=root["id"])
    mem.grant(alice, root["id"], f"group:{outermost}", "read")
    mem.grant(alice, child["id"], f"group:{inner}", "write")
    assert mem.privileges(bob, root["id"]) == ["read"]
    assert mem.privileges(bob, child["id"]) == ["read", "write"]
    assert mem.privileges(carol, child["id"]) == ["read"]
    removed = admin.client.delete(f"/v1/admin/groups/{outer}/members/{inner}", headers=admin.headers)
    assert removed.status_code == 200, removed.text
    assert mem.privileges(bob, root["id"]) is None
    assert mem.privileges(bob, child["id"]) == ["write"]
    assert mem.privileges(carol, root["id"]) == ["read"]


def test_a_restricted_node_cuts_off_what_is_above(
    client: TestClient, mem: Memories, alice: Member, bob: Member
) -> None:
    root = mem.make(alice, "root")
    mem.grant(alice, root["id"], bob.principal, "read", "create")
    private = mem.make(bob, "bob's own", parent_id=root["id"], restricted=True)
    below = mem.make(bob, "below", parent_id=private["id"])
    # alice created the root but holds nothing on bob's restricted branch
    assert mem.privileges(alice, private["id"]) is None
    assert mem.privileges(alice, below["id"]) is None
    assert mem.get(alice, root["id"])["children"]["count"] == 0
    assert mem.get(bob, root["id"])["children"]["count"] == 1
    assert listed_ids(client, alice, parent=root["id"]) == []
    # bob's read on the root does not reach past the cutoff either; his own grant does
    other = mem.make(alice, "closed", parent_id=root["id"], restricted=True)
    assert mem.privileges(bob, other["id"]) is None
    mem.grant(alice, other["id"], bob.principal, "write")
    assert mem.privileges(bob, other["id"]) == ["write"]
    assert mem.get(bob, other["id"])["ancestors"] == [root["id"]]


def test_ancestors_are_the_unbroken_visible_run_above(
    client: TestClient, mem: Memories, alice: Member, bob: Member
) -> None:
    root = mem.make(alice, "root")
    cut = mem.make(alice, "cut", parent_id=root["id"], restricted=True)
    inner = mem.make(alice, "inner", parent_id=cut["id"], restricted=True)
    leaf = mem.make(alice, "leaf", parent_id=inner["id"])
    mem.grant(alice, root["id"], bob.principal, "read")
    mem.grant(alice, inner["id"], bob.principal, "read")
    seen = mem.get(bob, leaf["id"])
    assert seen["ancestors"] == [inner["id"]]  # the root is visible but above an unseen node
    assert seen["parent_id"] == inner["id"]
    top = mem.get(bob, inner["id"])
    assert top["ancestors"] == [] and top["parent_id"] is None
    assert mem.get(alice, leaf["id"])["ancestors"] == [root["id"], cut["id"], inner["id"]]


# --- change -----------------------------------------------------------------------------------------


def test_rename_and_describe_need_write(mem: Memories, alice: Member, bob: Member) -> None:
    root = mem.make(alice, "root")
    not_found(mem.put(bob, root["id"], name="taken"))
    mem.grant(alice, root["id"], bob.principal, "read", "create", "delete")
    forbidden(mem.put(bob, root["id"], name="taken"))
    forbidden(mem.put(bob, root["id"], description="taken"))
    mem.grant(alice, root["id"], bob.principal, "write")
    changed = ok(mem.put(bob, root["id"], name="renamed", description="new words"))
    validate("Memory", changed)
    assert changed["name"] == "renamed" and changed["description"] == "new words"
    assert changed["privileges"] == ["write"] and changed["updatedAt"] >= changed["createdAt"]
    assert mem.get(alice, root["id"])["name"] == "renamed"
    invalid(mem.put(alice, root["id"], name=""))


def test_restricting_needs_delete(mem: Memories, alice: Member, bob: Member) -> None:
    root = mem.make(alice, "root")
    child = mem.make(alice, "child", parent_id=root["id"])
    mem.grant(alice, root["id"], bob.principal, "read", "write")
    forbidden(mem.put(bob, child["id"], restricted=True))
    same = ok(mem.put(bob, child["id"], restricted=False, name="kept"))  # not a change: write is enough
    assert same["restricted"] is False and same["name"] == "kept"
    mem.grant(alice, child["id"], bob.principal, "delete")
    cut = ok(mem.put(bob, child["id"], restricted=True))
    assert cut["restricted"] is True
    assert cut["privileges"] == ["delete"]  # the root's read and write no longer reach it
    assert mem.privileges(alice, child["id"]) == ALL  # alice made it: her implicit grant sits on it
    forbidden(mem.put(bob, child["id"], restricted=False))  # every PUT needs write, which the cutoff took
    ok(mem.put(alice, child["id"], restricted=False))
    assert mem.privileges(bob, child["id"]) == ["read", "write", "delete"]


def test_lifting_a_cutoff_shows_the_branch_again(mem: Memories, alice: Member, bob: Member) -> None:
    root = mem.make(alice, "root")
    mem.grant(alice, root["id"], bob.principal, "read")
    cut = mem.make(alice, "cut", parent_id=root["id"], restricted=True)
    below = mem.make(alice, "below", parent_id=cut["id"])
    assert mem.privileges(bob, below["id"]) is None
    ok(mem.put(alice, cut["id"], restricted=False))
    assert mem.privileges(bob, below["id"]) == ["read"]
    assert mem.get(bob, below["id"])["ancestors"] == [root["id"], cut["id"]]


def test_moving_needs_delete_on_the_node_and_create_on_the_new_parent(
    mem: Memories, alice: Member, bob: Member
) -> None:
    a = mem.make(alice, "a")
    b = mem.make(alice, "b")
    node = mem.make(alice, "node", parent_id=a["id"])
    mem.grant(alice, a["id"], bob.principal, "read", "write")
    forbidden(mem.put(bob, node["id"], parent_id=b["id"]))  # no delete on the node
    mem.grant(alice, node["id"], bob.principal, "delete")
    not_found(mem.put(bob, node["id"], parent_id=b["id"]))  # the new parent does not exist for bob
    mem.grant(alice, b["id"], bob.principal, "read")
    forbidden(mem.put(bob, node["id"], parent_id=b["id"]))  # no create on the new parent
    not_found(mem.put(bob, node["id"], parent_id=ghost()))
    mem.grant(alice, b["id"], bob.principal, "create")
    moved = ok(mem.put(bob, node["id"], parent_id=b["id"]))
    assert moved["parent_id"] == b["id"] and moved["ancestors"] == [b["id"]]
    assert moved["privileges"] == ["create", "delete"]  # now inherits from b, not a
    assert mem.get(alice, a["id"])["children"]["count"] == 0
    assert mem.get(alice, b["id"])["children"]["count"] == 1


def test_moving_to_the_top_needs_delete(mem: Memories, alice: Member, bob: Member) -> None:
    root = mem.make(alice, "root")
    node = mem.make(alice, "node", parent_id=root["id"])
    mem.grant(alice, root["id"], bob.principal, "read", "write", "create")
    forbidden(mem.put(bob, node["id"], parent_id=None))
    moved = ok(mem.put(alice, node["id"], parent_id=None))
    assert moved["parent_id"] is None and moved["ancestors"] == []
    assert mem.privileges(bob, node["id"]) is None  # the root's grants no longer reach it


def test_a_move_carries_the_subtree(client: TestClient, mem: Memories, alice: Member) -> None:
    a = mem.make(alice, "a")
    b = mem.make(alice, "b")
    node = mem.make(alice, "node", parent_id=a["id"])
    leaf = mem.make(alice, "leaf", parent_id=node["id"])
    ok(mem.put(alice, node["id"], parent_id=b["id"]))
    assert mem.get(alice, leaf["id"])["ancestors"] == [b["id"], node["id"]]
    assert set(listed_ids(client, alice, ancestor=b["id"])) == {node["id"], leaf["id"]}
    assert listed_ids(client, alice, ancestor=a["id"]) == []


def test_a_move_that_would_make_a_cycle_is_refused(mem: Memories, alice: Member) -> None:
    a = mem.make(alice, "a")
    b = mem.make(alice, "b", parent_id=a["id"])
    c = mem.make(alice, "c", parent_id=b["id"])
    invalid(mem.put(alice, a["id"], parent_id=a["id"]))
    invalid(mem.put(alice, a["id"], parent_id=c["id"]))
    invalid(mem.put(alice, b["id"], parent_id=c["id"]))
    assert mem.get(alice, c["id"])["ancestors"] == [a["id"], b["id"]]
    assert mem.get(alice, a["id"])["parent_id"] is None


def test_a_put_may_rename_and_move_at_once(mem: Memories, alice: Member) -> None:
    a = mem.make(alice, "a")
    b = mem.make(alice, "b")
    node = mem.make(alice, "node", parent_id=a["id"])
    changed = ok(mem.put(alice, node["id"], name="moved", parent_id=b["id"], restricted=True))
    assert (changed["name"], changed["parent_id"], changed["restricted"]) == ("moved", b["id"], True)


# --- delete ---------------------------------------------------------------------------------------


def test_delete_needs_delete_and_removes_the_subtree(
    client: TestClient, mem: Memories, alice: Member, bob: Member
) -> None:
    root = mem.make(alice, "root")
    node = mem.make(alice, "node", parent_id=root["id"])
    leaf = mem.make(alice, "leaf", parent_id=node["id"])
    cut = mem.make(alice, "cut", parent_id=node["id"], restricted=True)
    not_found(client.delete(f"/v1/memories/{node['id']}", headers=bob.headers))
    mem.grant(alice, root["id"], bob.principal, "read", "write", "create")
    forbidden(client.delete(f"/v1/memories/{node['id']}", headers=bob.headers))
    mem.grant(alice, node["id"], bob.principal, "delete")
    gone = ok(client.delete(f"/v1/memories/{node['id']}", headers=bob.headers))
    assert gone["id"] == node["id"] and gone["deleted"] is True
    assert set(gone["memories"]) == {node["id"], leaf["id"], cut["id"]}
    for memory_id in (node["id"], leaf["id"], cut["id"]):
        not_found(client.get(f"/v1/memories/{memory_id}", headers=alice.headers))
    assert mem.get(alice, root["id"])["children"]["count"] == 0
    not_found(client.delete(f"/v1/memories/{node['id']}", headers=alice.headers))


def test_delete_empties_a_subtree_larger_than_one_batch(
    client: TestClient,
    mem: Memories,
    alice: Member,
    bob: Member,
    neo4j_target: Neo4jTarget,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Contents go in batches (here of 4 nodes); nothing of the subtree is left in Neo4j after."""
    monkeypatch.setattr(memories_store, "DELETE_BATCH", 4)
    root = mem.make(alice, "root")
    node = mem.make(alice, "node", parent_id=root["id"])
    leaf = mem.make(alice, "leaf", parent_id=node["id"])
    mem.grant(alice, leaf["id"], bob.principal, "read")
    kept = ok(
        client.post(f"/v1/memories/{root['id']}/records", json={"content": "kept"}, headers=alice.headers)
    )
    for memory_id in (node["id"], leaf["id"]):
        for n in range(7):
            path = f"/v1/memories/{memory_id}/records"
            record = ok(client.post(path, json={"content": f"note {n}"}, headers=alice.headers))
            ok(
                client.patch(
                    f"{path}/{record['id']}", json={"content": f"note {n}, revised"}, headers=alice.headers
                )
            )
        ok(client.post(f"/v1/memories/{memory_id}/snapshots", json={"name": "before"}, headers=alice.headers))
    gone = ok(client.delete(f"/v1/memories/{node['id']}", headers=alice.headers))
    assert set(gone["memories"]) == {node["id"], leaf["id"]}
    with GraphDatabase.driver(neo4j_target.uri, auth=(neo4j_target.user, neo4j_target.password)) as driver:
        left = driver.execute_query(
            "MATCH (n) WHERE n.memory_id IN $ids OR n.id IN $ids RETURN count(n) AS n",
            ids=[node["id"], leaf["id"]],
        ).records[0]["n"]
        orphans = driver.execute_query(
            "MATCH (v:RecordVersion) WHERE NOT (v)-[:VERSION_OF]->() RETURN count(v) AS n"
            " UNION ALL MATCH (g:Grant) WHERE NOT (g)-[:ON]->() RETURN count(g) AS n"
        ).records
    assert left == 0 and [row["n"] for row in orphans] == [0, 0]
    assert mem.get(alice, root["id"])["records"]["count"] == 1
    assert (
        ok(client.get(f"/v1/memories/{root['id']}/records/{kept['id']}", headers=alice.headers))["version"]
        == 1
    )


# --- listings -------------------------------------------------------------------------------------


def test_entry_points_are_where_the_caller_enters_the_tree(
    client: TestClient, mem: Memories, alice: Member, bob: Member
) -> None:
    root = mem.make(alice, "root")
    a = mem.make(alice, "a", parent_id=root["id"])
    a1 = mem.make(alice, "a1", parent_id=a["id"])
    cut = mem.make(alice, "cut", parent_id=a["id"], restricted=True)
    inside = mem.make(alice, "inside", parent_id=cut["id"])
    assert listed_ids(client, bob) == []
    mem.grant(alice, a["id"], bob.principal, "write")
    mem.grant(alice, a1["id"], bob.principal, "read")  # below a: not an entry
    mem.grant(alice, inside["id"], bob.principal, "read")  # its parent is cut off: an entry
    entries = listing(client, bob)
    assert {m["id"] for m in entries} == {a["id"], inside["id"]}
    assert entries[0]["id"] == a["id"]  # highest first
    by_id = {m["id"]: m for m in entries}
    assert by_id[a["id"]]["parent_id"] is None and by_id[a["id"]]["ancestors"] == []
    assert by_id[a["id"]]["children"]["count"] == 1  # a1; cut is unseen
    assert by_id[inside["id"]]["privileges"] == ["read"]
    assert root["id"] in listed_ids(client, alice)


def test_parent_lists_the_visible_children(
    client: TestClient, mem: Memories, alice: Member, bob: Member
) -> None:
    root = mem.make(alice, "root")
    kids = [mem.make(alice, f"k{i}", parent_id=root["id"]) for i in range(3)]
    hidden = mem.make(alice, "hidden", parent_id=root["id"], restricted=True)
    mem.make(alice, "grandchild", parent_id=kids[0]["id"])
    assert set(listed_ids(client, alice, parent=root["id"])) == {k["id"] for k in kids} | {hidden["id"]}
    mem.grant(alice, root["id"], bob.principal, "read")
    children = listing(client, bob, parent=root["id"])
    assert {m["id"] for m in children} == {k["id"] for k in kids}
    assert all(m["parent_id"] == root["id"] and m["privileges"] == ["read"] for m in children)
    assert mem.get(bob, root["id"])["children"]["count"] == 3
    not_found(client.get("/v1/memories", params={"parent": hidden["id"]}, headers=bob.headers))
    assert listed_ids(client, bob, parent=kids[1]["id"]) == []


def test_parent_of_a_write_only_memory_still_lists_its_children(
    client: TestClient, mem: Memories, alice: Member, bob: Member
) -> None:
    root = mem.make(alice, "root")
    child = mem.make(alice, "child", parent_id=root["id"])
    mem.grant(alice, root["id"], bob.principal, "write")
    assert listed_ids(client, bob, parent=root["id"]) == [child["id"]]


def test_ancestor_lists_every_readable_descendant_one_by_one(
    client: TestClient, mem: Memories, alice: Member, bob: Member
) -> None:
    root = mem.make(alice, "root")
    a = mem.make(alice, "a", parent_id=root["id"])
    a1 = mem.make(alice, "a1", parent_id=a["id"])
    cut = mem.make(alice, "cut", parent_id=root["id"], restricted=True)
    granted_inside = mem.make(alice, "granted inside", parent_id=cut["id"], restricted=True)
    deep = mem.make(alice, "deep", parent_id=granted_inside["id"])
    write_only = mem.make(alice, "write only", parent_id=root["id"], restricted=True)
    mem.grant(alice, root["id"], bob.principal, "read")
    mem.grant(alice, granted_inside["id"], bob.principal, "read")
    mem.grant(alice, write_only["id"], bob.principal, "write")
    found = listing(client, bob, ancestor=root["id"])
    assert {m["id"] for m in found} == {a["id"], a1["id"], granted_inside["id"], deep["id"]}
    assert set(listed_ids(client, alice, ancestor=root["id"])) == {
        a["id"],
        a1["id"],
        cut["id"],
        granted_inside["id"],
        deep["id"],
        write_only["id"],
    }
    assert set(listed_ids(client, bob, ancestor=granted_inside["id"])) == {deep["id"]}
    assert listed_ids(client, bob, ancestor=a1["id"]) == []
    not_found(client.get("/v1/memories", params={"ancestor": cut["id"]}, headers=bob.headers))


def test_granted_lists_readable_entries_and_where_privileges_change(
    client: TestClient, mem: Memories, alice: Member, bob: Member
) -> None:
    root = mem.make(alice, "root")
    a = mem.make(alice, "a", parent_id=root["id"])
    same = mem.make(alice, "same", parent_id=a["id"])
    more = mem.make(alice, "more", parent_id=a["id"])
    more_same = mem.make(alice, "more same", parent_id=more["id"])
    cut = mem.make(alice, "cut", parent_id=more_same["id"], restricted=True)
    mem.grant(alice, a["id"], bob.principal, "read")
    mem.grant(alice, same["id"], bob.principal, "read")  # a grant that changes nothing
    mem.grant(alice, more["id"], bob.principal, "write", "create")
    mem.grant(alice, cut["id"], bob.principal, "read")  # differs: the cutoff drops write and create
    other = mem.make(alice, "other")
    mem.grant(alice, other["id"], bob.principal, "write")  # not readable: not a granted entry
    granted = listing(client, bob, granted="true")
    assert [m["id"] for m in granted] == [a["id"], more["id"], cut["id"]]  # highest first
    assert [m["privileges"] for m in granted] == [["read"], ["read", "write", "create"], ["read"]]
    assert other["id"] in listed_ids(client, bob)


def test_listings_paginate_with_a_cursor(client: TestClient, mem: Memories, alice: Member) -> None:
    root = mem.make(alice, "root")
    kids = {mem.make(alice, f"k{i}", parent_id=root["id"])["id"] for i in range(5)}
    first = ok(client.get("/v1/memories", params={"parent": root["id"], "limit": 2}, headers=alice.headers))
    assert len(first["data"]) == 2 and first["next"]
    paged = listing(client, alice, limit=2, parent=root["id"])
    assert len(paged) == 5 and {m["id"] for m in paged} == kids
    assert len(listing(client, alice, limit=1, ancestor=root["id"])) == 5
    last = ok(client.get("/v1/memories", params={"parent": root["id"], "limit": 5}, headers=alice.headers))
    assert last["next"] is None


@pytest.mark.parametrize("params", [{"limit": "0"}, {"limit": "101"}, {"limit": "x"}, {"cursor": "not-ours"}])
def test_a_bad_page_request_is_refused(
    client: TestClient, mem: Memories, alice: Member, params: dict[str, str]
) -> None:
    root = mem.make(alice, "root")
    invalid(client.get("/v1/memories", params={"parent": root["id"], **params}, headers=alice.headers))


def test_listings_need_a_key(client: TestClient) -> None:
    assert client.get("/v1/memories").status_code == 401


def test_giving_the_same_parent_again_is_not_a_move(mem: Memories, alice: Member, bob: Member) -> None:
    root = mem.make(alice, "root")
    child = mem.make(alice, "child", parent_id=root["id"])
    mem.grant(alice, root["id"], bob.principal, "read", "write")
    # a client that PUTs back what it read changes nothing structural: write is enough
    same = ok(mem.put(bob, child["id"], name="renamed", parent_id=root["id"], restricted=False))
    assert same["name"] == "renamed" and same["parent_id"] == root["id"]
    top = ok(mem.put(bob, root["id"], name="top", parent_id=None))
    assert top["name"] == "top" and top["parent_id"] is None


def test_a_hidden_parent_cannot_be_probed_through_a_move(mem: Memories, alice: Member, bob: Member) -> None:
    root = mem.make(alice, "root")
    child = mem.make(alice, "child", parent_id=root["id"])
    mem.grant(alice, child["id"], bob.principal, "read", "write", "delete")
    assert mem.get(bob, child["id"])["parent_id"] is None
    # naming the real (hidden) parent must answer exactly as naming an id that does not exist
    not_found(mem.put(bob, child["id"], parent_id=ghost()))
    not_found(mem.put(bob, child["id"], parent_id=root["id"]))


def test_granted_leaves_out_changes_below_an_entry_it_cannot_read(
    client: TestClient, mem: Memories, alice: Member, bob: Member
) -> None:
    root = mem.make(alice, "root")
    child = mem.make(alice, "child", parent_id=root["id"])
    mem.grant(alice, root["id"], bob.principal, "write")
    mem.grant(alice, child["id"], bob.principal, "read")
    # the root is not readable, so nothing is "below a readable memory whose parent bob cannot see"
    assert listed_ids(client, bob, granted="true") == []
    assert listed_ids(client, bob) == [root["id"]]


def test_granted_lists_a_change_below_a_readable_entry_past_an_unseen_node(
    client: TestClient, mem: Memories, alice: Member, bob: Member
) -> None:
    root = mem.make(alice, "root")
    cut = mem.make(alice, "cut", parent_id=root["id"], restricted=True)
    inner = mem.make(alice, "inner", parent_id=cut["id"], restricted=True)
    mem.grant(alice, root["id"], bob.principal, "read")
    mem.grant(alice, inner["id"], bob.principal, "write")
    # inner lies below the readable root and bob's privileges there ({write}) differ from the parent's (none)
    granted = listing(client, bob, granted="true")
    assert [(m["id"], m["privileges"]) for m in granted] == [(root["id"], ["read"]), (inner["id"], ["write"])]
