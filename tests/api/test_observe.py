"""Observe over HTTP: episodes kept as the provider's own records, linked at write time to named entities."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient

from tests.api.lifecycle_support import observe, observe_reply, provider_document, refs
from tests.api.records_support import Lab, assert_error, ok, tag, validate
from tests.conftest import Admin, Member


@pytest.fixture
def lab(client: TestClient) -> Iterator[Lab]:
    tracker = Lab(client)
    yield tracker
    tracker.cleanup()


def entity(lab: Lab, who: Member, memory_id: str, title: str, **fields: Any) -> str:
    """An entity record named `title`; its id."""
    return str(lab.remember(who, memory_id, type="entity", title=title, content=title, **fields)["id"])


def about(record: dict[str, Any]) -> set[str]:
    """The entities an episode was linked to."""
    return {record_id for rel, record_id in refs(record) if rel == "about"}


# -- what is kept ------------------------------------------------------------------------------------


def test_episodes_are_kept_as_the_providers_records_on_the_observers_behalf(lab: Lab, alice: Member) -> None:
    memory_id = lab.memory(alice)
    provider_id = provider_document(lab.client, alice)["id"]
    turn = [
        {"type": "text", "text": "When does Harlow renew?", "role": "user"},
        {"type": "text", "text": "Every March.", "role": "assistant"},
    ]
    kept = observe(
        lab,
        alice,
        memory_id,
        {"content": "The user opened the renewal ticket.", "attributes": {"channel": "chat"}},
        {"content": turn, "attributes": {"turn": 2}},
    )
    assert [r["content"] for r in kept] == [
        [{"type": "text", "text": "The user opened the renewal ticket."}],
        turn,
    ]
    assert [r["attributes"] for r in kept] == [{"channel": "chat"}, {"turn": 2}]
    for record in kept:
        validate("MemoryRecord", record)
        assert record["type"] == "episode" and record["memory_id"] == memory_id
        assert record["written_by"] == {
            "kind": "provider",
            "id": provider_id,
            "on_behalf_of": alice.principal,
        }
        assert record["trust"] == "untrusted" and record["status"] == "active" and record["version"] == 1
        read = lab.get(alice, memory_id, record["id"])
        assert {k: read[k] for k in ("content", "attributes", "written_by", "type")} == {
            k: record[k] for k in ("content", "attributes", "written_by", "type")
        }
    assert set(lab.listed(alice, memory_id, type="episode")) == {r["id"] for r in kept}


def test_an_episode_is_an_episode_whatever_the_body_claims(lab: Lab, alice: Member) -> None:
    memory_id = lab.memory(alice)
    forged = {"kind": "member", "id": "someone-else"}
    [record] = observe(lab, alice, memory_id, {"content": "hello", "type": "fact", "written_by": forged})
    assert record["type"] == "episode"
    assert record["written_by"]["kind"] == "provider"
    assert record["written_by"]["on_behalf_of"] == alice.principal


def test_episodes_are_append_only(lab: Lab, alice: Member) -> None:
    memory_id = lab.memory(alice)
    [record] = observe(lab, alice, memory_id, {"content": "user: hello"})
    assert_error(lab.patch(alice, memory_id, record["id"], {"content": "edited"}), 422, "memory_invalid")
    assert_error(lab.patch(alice, memory_id, record["id"], {"attributes": {"a": 1}}), 422, "memory_invalid")
    history = lab.history(alice, memory_id, record["id"])
    assert [v["version"] for v in history] == [1]
    assert history[0]["content"] == [{"type": "text", "text": "user: hello"}]


# -- entity links ------------------------------------------------------------------------------------


def test_an_episode_links_the_entities_it_names_ignoring_case_and_accents(lab: Lab, alice: Member) -> None:
    root = lab.memory(alice)
    child = lab.memory(alice, parent_id=root)
    ines = entity(lab, alice, root, "Inès Varga")
    harlow = entity(lab, alice, root, "Harlow Mills", attributes={"aliases": ["HM Group"]})
    quillon = entity(lab, alice, child, "Quillon Freight")
    lab.remember(alice, child, content="Quillon Freight is a fact, not an entity.")
    spoken = [
        ("Spoke with INES VARGA about the renewal.", {ines}),
        ("inès varga and Ines Varga are the same person.", {ines}),
        ("Harlowmills is another company; so is Harlow Millsford.", set()),
        ("Invoices from the hm group arrive late.", {harlow}),
        ("HARLOW MILLS, Quillon Freight and Inès Varga met.", {harlow, quillon, ines}),
        ("Nothing about anyone here.", set()),
    ]
    kept = observe(lab, alice, child, *({"content": text} for text, _ in spoken))
    for record, (text, expected) in zip(kept, spoken, strict=True):
        assert about(record) == expected, text
        assert about(lab.get(alice, child, record["id"])) == expected, text
        assert all(r["memory_id"] in (root, child) for r in record["references"])


def test_words_in_the_parts_of_a_turn_are_matched(lab: Lab, alice: Member) -> None:
    memory_id = lab.memory(alice)
    ines = entity(lab, alice, memory_id, "Inès Varga")
    harlow = entity(lab, alice, memory_id, "Harlow Mills")
    turn = [
        {"type": "text", "text": "Who signs for Harlow Mills?", "role": "user"},
        {"type": "text", "text": "Ines Varga does.", "role": "assistant"},
    ]
    [record] = observe(lab, alice, memory_id, {"content": turn})
    assert about(record) == {ines, harlow}


def test_an_entity_the_observer_cannot_read_is_not_linked(lab: Lab, alice: Member, bob: Member) -> None:
    word = tag().capitalize()
    root = lab.memory(bob)
    child = lab.memory(bob, parent_id=root)
    sibling = lab.memory(bob, parent_id=root)
    lab.grant(bob, child, alice, "read", "write")
    hidden = entity(lab, bob, root, f"Zephyrine {word}")
    aside = entity(lab, bob, sibling, f"Okafor {word}")
    seen = entity(lab, bob, child, f"Marlow {word}")
    [record] = observe(lab, alice, child, {"content": f"Zephyrine {word}, Okafor {word} and Marlow {word}."})
    assert about(record) == {seen}
    assert hidden not in about(record) and aside not in about(record)
    [by_owner] = observe(lab, bob, child, {"content": f"Zephyrine {word} and Okafor {word}."})
    assert about(by_owner) == {hidden}, "the owner reads the ancestor, not the sibling"


def test_a_forgotten_entity_is_not_linked(lab: Lab, alice: Member) -> None:
    memory_id = lab.memory(alice)
    gone = entity(lab, alice, memory_id, "Quillon Freight")
    kept = entity(lab, alice, memory_id, "Harlow Mills")
    assert ok(lab.delete(alice, memory_id, gone))["status"] == "forgotten"
    [record] = observe(lab, alice, memory_id, {"content": "Quillon Freight and Harlow Mills."})
    assert about(record) == {kept}


def test_a_revised_entity_is_linked_by_its_current_names(lab: Lab, alice: Member) -> None:
    memory_id = lab.memory(alice)
    record_id = entity(lab, alice, memory_id, "Quillon Freight")
    lab.revise(alice, memory_id, record_id, title="Quillon Logistics", attributes={"aliases": ["QL"]})
    old, new, alias = observe(
        lab,
        alice,
        memory_id,
        {"content": "Quillon Freight called."},
        {"content": "Quillon Logistics called."},
        {"content": "QL called."},
    )
    assert (about(old), about(new), about(alias)) == (set(), {record_id}, {record_id})


# -- who may observe, and what is refused ------------------------------------------------------------


def test_observe_needs_write(lab: Lab, alice: Member, bob: Member, admin: Admin) -> None:
    memory_id = lab.memory(alice)
    lab.grant(alice, memory_id, bob, "read")
    body = {"episodes": [{"content": "hello"}]}
    assert_error(observe_reply(lab, bob, memory_id, body), 403, "memory_forbidden")
    stranger = admin.member()
    assert_error(observe_reply(lab, stranger, memory_id, body), 404, "memory_not_found")
    assert lab.listed(alice, memory_id) == []
    lab.grant(alice, memory_id, bob, "read", "write")
    [record] = observe(lab, bob, memory_id, {"content": "hello"})
    assert record["written_by"]["on_behalf_of"] == bob.principal


def test_an_unknown_memory_is_404(lab: Lab, alice: Member) -> None:
    body = {"episodes": [{"content": "hello"}]}
    assert_error(observe_reply(lab, alice, "hmem_" + "0" * 32, body), 404, "memory_not_found")


@pytest.mark.parametrize(
    "body",
    [
        {},
        {"episodes": []},
        {"episodes": "hello"},
        {"episodes": {"content": "hello"}},
        {"episodes": [5]},
        {"episodes": [{}]},
        {"episodes": [{"content": ""}]},
        {"episodes": [{"content": " \n "}]},
        {"episodes": [{"content": [{"type": "text", "text": ""}, {"type": "text", "text": " "}]}]},
        {"episodes": [{"content": []}]},
        {"episodes": [{"content": None}]},
        {"episodes": [{"content": 42}]},
        {"episodes": [{"content": [{"type": "text", "text": "x", "role": "boss"}]}]},
        {"episodes": [{"content": "x", "attributes": ["a"]}]},
        {"episodes": [{"content": "fine"}, {"content": ""}]},
        {"episodes": [{"content": "x"}] * 501},
    ],
    ids=[
        "no episodes",
        "empty list",
        "a string",
        "an object",
        "a number",
        "no content",
        "empty text",
        "blank text",
        "blank parts",
        "no parts",
        "null content",
        "content a number",
        "unknown role",
        "attributes a list",
        "one bad among good",
        "too many",
    ],
)
def test_empty_or_invalid_episodes_are_422_and_nothing_is_kept(
    lab: Lab, alice: Member, body: dict[str, Any]
) -> None:
    memory_id = lab.memory(alice)
    assert_error(observe_reply(lab, alice, memory_id, body), 422, "memory_invalid")
    assert lab.listed(alice, memory_id, include="all") == []


def test_a_writer_without_read_observes_but_learns_nothing_of_the_entities(
    lab: Lab, alice: Member, bob: Member
) -> None:
    memory = lab.memory(alice)
    hidden = entity(lab, alice, memory, "Zephyrine Okafor")
    lab.grant(alice, memory, bob, "write")
    [record] = observe(lab, bob, memory, {"content": "Is Zephyrine Okafor known here?"})
    assert record["withheld"] is True, "bob may not read what the memory holds"
    assert hidden not in json.dumps(record), "a link would tell a writer what it may not read"
    kept = lab.get(alice, memory, record["id"])
    assert about(kept) == set() and kept["written_by"]["on_behalf_of"] == bob.principal
