"""Grants over HTTP: give, replace, list (with the node each sits on), remove; who may change them."""

from __future__ import annotations

import re
import uuid
from collections.abc import Iterator

import pytest
from fastapi.testclient import TestClient

from tests.api.tree_support import (
    ALL,
    Memories,
    Reply,
    assert_error,
    forbidden,
    invalid,
    not_found,
    ok,
)
from tests.conftest import Admin, Member

GRANT_ID = re.compile(r"^hgrt_[0-9a-f]{32}$")


@pytest.fixture
def mem(client: TestClient) -> Iterator[Memories]:
    tracker = Memories(client)
    yield tracker
    tracker.cleanup()


def post_grant(
    client: TestClient, who: Member, memory_id: str, principal: object, privileges: object
) -> Reply:
    return client.post(
        f"/v1/memories/{memory_id}/grants",
        json={"principal": principal, "privileges": privileges},
        headers=who.headers,
    )


def test_a_grant_is_given_and_answered(mem: Memories, alice: Member, bob: Member) -> None:
    root = mem.make(alice, "root")
    grant = mem.grant(alice, root["id"], bob.principal, "delete", "read", "read")
    assert GRANT_ID.match(grant["id"])
    assert grant["object"] == "memory.grant"
    assert grant["memory_id"] == root["id"] and grant["principal"] == bob.principal
    assert grant["privileges"] == ["read", "delete"]  # the chapter's order, no repeats
    assert grant["inherited"] is False
    assert mem.privileges(bob, root["id"]) == ["read", "delete"]


def test_the_listing_shows_the_creators_implicit_grant_and_the_others(
    mem: Memories, alice: Member, bob: Member
) -> None:
    root = mem.make(alice, "root")
    given = mem.grant(alice, root["id"], bob.principal, "read")
    grants = mem.grants(alice, root["id"])
    assert len(grants) == 2 and given in grants
    implicit = next(g for g in grants if g["id"] != given["id"])
    assert implicit["implicit"] is True and implicit["principal"] == alice.principal
    assert implicit["privileges"] == ALL and implicit["memory_id"] == root["id"]
    assert implicit["inherited"] is False
    assert "implicit" not in given or given["implicit"] is False
    assert mem.grants(bob, root["id"]) == grants  # a reader may look


def test_the_listing_names_the_node_each_grant_sits_on(mem: Memories, alice: Member, bob: Member) -> None:
    root = mem.make(alice, "root")
    child = mem.make(alice, "child", parent_id=root["id"])
    on_root = mem.grant(alice, root["id"], bob.principal, "read")
    on_child = mem.grant(alice, child["id"], bob.principal, "write")
    grants = mem.grants(alice, child["id"])
    where = {g["id"]: (g["memory_id"], g["inherited"]) for g in grants}
    assert where[on_child["id"]] == (child["id"], False)
    assert where[on_root["id"]] == (root["id"], True)
    implicit = {g["memory_id"] for g in grants if g.get("implicit")}
    assert implicit == {root["id"], child["id"]}
    assert len(grants) == 4


def test_the_listing_stops_at_the_nearest_cutoff(mem: Memories, alice: Member, bob: Member) -> None:
    root = mem.make(alice, "root")
    cut = mem.make(alice, "cut", parent_id=root["id"], restricted=True)
    leaf = mem.make(alice, "leaf", parent_id=cut["id"])
    mem.grant(alice, root["id"], bob.principal, "read")
    on_cut = mem.grant(alice, cut["id"], bob.principal, "write")
    grants = mem.grants(alice, leaf["id"])
    assert {g["memory_id"] for g in grants} == {leaf["id"], cut["id"]}
    assert on_cut["id"] in {g["id"] for g in grants}


def test_the_listing_leaves_out_grants_on_ancestors_the_caller_cannot_see(
    mem: Memories, alice: Member, bob: Member
) -> None:
    root = mem.make(alice, "root")
    child = mem.make(alice, "child", parent_id=root["id"])
    mine = mem.grant(alice, child["id"], bob.principal, "read")
    grants = mem.grants(bob, child["id"])
    assert {g["memory_id"] for g in grants} == {child["id"]}
    assert mine["id"] in {g["id"] for g in grants}


def test_a_second_grant_for_the_same_principal_replaces_the_first(
    mem: Memories, alice: Member, bob: Member
) -> None:
    root = mem.make(alice, "root")
    child = mem.make(alice, "child", parent_id=root["id"])
    mem.grant(alice, root["id"], bob.principal, "read", "write")
    mem.grant(alice, root["id"], bob.principal, "read")
    mine = [g for g in mem.grants(alice, root["id"]) if g["principal"] == bob.principal]
    assert len(mine) == 1 and mine[0]["privileges"] == ["read"]
    forbidden(mem.put(bob, root["id"], name="no longer"))
    mem.grant(alice, child["id"], bob.principal, "write")  # another node: a grant of its own
    on_child = [g for g in mem.grants(alice, child["id"]) if g["principal"] == bob.principal]
    assert {(g["memory_id"], tuple(g["privileges"])) for g in on_child} == {
        (root["id"], ("read",)),
        (child["id"], ("write",)),
    }


def test_the_creators_own_explicit_grant_does_not_replace_the_implicit_one(
    mem: Memories, alice: Member
) -> None:
    root = mem.make(alice, "root")
    mem.grant(alice, root["id"], alice.principal, "read")
    assert mem.privileges(alice, root["id"]) == ALL


@pytest.mark.parametrize("principal", ["member:{id}", "group:{id}", "x.team:{id}", "x.acme.dept-1:{id}"])
def test_principal_kinds_that_are_accepted(mem: Memories, alice: Member, principal: str) -> None:
    root = mem.make(alice, "root")
    named = principal.format(id=uuid.uuid4().hex)
    grant = mem.grant(alice, root["id"], named, "read")
    assert grant["principal"] == named
    assert named in {g["principal"] for g in mem.grants(alice, root["id"])}


@pytest.mark.parametrize(
    "principal", ["provider:p1", "team:x", "user:bob", "member", "member:", ":x", "", "x.:y", "Member:x", 7]
)
def test_principal_kinds_that_are_refused(
    client: TestClient, mem: Memories, alice: Member, principal: object
) -> None:
    root = mem.make(alice, "root")
    invalid(post_grant(client, alice, root["id"], principal, ["read"]))
    assert len(mem.grants(alice, root["id"])) == 1


@pytest.mark.parametrize("privileges", [["admin"], ["read", "own"], "read", [1], None])
def test_privileges_outside_the_four_are_refused(
    client: TestClient, mem: Memories, alice: Member, bob: Member, privileges: object
) -> None:
    root = mem.make(alice, "root")
    invalid(post_grant(client, alice, root["id"], bob.principal, privileges))
    assert mem.privileges(bob, root["id"]) is None


def test_changing_grants_needs_delete(client: TestClient, mem: Memories, alice: Member, bob: Member) -> None:
    root = mem.make(alice, "root")
    carol_principal = f"member:{uuid.uuid4().hex}"
    given = mem.grant(alice, root["id"], carol_principal, "read")
    base = f"/v1/memories/{root['id']}/grants"
    not_found(client.get(base, headers=bob.headers))
    not_found(post_grant(client, bob, root["id"], bob.principal, ["read"]))
    not_found(client.delete(f"{base}/{given['id']}", headers=bob.headers))
    mem.grant(alice, root["id"], bob.principal, "read", "write", "create")
    assert len(mem.grants(bob, root["id"])) == 3
    forbidden(post_grant(client, bob, root["id"], bob.principal, ALL))
    forbidden(client.delete(f"{base}/{given['id']}", headers=bob.headers))
    mem.grant(alice, root["id"], bob.principal, "read", "delete")
    widened = ok(post_grant(client, bob, root["id"], carol_principal, ["read", "write"]))
    assert widened["privileges"] == ["read", "write"]
    gone = ok(client.delete(f"{base}/{given['id']}", headers=bob.headers))
    assert gone["id"] == given["id"] and gone["deleted"] is True
    assert carol_principal not in {g["principal"] for g in mem.grants(alice, root["id"])}


def test_an_inherited_delete_is_enough_to_change_grants_below(
    mem: Memories, alice: Member, bob: Member
) -> None:
    root = mem.make(alice, "root")
    child = mem.make(alice, "child", parent_id=root["id"])
    mem.grant(alice, root["id"], bob.principal, "delete")
    mem.grant(bob, child["id"], f"member:{uuid.uuid4().hex}", "read")


def test_removing_a_grant_takes_the_access_away(
    client: TestClient, mem: Memories, alice: Member, bob: Member
) -> None:
    root = mem.make(alice, "root")
    child = mem.make(alice, "child", parent_id=root["id"])
    given = mem.grant(alice, root["id"], bob.principal, "read")
    assert mem.privileges(bob, child["id"]) == ["read"]
    ok(client.delete(f"/v1/memories/{root['id']}/grants/{given['id']}", headers=alice.headers))
    assert mem.privileges(bob, root["id"]) is None and mem.privileges(bob, child["id"]) is None
    assert_error(
        client.delete(f"/v1/memories/{root['id']}/grants/{given['id']}", headers=alice.headers),
        404,
        "memory_grant_not_found",
    )


def test_a_grant_is_removed_only_through_the_node_it_sits_on(
    client: TestClient, mem: Memories, alice: Member, bob: Member
) -> None:
    root = mem.make(alice, "root")
    child = mem.make(alice, "child", parent_id=root["id"])
    given = mem.grant(alice, root["id"], bob.principal, "read")
    assert_error(
        client.delete(f"/v1/memories/{child['id']}/grants/{given['id']}", headers=alice.headers),
        404,
        "memory_grant_not_found",
    )
    assert mem.privileges(bob, root["id"]) == ["read"]
    assert_error(
        client.delete(f"/v1/memories/{root['id']}/grants/hgrt_{uuid.uuid4().hex}", headers=alice.headers),
        404,
        "memory_grant_not_found",
    )


def test_the_implicit_grant_cannot_be_removed(client: TestClient, mem: Memories, alice: Member) -> None:
    root = mem.make(alice, "root")
    implicit = next(g for g in mem.grants(alice, root["id"]) if g.get("implicit"))
    invalid(client.delete(f"/v1/memories/{root['id']}/grants/{implicit['id']}", headers=alice.headers))
    assert mem.privileges(alice, root["id"]) == ALL


def test_group_grants_reach_members_through_nested_groups(
    admin: Admin, mem: Memories, alice: Member, bob: Member
) -> None:
    team = admin.group(bob.id)
    department = admin.group(team)
    root = mem.make(alice, "root")
    child = mem.make(alice, "child", parent_id=root["id"])
    given = mem.grant(alice, root["id"], f"group:{department}", "read", "create")
    assert mem.privileges(bob, child["id"]) == ["read", "create"]
    made = mem.make(bob, "bob's", parent_id=child["id"])
    assert made["ancestors"] == [root["id"], child["id"]]
    listed = {g["id"]: g for g in mem.grants(bob, made["id"])}
    assert listed[given["id"]]["inherited"] is True and listed[given["id"]]["memory_id"] == root["id"]
    ok(admin.client.delete(f"/v1/admin/groups/{team}/members/{bob.id}", headers=admin.headers))
    assert mem.privileges(bob, child["id"]) is None
    assert mem.privileges(bob, made["id"]) == ALL  # his own creation stays his


def test_grants_to_several_groups_add_up(admin: Admin, mem: Memories, alice: Member, bob: Member) -> None:
    readers = admin.group(bob.id)
    writers = admin.group(bob.id)
    root = mem.make(alice, "root")
    mem.grant(alice, root["id"], f"group:{readers}", "read")
    mem.grant(alice, root["id"], f"group:{writers}", "write")
    mem.grant(alice, root["id"], bob.principal, "create")
    assert mem.privileges(bob, root["id"]) == ["read", "write", "create"]


def test_deleting_a_memory_removes_its_grants(
    client: TestClient, mem: Memories, alice: Member, bob: Member
) -> None:
    root = mem.make(alice, "root")
    child = mem.make(alice, "child", parent_id=root["id"])
    mem.grant(alice, child["id"], bob.principal, "read")
    ok(client.delete(f"/v1/memories/{child['id']}", headers=alice.headers))
    not_found(client.get(f"/v1/memories/{child['id']}/grants", headers=alice.headers))
    assert mem.privileges(bob, child["id"]) is None
