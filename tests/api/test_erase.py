"""Erase over HTTP: content removed for good, from every read path, from derived records, files and Neo4j."""

from __future__ import annotations

import hashlib
import secrets
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest
from fastapi.testclient import TestClient

from provider.config import Settings
from tests.api.lifecycle_support import erase, erase_reply, nodes_containing
from tests.api.records_support import Lab, Reply, assert_error, ok, tag, validate
from tests.conftest import Admin, Member
from tests.neo4j_target import Neo4jTarget
from tests.time_bound import next_millisecond


@pytest.fixture
def lab(client: TestClient) -> Iterator[Lab]:
    tracker = Lab(client)
    yield tracker
    tracker.cleanup()


@dataclass
class Scene:
    """Alice's memory (bob reads it) with a revised record to erase and what refers to it."""

    memory: str
    marker: str
    target: dict[str, Any]
    before: str  # an instant when the target was current
    snapshot: str  # a snapshot taken before the erase
    only_derived: dict[str, Any]  # derived_from the target alone
    also_derived: dict[str, Any]  # derived_from the target and a live source
    source: dict[str, Any]  # that live source


def build_scene(lab: Lab, alice: Member, bob: Member) -> Scene:
    memory = lab.memory(alice)
    lab.grant(alice, memory, bob, "read")
    marker = f"erasable{tag()}"
    target = lab.remember(
        alice,
        memory,
        type="fact",
        title=f"Title {marker}",
        content=f"Ines Varga told us {marker} in confidence.",
        attributes={"secret": marker, "account": "harlow"},
    )
    lab.revise(alice, memory, target["id"], content=f"Ines Varga told us {marker} twice.")
    current = lab.get(alice, memory, target["id"])
    source = lab.remember(alice, memory, content="Harlow Mills pays net sixty.")
    only = lab.remember(
        alice,
        memory,
        type="note",
        content="A summary of a confidence.",
        references=[{"rel": "derived_from", "record_id": target["id"]}],
    )
    also = lab.remember(
        alice,
        memory,
        type="note",
        content="A summary of two statements.",
        references=[
            {"rel": "derived_from", "record_id": target["id"]},
            {"rel": "derived_from", "record_id": source["id"]},
        ],
    )
    shot = ok(
        lab.client.post(f"/v1/memories/{memory}/snapshots", json={"name": tag()}, headers=alice.headers)
    )
    next_millisecond()  # a write after this is not in the snapshot's millisecond
    return Scene(
        memory=memory,
        marker=marker,
        target=target,
        before=current["time"]["written_at"],
        snapshot=str(shot["id"]),
        only_derived=only,
        also_derived=also,
        source=source,
    )


def recalled(lab: Lab, who: Member, memory_id: str, **body: Any) -> list[str]:
    answer = ok(lab.client.post(f"/v1/memories/{memory_id}/recall", json=body, headers=who.headers))
    validate("MemoryRecall", answer)
    return [r["record"]["id"] for r in answer["results"]]


def graphed(lab: Lab, who: Member, memory_id: str, **body: Any) -> Reply:
    return lab.client.post(f"/v1/memories/{memory_id}/graph", json=body, headers=who.headers)


def record_gone(reply: Reply) -> None:
    assert_error(reply, 404, "memory_record_not_found")


# -- the conformance flow ----------------------------------------------------------------------------


def test_me07_forget_then_erase(lab: Lab, alice: Member) -> None:
    memory = lab.memory(alice)
    rid = lab.remember(alice, memory, type="fact", content="Harlow Mills pays net sixty.")["id"]
    assert ok(lab.delete(alice, memory, rid))["status"] == "forgotten"
    assert lab.get(alice, memory, rid)["status"] == "forgotten"
    assert rid not in lab.listed(alice, memory)
    answer = erase(lab, alice, memory, rid)
    assert answer["erased"] == [rid]
    assert all(isinstance(item, str) and item for item in answer["unreachable"])
    record_gone(lab.read(alice, memory, rid))


# -- nothing of it stays readable --------------------------------------------------------------------


def test_an_erased_record_is_unreadable_by_anyone_on_every_path(lab: Lab, alice: Member, bob: Member) -> None:
    s = build_scene(lab, alice, bob)
    rid = s.target["id"]
    assert rid in recalled(lab, bob, s.memory, text=s.marker)
    answer = erase(lab, alice, s.memory, rid)
    assert answer["erased"] == [rid, s.only_derived["id"]]
    for who in (alice, bob):
        for gone in (rid, s.only_derived["id"]):
            record_gone(lab.read(who, s.memory, gone))
            record_gone(lab.client.get(f"{lab.path(s.memory, gone)}/history", headers=who.headers))
            record_gone(lab.read(who, s.memory, gone, as_of=s.before))
            record_gone(lab.read(who, s.memory, gone, as_of=s.snapshot))
            assert gone not in lab.listed(who, s.memory)
            assert gone not in lab.listed(who, s.memory, include="all")
            assert gone not in lab.listed(who, s.memory, as_of=s.before, include="all")
            assert gone not in lab.listed(who, s.memory, as_of=s.snapshot)
            assert gone not in recalled(lab, who, s.memory, text=s.marker, include="all")
            assert gone not in recalled(lab, who, s.memory, query=f"Ines Varga told us {s.marker}")
            assert gone not in recalled(lab, who, s.memory, text=s.marker, as_of=s.before)
            assert gone not in recalled(
                lab, who, s.memory, filters={"field": "attributes.secret", "op": "eq", "value": s.marker}
            )
            whole = ok(graphed(lab, who, s.memory))
            assert gone not in {n["record"]["id"] for n in whole["nodes"]}
            record_gone(graphed(lab, who, s.memory, around=gone))
        assert s.marker not in lab.client.get(f"/v1/memories/{s.memory}/records", headers=who.headers).text


def test_what_was_derived_only_from_it_goes_and_what_has_another_source_stays(
    lab: Lab, alice: Member, bob: Member
) -> None:
    s = build_scene(lab, alice, bob)
    chained = lab.remember(
        alice,
        s.memory,
        type="note",
        content="Derived from a derived note.",
        references=[{"rel": "derived_from", "record_id": s.only_derived["id"]}],
    )
    cited = lab.remember(
        alice, s.memory, content="Cites it.", references=[{"rel": "about", "record_id": s.target["id"]}]
    )
    answer = erase(lab, alice, s.memory, s.target["id"])
    assert answer["erased"][0] == s.target["id"]
    assert sorted(answer["erased"]) == sorted([s.target["id"], s.only_derived["id"], chained["id"]])
    for gone in (s.only_derived["id"], chained["id"]):
        record_gone(lab.read(bob, s.memory, gone))
    for kept in (s.also_derived, s.source, cited):
        read = lab.get(bob, s.memory, kept["id"])
        assert read["content"] == kept["content"] and read["status"] == "active"


def test_a_derived_record_the_caller_cannot_read_is_erased_but_not_named(
    lab: Lab, alice: Member, bob: Member
) -> None:
    s = build_scene(lab, alice, bob)
    elsewhere = lab.memory(bob)
    copied = lab.remember(
        bob,
        elsewhere,
        type="note",
        content="Bob's copy of a confidence.",
        references=[{"rel": "derived_from", "record_id": s.target["id"]}],
    )
    answer = erase(lab, alice, s.memory, s.target["id"])
    assert copied["id"] not in answer["erased"], "alice cannot read bob's memory: it is not named to her"
    assert sorted(answer["erased"]) == sorted([s.target["id"], s.only_derived["id"]])
    record_gone(lab.read(bob, elsewhere, copied["id"]))


def test_no_node_in_neo4j_keeps_the_erased_text(
    lab: Lab, alice: Member, bob: Member, neo4j_target: Neo4jTarget
) -> None:
    s = build_scene(lab, alice, bob)
    lab.remember(alice, s.memory, type="entity", title="Ines Varga", content="Ines Varga")
    assert nodes_containing(neo4j_target, s.marker), "the marker is stored before the erase"
    erase(lab, alice, s.memory, s.target["id"])
    assert nodes_containing(neo4j_target, s.marker) == []


def test_a_replayed_remember_does_not_bring_the_content_back(
    lab: Lab, alice: Member, neo4j_target: Neo4jTarget
) -> None:
    memory = lab.memory(alice)
    marker = f"replayed{tag()}"
    body = {"type": "fact", "content": f"The door code is {marker}."}
    headers = {**alice.headers, "Idempotency-Key": f"erase-{tag()}"}
    path = f"/v1/memories/{memory}/records"
    first = ok(lab.client.post(path, json=body, headers=headers))
    again = lab.client.post(path, json=body, headers=headers)
    assert again.headers.get("Idempotent-Replayed") == "true" and again.json()["id"] == first["id"]
    erase(lab, alice, memory, first["id"])
    replay = lab.client.post(path, json=body, headers=headers)
    assert marker not in replay.text, replay.text
    assert lab.listed(alice, memory, include="all") == [], "the replay must not write the record again"
    assert nodes_containing(neo4j_target, marker) == []


# -- files -------------------------------------------------------------------------------------------


def upload(lab: Lab, who: Member, data: bytes) -> str:
    body = ok(
        lab.client.post(
            "/v1/files",
            data={"purpose": "user_data"},
            files={"file": ("note.txt", data, "text/plain")},
            headers=who.headers,
        )
    )
    return str(body["id"])


def with_file(lab: Lab, who: Member, memory_id: str, file_id: str) -> dict[str, Any]:
    content = [{"type": "text", "text": "See the file."}, {"type": "file", "file": {"id": file_id}}]
    return lab.remember(who, memory_id, type="note", content=content)


def on_disk(settings: Settings, data: bytes) -> list[str]:
    digest = hashlib.sha256(data).hexdigest()
    return [str(p) for p in settings.file.dir.rglob(digest)]


def content_of(lab: Lab, who: Member, record: dict[str, Any]) -> Reply:
    return lab.client.get(f"{lab.path(record['memory_id'], record['id'])}/content/1", headers=who.headers)


def test_a_file_only_the_erased_record_named_is_removed_from_disk(
    lab: Lab, alice: Member, settings: Settings
) -> None:
    memory = lab.memory(alice)
    data = b"private notes " + secrets.token_bytes(16)
    record = with_file(lab, alice, memory, upload(lab, alice, data))
    assert content_of(lab, alice, record).content == data
    assert on_disk(settings, data)
    erase(lab, alice, memory, record["id"])
    assert content_of(lab, alice, record).status_code == 404
    assert on_disk(settings, data) == []


def test_a_file_another_record_names_stays(lab: Lab, alice: Member, settings: Settings) -> None:
    memory = lab.memory(alice)
    data = b"shared notes " + secrets.token_bytes(16)
    file_id = upload(lab, alice, data)
    erased, kept = with_file(lab, alice, memory, file_id), with_file(lab, alice, memory, file_id)
    erase(lab, alice, memory, erased["id"])
    answer = content_of(lab, alice, kept)
    assert answer.status_code == 200 and answer.content == data
    assert on_disk(settings, data)


def test_the_same_bytes_uploaded_twice_survive_erasing_one_of_them(
    lab: Lab, alice: Member, bob: Member, settings: Settings
) -> None:
    memory = lab.memory(alice)
    lab.grant(alice, memory, bob, "read", "write")
    data = b"a common attachment " + secrets.token_bytes(16)
    erased = with_file(lab, alice, memory, upload(lab, alice, data))
    kept = with_file(lab, bob, memory, upload(lab, bob, data))
    erase(lab, alice, memory, erased["id"])
    answer = content_of(lab, alice, kept)
    assert answer.status_code == 200 and answer.content == data, answer.text
    assert on_disk(settings, data)


# -- who may erase, and what is refused --------------------------------------------------------------


def test_erase_needs_delete(lab: Lab, alice: Member, bob: Member, admin: Admin) -> None:
    memory = lab.memory(alice)
    rid = lab.remember(alice, memory, content="Harlow Mills pays net sixty.")["id"]
    lab.grant(alice, memory, bob, "read", "write", "create")
    assert_error(erase_reply(lab, bob, memory, {"record_ids": [rid]}), 403, "memory_forbidden")
    assert_error(erase_reply(lab, admin.member(), memory, {"record_ids": [rid]}), 404, "memory_not_found")
    assert lab.get(alice, memory, rid)["status"] == "active"
    lab.grant(alice, memory, bob, "read", "delete")
    assert erase(lab, bob, memory, rid)["erased"] == [rid]


def test_an_id_not_in_the_memory_is_404_and_nothing_is_erased(lab: Lab, alice: Member) -> None:
    memory = lab.memory(alice)
    other = lab.memory(alice)
    rid = lab.remember(alice, memory, content="stays")["id"]
    elsewhere = lab.remember(alice, other, content="stays too")["id"]
    for ids in (["hrec_" + "0" * 32], [rid, "hrec_" + "1" * 32], [elsewhere], [rid, elsewhere]):
        record_gone(erase_reply(lab, alice, memory, {"record_ids": ids}))
    assert lab.get(alice, memory, rid)["status"] == "active"
    assert lab.get(alice, other, elsewhere)["status"] == "active"


def test_repeating_an_id_erases_it_once(lab: Lab, alice: Member) -> None:
    memory = lab.memory(alice)
    rid = lab.remember(alice, memory, content="twice named")["id"]
    assert erase(lab, alice, memory, rid, rid)["erased"] == [rid]


@pytest.mark.parametrize(
    "body",
    [{}, {"record_ids": []}, {"record_ids": "hrec_x"}, {"record_ids": [5]}, {"record_ids": None}, []],
    ids=["nothing", "empty", "a string", "a number", "null", "not an object"],
)
def test_a_bad_erase_body_is_422(lab: Lab, alice: Member, body: Any) -> None:
    memory = lab.memory(alice)
    assert_error(erase_reply(lab, alice, memory, body), 422, "memory_invalid")


def test_an_unknown_memory_is_404(lab: Lab, alice: Member) -> None:
    body = {"record_ids": ["hrec_" + "0" * 32]}
    assert_error(erase_reply(lab, alice, "hmem_" + "0" * 32, body), 404, "memory_not_found")


def test_a_record_whose_source_survives_stays_and_a_chain_goes_whole(lab: Lab, alice: Member) -> None:
    """Issue 48's two cases over HTTP: L, drawn from a summary M that keeps an independent source,
    survives the erase of T; a chain of eight derived records below an erased one goes at every depth."""
    memory = lab.memory(alice)

    def note(text: str, *sources: str) -> str:
        references = [{"rel": "derived_from", "record_id": s} for s in sources]
        return str(lab.remember(alice, memory, type="note", content=text, references=references)["id"])

    statement, observation = note("Ines said the renewal is in March."), note("The invoice says March.")
    summary = note("Both say March.", statement, observation)
    drawn = note("Renewal: March.", summary)
    chain = [note("The first link.")]
    for step in range(8):
        chain.append(note(f"Link {step}.", chain[-1]))
    assert erase(lab, alice, memory, statement)["erased"] == [statement]
    for kept in (observation, summary, drawn):
        assert lab.get(alice, memory, kept)["status"] == "active"
    answer = erase(lab, alice, memory, chain[0])
    assert answer["erased"][0] == chain[0] and sorted(answer["erased"]) == sorted(chain)
    for gone in chain:
        record_gone(lab.read(alice, memory, gone))
