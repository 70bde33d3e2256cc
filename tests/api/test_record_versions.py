"""Versions over HTTP: revise appends, history keeps every version, as_of reads the past, forget closes."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient

from tests.api.records_support import Lab, assert_error, shifted, texts
from tests.conftest import Member


@pytest.fixture
def lab(client: TestClient) -> Iterator[Lab]:
    tracker = Lab(client)
    yield tracker
    tracker.cleanup()


def test_a_revision_appends_a_version_by_its_writer(lab: Lab, alice: Member, bob: Member) -> None:
    memory_id = lab.memory(alice)
    lab.grant(alice, memory_id, bob, "read", "write")
    first = lab.remember(alice, memory_id, content="renews every March", attributes={"a": 1})
    second = lab.revise(bob, memory_id, first["id"], content="renews every April")
    assert second["id"] == first["id"]
    assert (second["version"], second["supersedes"], second["status"]) == (2, 1, "active")
    assert texts(second) == ["renews every April"]
    assert second["attributes"] == {"a": 1}, "what a revision does not name stays"
    assert second["written_by"]["id"] == bob.id
    assert second["time"]["written_at"] > first["time"]["written_at"]
    history = lab.history(alice, memory_id, first["id"])
    assert [(v["version"], v["status"], v["written_by"]["id"]) for v in history] == [
        (1, "superseded", alice.id),
        (2, "active", bob.id),
    ]
    assert [texts(v) for v in history] == [["renews every March"], ["renews every April"]]
    assert history[0]["time"]["invalidated_at"] == second["time"]["written_at"]
    assert history[1]["time"]["invalidated_at"] is None


def test_a_revision_changes_only_what_it_names(lab: Lab, alice: Member) -> None:
    memory_id = lab.memory(alice)
    first = lab.remember(
        alice,
        memory_id,
        title="Terms",
        content="net thirty",
        attributes={"account": "harlow"},
        time={"valid_from": "2026-01-01T00:00:00Z"},
    )
    second = lab.revise(alice, memory_id, first["id"], attributes={"account": "harlow", "checked": True})
    assert (second["title"], second["content"]) == ("Terms", first["content"])
    assert second["time"]["valid_from"] == "2026-01-01T00:00:00Z"
    stated = {"valid_from": "2026-02-01T00:00:00+01:00", "valid_to": "2027-01-01"}
    third = lab.revise(alice, memory_id, first["id"], title="Payment terms", time=stated)
    assert third["title"] == "Payment terms" and third["attributes"] == second["attributes"]
    assert (third["time"]["valid_from"], third["time"]["valid_to"]) == tuple(stated.values())
    assert [v["version"] for v in lab.history(alice, memory_id, first["id"])] == [1, 2, 3]


def test_a_bad_revision_is_refused_and_changes_nothing(lab: Lab, alice: Member) -> None:
    memory_id = lab.memory(alice)
    record = lab.remember(alice, memory_id, content="kept")
    bodies: list[dict[str, Any]] = [
        {"content": [{"type": "image"}]},
        {"title": "t" * 301},
        {"time": {"valid_from": "soon"}},
        {"content": []},
    ]
    for body in bodies:
        assert_error(lab.patch(alice, memory_id, record["id"], body), 422, "memory_invalid")
    assert lab.get(alice, memory_id, record["id"]) == record


def test_as_of_reads_the_version_of_that_instant(lab: Lab, alice: Member) -> None:
    memory_id = lab.memory(alice)
    first = lab.remember(alice, memory_id, content="every March")
    second = lab.revise(alice, memory_id, first["id"], content="every April")
    then = first["time"]["written_at"]
    at_first = lab.get(alice, memory_id, first["id"], as_of=then)
    assert (texts(at_first), at_first["version"], at_first["status"]) == (["every March"], 1, "active")
    assert at_first["time"]["invalidated_at"] is None, "the closing was not yet known then"
    just_before = lab.get(alice, memory_id, first["id"], as_of=shifted(second["time"]["written_at"], -1))
    assert texts(just_before) == ["every March"]
    at_second = lab.get(alice, memory_id, first["id"], as_of=second["time"]["written_at"])
    assert (texts(at_second), at_second["version"]) == (["every April"], 2)
    assert lab.get(alice, memory_id, first["id"], as_of="2999-01-01T00:00:00Z")["version"] == 2
    before = lab.read(alice, memory_id, first["id"], as_of=shifted(then, -1))
    assert_error(before, 404, "memory_record_not_found")


@pytest.mark.parametrize("as_of", ["yesterday", "2026-13-45T00:00:00Z", "hsnp_" + "0" * 32])
def test_a_bad_as_of_is_422(lab: Lab, alice: Member, as_of: str) -> None:
    memory_id = lab.memory(alice)
    record = lab.remember(alice, memory_id)
    assert_error(lab.read(alice, memory_id, record["id"], as_of=as_of), 422, "memory_invalid")
    listing = lab.client.get(
        f"/v1/memories/{memory_id}/records", params={"as_of": as_of}, headers=alice.headers
    )
    assert_error(listing, 422, "memory_invalid")


def test_the_list_as_of_shows_what_was_there_then(lab: Lab, alice: Member) -> None:
    memory_id = lab.memory(alice)
    first = lab.remember(alice, memory_id, content="first, as written")
    then = first["time"]["written_at"]
    later = lab.remember(alice, memory_id, content="written later")
    lab.revise(alice, memory_id, first["id"], content="first, revised")
    past = lab.page(alice, memory_id, as_of=then)["data"]
    assert [(r["id"], texts(r), r["version"]) for r in past] == [(first["id"], ["first, as written"], 1)]
    now = lab.page(alice, memory_id)["data"]
    assert [(r["id"], texts(r)) for r in now] == [
        (first["id"], ["first, revised"]),
        (later["id"], ["written later"]),
    ]
    assert lab.listed(alice, memory_id, as_of=shifted(then, -1)) == []


def test_forget_closes_the_record_and_keeps_its_trace(lab: Lab, alice: Member) -> None:
    memory_id = lab.memory(alice)
    kept = lab.remember(alice, memory_id, content="Quillon Freight stays.")
    record = lab.remember(alice, memory_id, content="Harlow Mills pays net sixty.")
    revised = lab.revise(alice, memory_id, record["id"], content="Harlow Mills pays net ninety.")
    response = lab.delete(alice, memory_id, record["id"])
    assert response.status_code == 200, response.text
    forgotten = response.json()
    assert (forgotten["id"], forgotten["status"], forgotten["version"]) == (record["id"], "forgotten", 2)
    assert forgotten["time"]["invalidated_at"]
    again = lab.get(alice, memory_id, record["id"])
    assert (again["status"], texts(again)) == ("forgotten", ["Harlow Mills pays net ninety."])
    assert lab.listed(alice, memory_id) == [kept["id"]]
    assert lab.listed(alice, memory_id, include="all") == [kept["id"], record["id"]]
    history = lab.history(alice, memory_id, record["id"])
    assert [(v["version"], v["status"]) for v in history] == [(1, "superseded"), (2, "forgotten")]
    before = shifted(forgotten["time"]["invalidated_at"], -1)
    assert lab.get(alice, memory_id, record["id"], as_of=before)["status"] == "active"
    assert lab.get(alice, memory_id, record["id"], as_of=revised["time"]["written_at"])["version"] == 2
    assert record["id"] in lab.listed(alice, memory_id, as_of=before)


def test_a_forgotten_record_stays_forgotten(lab: Lab, alice: Member) -> None:
    memory_id = lab.memory(alice)
    record = lab.remember(alice, memory_id)
    first = lab.delete(alice, memory_id, record["id"])
    assert first.status_code == 200, first.text
    second = lab.delete(alice, memory_id, record["id"])
    assert second.status_code == 200, second.text
    assert second.json()["time"]["invalidated_at"] == first.json()["time"]["invalidated_at"]
    assert_error(lab.patch(alice, memory_id, record["id"], {"content": "back"}), 422, "memory_invalid")
    history = lab.history(alice, memory_id, record["id"])
    assert [(v["version"], v["status"]) for v in history] == [(1, "forgotten")]
