"""A harness's memories over HTTP: what its agent was granted, the default memory and observe."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient

from tests.api.tree_support import ALL, Memories, Reply, assert_error, invalid, ok, validate
from tests.conftest import Admin, Member


@pytest.fixture
def mem(client: TestClient) -> Iterator[Memories]:
    tracker = Memories(client)
    yield tracker
    tracker.cleanup()


@pytest.fixture
def agent(admin: Admin) -> Member:
    return admin.member("agent")


def make_harness(admin: Admin, member: Member) -> str:
    made = ok(
        admin.client.post(
            "/v1/admin/harnesses", json={"name": "h", "member_id": member.id}, headers=admin.headers
        )
    )
    assert made["member_id"] == member.id and made["principal"] == member.principal
    assert made["id"].startswith("chrn_")
    return str(made["id"])


def memories_of(client: TestClient, who: Member, harness_id: str) -> dict[str, Any]:
    body = ok(client.get(f"/v1/harnesses/{harness_id}/memories", headers=who.headers))
    validate("HarnessMemories", body)
    return body


def put_settings(client: TestClient, who: Member, harness_id: str, **fields: Any) -> Reply:
    return client.put(f"/v1/harnesses/{harness_id}/memories", json=fields, headers=who.headers)


def test_a_harness_with_nothing_granted_has_no_memories_attached(
    client: TestClient, admin: Admin, agent: Member
) -> None:
    harness = make_harness(admin, agent)
    assert_error(
        client.get(f"/v1/harnesses/{harness}/memories", headers=agent.headers), 404, "memories_not_attached"
    )


def test_the_harness_lists_what_its_agent_was_granted_highest_first(
    client: TestClient, admin: Admin, mem: Memories, alice: Member, agent: Member
) -> None:
    harness = make_harness(admin, agent)
    root = mem.make(alice, "root")
    team = mem.make(alice, "team", parent_id=root["id"])
    customer = mem.make(alice, "customer", parent_id=team["id"])
    ungranted = mem.make(alice, "below, not granted", parent_id=customer["id"])
    mem.grant(alice, team["id"], agent.principal, "read")
    mem.grant(alice, customer["id"], agent.principal, "write")
    body = memories_of(client, agent, harness)
    assert body["object"] == "harness.memories" and body["principal"] == agent.principal
    assert body["default_memory_id"] is None and body["observe"] is True
    assert [m["id"] for m in body["data"]] == [team["id"], customer["id"]]
    assert [m["privileges"] for m in body["data"]] == [["read"], ["read", "write"]]
    assert [m["name"] for m in body["data"]] == ["team", "customer"]
    assert ungranted["id"] not in {m["id"] for m in body["data"]}
    assert root["id"] not in {m["id"] for m in body["data"]}


def test_group_and_nested_group_grants_attach_memories(
    client: TestClient, admin: Admin, mem: Memories, alice: Member, agent: Member
) -> None:
    harness = make_harness(admin, agent)
    inner = admin.group(agent.id)
    outer = admin.group(inner)
    shared = mem.make(alice, "shared")
    mem.grant(alice, shared["id"], f"group:{outer}", "read", "write")
    body = memories_of(client, agent, harness)
    assert [(m["id"], m["privileges"]) for m in body["data"]] == [(shared["id"], ["read", "write"])]


def test_memories_the_agent_made_are_attached_with_all_four(
    client: TestClient, admin: Admin, mem: Memories, agent: Member
) -> None:
    harness = make_harness(admin, agent)
    own = mem.make(agent, "own")
    body = memories_of(client, agent, harness)
    assert [(m["id"], m["privileges"]) for m in body["data"]] == [(own["id"], ALL)]


def test_only_the_agent_may_look(
    client: TestClient, admin: Admin, mem: Memories, alice: Member, agent: Member, bob: Member
) -> None:
    harness = make_harness(admin, agent)
    root = mem.make(alice, "root")
    mem.grant(alice, root["id"], agent.principal, "read")
    mem.grant(alice, root["id"], bob.principal, "read")
    assert_error(
        client.get(f"/v1/harnesses/{harness}/memories", headers=bob.headers), 404, "harness_not_found"
    )
    assert_error(put_settings(client, bob, harness, observe=False), 404, "harness_not_found")
    assert_error(
        client.get(f"/v1/harnesses/chrn_{uuid.uuid4().hex}/memories", headers=agent.headers),
        404,
        "harness_not_found",
    )
    assert memories_of(client, agent, harness)["observe"] is True


def test_a_server_key_may_look_for_the_agent(
    client: TestClient, admin: Admin, mem: Memories, alice: Member, agent: Member
) -> None:
    harness = make_harness(admin, agent)
    server = admin.member(server=True)
    root = mem.make(alice, "root")
    mem.grant(alice, root["id"], agent.principal, "read")
    response = client.get(
        f"/v1/harnesses/{harness}/memories", headers={**server.headers, "UHP-On-Behalf-Of": agent.principal}
    )
    assert [m["id"] for m in ok(response)["data"]] == [root["id"]]


def test_the_default_memory_must_be_writable_by_the_agent(
    client: TestClient, admin: Admin, mem: Memories, alice: Member, agent: Member
) -> None:
    harness = make_harness(admin, agent)
    readable = mem.make(alice, "readable")
    writable = mem.make(alice, "writable")
    below = mem.make(alice, "below writable", parent_id=writable["id"])
    hidden = mem.make(alice, "hidden")
    mem.grant(alice, readable["id"], agent.principal, "read")
    mem.grant(alice, writable["id"], agent.principal, "write")
    invalid(put_settings(client, agent, harness, default_memory_id=readable["id"]))
    invalid(put_settings(client, agent, harness, default_memory_id=hidden["id"]))
    invalid(put_settings(client, agent, harness, default_memory_id=f"hmem_{uuid.uuid4().hex}"))
    assert memories_of(client, agent, harness)["default_memory_id"] is None
    chosen = ok(put_settings(client, agent, harness, default_memory_id=writable["id"]))
    validate("HarnessMemories", chosen)
    assert chosen["default_memory_id"] == writable["id"]
    assert [m["default"] for m in chosen["data"] if m["id"] == writable["id"]] == [True]
    assert not any(m["default"] for m in chosen["data"] if m["id"] != writable["id"])
    inherited = ok(put_settings(client, agent, harness, default_memory_id=below["id"]))
    assert inherited["default_memory_id"] == below["id"]  # write flows down from the granted memory
    assert memories_of(client, agent, harness)["default_memory_id"] == below["id"]


def test_observe_is_on_by_default_and_can_be_turned_off(
    client: TestClient, admin: Admin, mem: Memories, alice: Member, agent: Member
) -> None:
    harness = make_harness(admin, agent)
    root = mem.make(alice, "root")
    mem.grant(alice, root["id"], agent.principal, "read", "write")
    ok(put_settings(client, agent, harness, default_memory_id=root["id"]))
    off = ok(put_settings(client, agent, harness, observe=False))
    assert off["observe"] is False and off["default_memory_id"] == root["id"]  # left out: kept
    again = memories_of(client, agent, harness)
    assert again["observe"] is False and again["default_memory_id"] == root["id"]
    cleared = ok(put_settings(client, agent, harness, default_memory_id=None, observe=True))
    assert cleared["default_memory_id"] is None and cleared["observe"] is True
    invalid(put_settings(client, agent, harness, observe="sometimes"))


def test_the_admin_surface_makes_harnesses(client: TestClient, admin: Admin, alice: Member) -> None:
    refused = client.post(
        "/v1/admin/harnesses", json={"name": "h", "member_id": alice.id}, headers=alice.headers
    )
    assert refused.status_code in (401, 403), refused.text
    unknown = client.post(
        "/v1/admin/harnesses",
        json={"name": "h", "member_id": f"hmbr_{uuid.uuid4().hex}"},
        headers=admin.headers,
    )
    assert_error(unknown, 404, "member_not_found")
