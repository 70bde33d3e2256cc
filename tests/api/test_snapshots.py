"""Snapshots over HTTP: a named instant of a memory; a read as of one is the read as of its time."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient

from tests.api.records_support import Lab, Reply, assert_error, ok, texts, validate
from tests.conftest import Member
from tests.time_bound import next_millisecond

SNAPSHOT_ID = re.compile(r"^hsnp_[0-9a-f]{32}$")


@pytest.fixture
def lab(client: TestClient) -> Iterator[Lab]:
    tracker = Lab(client)
    yield tracker
    tracker.cleanup()


def post_snapshot(lab: Lab, who: Member, memory_id: str, body: Any) -> Reply:
    return lab.client.post(f"/v1/memories/{memory_id}/snapshots", json=body, headers=who.headers)


def snapshot(lab: Lab, who: Member, memory_id: str, name: str, message: str = "") -> dict[str, Any]:
    body = ok(post_snapshot(lab, who, memory_id, {"name": name, "message": message}))
    validate("MemorySnapshot", body)
    # The clock has millisecond resolution: a write in the snapshot's own millisecond belongs to it.
    next_millisecond()
    return body


def snapshots(lab: Lab, who: Member, memory_id: str) -> list[dict[str, Any]]:
    body = ok(lab.client.get(f"/v1/memories/{memory_id}/snapshots", headers=who.headers))
    validate("MemorySnapshotList", body)
    data: list[dict[str, Any]] = body["data"]
    return data


def test_a_snapshot_is_answered_and_listed(lab: Lab, alice: Member) -> None:
    memory_id = lab.memory(alice)
    made = snapshot(lab, alice, memory_id, "before the audit", "what we knew in March")
    assert SNAPSHOT_ID.match(made["id"]), made["id"]
    assert made["object"] == "memory.snapshot" and made["memory_id"] == memory_id
    assert (made["name"], made["message"]) == ("before the audit", "what we knew in March")
    assert made["at"].endswith("Z")
    later = snapshot(lab, alice, memory_id, "after the audit")
    assert later["message"] == ""
    assert snapshots(lab, alice, memory_id) == [made, later]
    assert snapshots(lab, alice, lab.memory(alice)) == []


def test_a_read_as_of_a_snapshot_is_the_read_as_of_its_time(lab: Lab, alice: Member) -> None:
    memory_id = lab.memory(alice)
    record = lab.remember(alice, memory_id, content="renews every March")
    made = snapshot(lab, alice, memory_id, "march")
    lab.revise(alice, memory_id, record["id"], content="renews every April")
    added = lab.remember(alice, memory_id, content="written after the snapshot")
    at_snapshot = lab.get(alice, memory_id, record["id"], as_of=made["id"])
    assert at_snapshot == lab.get(alice, memory_id, record["id"], as_of=made["at"])
    assert (texts(at_snapshot), at_snapshot["version"], at_snapshot["status"]) == (
        ["renews every March"],
        1,
        "active",
    )
    listed = lab.page(alice, memory_id, as_of=made["id"])["data"]
    assert listed == lab.page(alice, memory_id, as_of=made["at"])["data"]
    assert [r["id"] for r in listed] == [record["id"]]
    assert texts(lab.get(alice, memory_id, record["id"])) == ["renews every April"]
    assert lab.listed(alice, memory_id) == [record["id"], added["id"]]


def test_a_snapshot_keeps_a_forgotten_record_active(lab: Lab, alice: Member) -> None:
    memory_id = lab.memory(alice)
    record = lab.remember(alice, memory_id)
    made = snapshot(lab, alice, memory_id, "before forgetting")
    assert ok(lab.delete(alice, memory_id, record["id"]))["status"] == "forgotten"
    assert lab.get(alice, memory_id, record["id"], as_of=made["id"])["status"] == "active"
    assert lab.listed(alice, memory_id, as_of=made["id"]) == [record["id"]]
    assert lab.listed(alice, memory_id) == []


def test_snapshots_need_write_to_make_and_read_to_list(lab: Lab, alice: Member, bob: Member) -> None:
    memory_id = lab.memory(alice)
    made = snapshot(lab, alice, memory_id, "one")
    assert_error(post_snapshot(lab, bob, memory_id, {"name": "x"}), 404, "memory_not_found")
    unseen = lab.client.get(f"/v1/memories/{memory_id}/snapshots", headers=bob.headers)
    assert_error(unseen, 404, "memory_not_found")
    lab.grant(alice, memory_id, bob, "read")
    assert_error(post_snapshot(lab, bob, memory_id, {"name": "x"}), 403, "memory_forbidden")
    assert snapshots(lab, bob, memory_id) == [made]


def test_reading_as_of_a_snapshot_needs_read_on_its_memory(lab: Lab, alice: Member, bob: Member) -> None:
    secret = lab.memory(alice)
    made = snapshot(lab, alice, secret, "private")
    mine = lab.memory(bob)
    record = lab.remember(bob, mine)
    response = lab.read(bob, mine, record["id"], as_of=made["id"])
    # Unknown and hidden look the same: a snapshot of a memory bob cannot read is no snapshot at all.
    unknown = lab.read(bob, mine, record["id"], as_of="hsnp_" + "0" * 32)
    assert_error(response, 422, "memory_invalid")
    assert_error(unknown, 422, "memory_invalid")
    assert response.json()["error"]["message"] == unknown.json()["error"]["message"]
    assert response.json()["error"]["param"] == unknown.json()["error"]["param"] == "as_of"


@pytest.mark.parametrize("body", [{}, {"name": ""}, {"name": "   "}, {"name": 3}, {"name": "n" * 301}])
def test_a_snapshot_needs_a_name(lab: Lab, alice: Member, body: dict[str, Any]) -> None:
    memory_id = lab.memory(alice)
    assert_error(post_snapshot(lab, alice, memory_id, body), 422, "memory_invalid")
    assert snapshots(lab, alice, memory_id) == []


def test_a_memory_counts_its_active_records_and_nothing_else_that_sits_in_it(lab: Lab, alice: Member) -> None:
    """The count is read from the memory's degree less what is not an active record: check each kind."""
    parent_id = lab.memory(alice)
    memory_id = lab.memory(alice, parent_id=parent_id)

    def counted() -> int:
        shown = ok(lab.client.get(f"/v1/memories/{memory_id}", headers=alice.headers))
        return int(shown["records"]["count"])

    kept = [lab.remember(alice, memory_id, content=f"kept fact {n}")["id"] for n in range(3)]
    forgotten = lab.remember(alice, memory_id, content="a fact to forget")["id"]
    erased = lab.remember(alice, memory_id, content="a fact to erase")["id"]
    assert counted() == 5
    ok(lab.delete(alice, memory_id, forgotten))
    erase = {"record_ids": [erased]}
    ok(lab.client.post(f"/v1/memories/{memory_id}/erase", json=erase, headers=alice.headers))
    lab.revise(alice, memory_id, kept[0], content="kept fact 0, revised")
    snapshot(lab, alice, memory_id, "a named instant")
    ok(lab.client.post(f"/v1/memories/{memory_id}/consolidations", json={}, headers=alice.headers))
    named = {"body": "MATCH (r:Record) RETURN r.id AS id", "language": "cypher", "requires": "read"}
    ok(lab.client.put(f"/v1/memories/{memory_id}/queries/every_id", json=named, headers=alice.headers))
    assert counted() == 3
    recalled = ok(
        lab.client.post(f"/v1/memories/{parent_id}/recall", json={"text": "kept"}, headers=alice.headers)
    )
    assert [(c["id"], c["records"]["count"]) for c in recalled["children"]] == [(memory_id, 3)]
