"""References over HTTP: resolved by record id, written blind, read with the reader's privileges."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient

from tests.api.records_support import Lab, assert_error
from tests.conftest import Admin, Member

DEFINED_RELS = ["derived_from", "part_of", "about", "subject", "object"]


@pytest.fixture
def lab(client: TestClient) -> Iterator[Lab]:
    tracker = Lab(client)
    yield tracker
    tracker.cleanup()


def shown(rel: str, memory_id: str, record_id: str) -> dict[str, Any]:
    """A reference as a reader who may read its target sees it."""
    return {"rel": rel, "memory_id": memory_id, "record_id": record_id, "available": True}


def hidden(record_id: str) -> dict[str, Any]:
    """A reference as a reader who may not read its target sees it: the id and nothing else."""
    return {"record_id": record_id, "available": False}


def test_a_reference_is_resolved_from_the_record_id(lab: Lab, alice: Member) -> None:
    people = lab.memory(alice)
    facts = lab.memory(alice)
    ines = lab.remember(alice, people, type="entity", content="Ines Varga")
    harlow = lab.remember(alice, people, type="entity", content="Harlow Mills")
    refs = [
        {"rel": "subject", "record_id": ines["id"]},
        {"rel": "object", "record_id": harlow["id"], "memory_id": facts},  # a wrong memory_id is not kept
    ]
    fact = lab.remember(alice, facts, content="Ines runs purchasing at Harlow.", references=refs)
    expected = [shown("subject", people, ines["id"]), shown("object", people, harlow["id"])]
    assert fact["references"] == expected
    assert lab.get(alice, facts, fact["id"])["references"] == expected
    assert lab.page(alice, facts)["data"][0]["references"] == expected


def test_every_rel_is_carried_unchanged(lab: Lab, alice: Member) -> None:
    memory_id = lab.memory(alice)
    target = lab.remember(alice, memory_id)
    rels = [*DEFINED_RELS, "x.cites", "mentions"]
    refs = [{"rel": rel, "record_id": target["id"]} for rel in rels]
    record = lab.remember(alice, memory_id, references=refs)
    assert [r["rel"] for r in record["references"]] == rels
    assert [r["rel"] for r in lab.get(alice, memory_id, record["id"])["references"]] == rels


@pytest.mark.parametrize(
    "refs",
    [
        [{"rel": "about"}],
        [{"rel": "about", "record_id": ""}],
        [{"rel": 5, "record_id": "{target}"}],
        [{"rel": "subject", "record_id": "{target}"}, {"rel": "subject", "record_id": "{other}"}],
        [{"rel": "object", "record_id": "{target}"}, {"rel": "object", "record_id": "{target}"}],
        {"rel": "about", "record_id": "{target}"},
    ],
    ids=["no record_id", "empty record_id", "rel a number", "two subjects", "two objects",
         "not a list"],
)  # fmt: skip
def test_a_bad_reference_is_422_memory_invalid(lab: Lab, alice: Member, refs: Any) -> None:
    memory_id = lab.memory(alice)
    target, other = lab.remember(alice, memory_id), lab.remember(alice, memory_id)
    named = {"{target}": target["id"], "{other}": other["id"]}
    body = _fill(refs, named)
    response = lab.post(alice, memory_id, {"content": "x", "references": body})
    assert_error(response, 422, "memory_invalid")
    assert lab.listed(alice, memory_id) == [target["id"], other["id"]]


def _fill(value: Any, named: dict[str, str]) -> Any:
    if isinstance(value, list):
        return [_fill(v, named) for v in value]
    if isinstance(value, dict):
        return {k: _fill(v, named) for k, v in value.items()}
    return named.get(value, value) if isinstance(value, str) else value


def test_a_reference_needs_no_read_on_its_target_and_reads_as_unavailable(
    lab: Lab, alice: Member, bob: Member
) -> None:
    secret = lab.memory(alice)
    target = lab.remember(alice, secret, type="entity", content="Quillon Freight")
    notes = lab.memory(bob)
    record = lab.remember(bob, notes, references=[{"rel": "about", "record_id": target["id"]}])
    assert record["references"] == [hidden(target["id"])]
    assert lab.get(bob, notes, record["id"])["references"] == [hidden(target["id"])]
    assert lab.page(bob, notes)["data"][0]["references"] == [hidden(target["id"])]
    lab.grant(bob, notes, alice, "read")
    assert lab.get(alice, notes, record["id"])["references"] == [shown("about", secret, target["id"])]


def test_a_reference_to_no_record_answers_as_one_to_a_hidden_record(
    lab: Lab, alice: Member, bob: Member
) -> None:
    """Unknown and hidden look the same: the write is no oracle of which record ids exist elsewhere."""
    secret = lab.memory(alice)
    target = lab.remember(alice, secret, type="entity", content="Quillon Freight")
    notes = lab.memory(bob)
    nowhere = "hrec_" + "0" * 32
    to_hidden = lab.post(
        bob, notes, {"content": "x", "references": [{"rel": "about", "record_id": target["id"]}]}
    )
    to_nothing = lab.post(
        bob, notes, {"content": "x", "references": [{"rel": "about", "record_id": nowhere}]}
    )
    assert to_hidden.status_code == to_nothing.status_code == 200
    assert to_hidden.json()["references"] == [hidden(target["id"])]
    assert to_nothing.json()["references"] == [hidden(nowhere)]
    assert lab.get(bob, notes, to_nothing.json()["id"])["references"] == [hidden(nowhere)]
    lab.grant(bob, notes, alice, "read")
    assert lab.get(alice, notes, to_nothing.json()["id"])["references"] == [hidden(nowhere)]


def test_a_reviser_keeps_the_references_it_could_not_see(
    lab: Lab, alice: Member, bob: Member, admin: Admin
) -> None:
    shared = lab.memory(alice)
    secret = lab.memory(alice)
    lab.grant(alice, shared, bob, "read", "write")
    hidden_target = lab.remember(alice, secret, type="entity", content="Ines Varga")
    seen_target = lab.remember(alice, shared, type="entity", content="Harlow Mills")
    record = lab.remember(alice, shared, references=[{"rel": "subject", "record_id": hidden_target["id"]}])
    assert lab.get(bob, shared, record["id"])["references"] == [hidden(hidden_target["id"])]
    revised = lab.revise(
        bob, shared, record["id"], references=[{"rel": "object", "record_id": seen_target["id"]}]
    )
    assert revised["references"] == [
        shown("object", shared, seen_target["id"]),
        hidden(hidden_target["id"]),
    ]
    emptied = lab.revise(bob, shared, record["id"], references=[])
    assert emptied["references"] == [hidden(hidden_target["id"])]
    assert lab.get(alice, shared, record["id"])["references"] == [
        shown("subject", secret, hidden_target["id"])
    ]
    second_subject = lab.patch(
        bob, shared, record["id"], {"references": [{"rel": "subject", "record_id": seen_target["id"]}]}
    )
    assert_error(second_subject, 422, "memory_invalid")
    carol = admin.member()
    lab.grant(alice, shared, carol, "read")
    history = lab.history(carol, shared, record["id"])
    assert [v["references"] for v in history] == [
        [hidden(hidden_target["id"])],
        [shown("object", shared, seen_target["id"]), hidden(hidden_target["id"])],
        [hidden(hidden_target["id"])],
    ]


def test_a_reviser_echoing_what_it_read_adds_nothing_it_could_not_see(
    lab: Lab, alice: Member, bob: Member
) -> None:
    shared = lab.memory(alice)
    secret = lab.memory(alice)
    lab.grant(alice, shared, bob, "read", "write")
    hidden_target = lab.remember(alice, secret, type="entity", content="Ines Varga")
    seen_target = lab.remember(alice, shared, type="entity", content="Harlow Mills")
    record = lab.remember(alice, shared, references=[{"rel": "subject", "record_id": hidden_target["id"]}])
    read = lab.get(bob, shared, record["id"])["references"]
    echoed = [*read, {"rel": "object", "record_id": seen_target["id"]}]
    revised = lab.revise(bob, shared, record["id"], references=echoed)
    assert revised["references"] == [
        shown("object", shared, seen_target["id"]),
        hidden(hidden_target["id"]),
    ]
    assert lab.get(alice, shared, record["id"])["references"] == [
        shown("object", shared, seen_target["id"]),
        shown("subject", secret, hidden_target["id"]),
    ]


def test_a_revision_without_references_keeps_them(lab: Lab, alice: Member) -> None:
    memory_id = lab.memory(alice)
    target = lab.remember(alice, memory_id)
    record = lab.remember(alice, memory_id, references=[{"rel": "part_of", "record_id": target["id"]}])
    revised = lab.revise(alice, memory_id, record["id"], content="changed words")
    assert revised["references"] == record["references"]
    cleared = lab.revise(alice, memory_id, record["id"], references=[])
    assert cleared["references"] == []
