"""Privileges hold on every answer, over HTTP on the real Neo4j.

A writer who may not read writes (the chapter lets `write` revise, forget and operate) and is answered
with the record named and nothing it says (`withheld`); a reader who lacks the privilege a route or an
operation needs is refused with 403 `memory_forbidden`, alike for a record that is not there; and a
record the caller may not read answers exactly as one that does not exist (404).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient

from tests.api.lifecycle_support import observe
from tests.api.records_support import Lab, Reply, assert_error, ok, tag, validate
from tests.conftest import Admin, Member

NOWHERE_RECORD = "hrec_" + "0" * 32
NOWHERE_MEMORY = "hmem_" + "0" * 32
WHAT_A_RECORD_SAYS = ("content", "title", "attributes", "references", "written_by", "follows")


@pytest.fixture
def lab(client: TestClient) -> Iterator[Lab]:
    tracker = Lab(client)
    yield tracker
    tracker.cleanup()


def withheld(record: dict[str, Any], secret: str) -> None:
    """A record answered to a writer without read: still a `MemoryRecord`, naming it, saying nothing."""
    validate("MemoryRecord", record)
    assert record["withheld"] is True and record["trust"] == "untrusted"
    assert not set(WHAT_A_RECORD_SAYS) & set(record), record
    assert secret not in str(record)


def shape(reply: Reply) -> tuple[int, dict[str, Any]]:
    """Status and error without the request id: what two refusals must share to look alike."""
    error = dict(reply.json()["error"])
    error.pop("request_id", None)
    return reply.status_code, error


def person(lab: Lab, who: Member, memory_id: str, name: str) -> dict[str, Any]:
    body = {"type": "x.person", "title": name, "attributes": {"name": name}, "content": f"{name} {tag()}"}
    return lab.remember(who, memory_id, **body)


def operate_reply(lab: Lab, who: Member, memory_id: str, record_id: str, name: str, body: Any) -> Reply:
    return lab.client.post(
        f"{lab.path(memory_id, record_id)}/operations/{name}", json=body, headers=who.headers
    )


# -- a writer without read ---------------------------------------------------------------------------


def test_a_writer_without_read_revises_and_forgets_and_is_told_nothing_the_record_says(
    lab: Lab, alice: Member, admin: Admin
) -> None:
    memory = lab.memory(alice)
    secret = f"the vault code is {tag()}"
    record = lab.remember(alice, memory, title=secret, content=secret, attributes={"code": secret})
    writer = admin.member()
    lab.grant(alice, memory, writer, "write")
    assert_error(lab.read(writer, memory, record["id"]), 403, "memory_forbidden")

    revised = ok(lab.patch(writer, memory, record["id"], {"attributes": {"seen": "no"}}))
    withheld(revised, secret)
    assert (revised["id"], revised["version"], revised["status"]) == (record["id"], 2, "active")
    kept = lab.get(alice, memory, record["id"])
    assert kept["version"] == 2 and kept["title"] == secret and kept["attributes"] == {"seen": "no"}
    assert kept["written_by"]["id"] == writer.id, "the write happened, stamped with the writer"

    forgotten = ok(lab.delete(writer, memory, record["id"]))
    withheld(forgotten, secret)
    assert forgotten["status"] == "forgotten"
    assert lab.get(alice, memory, record["id"])["status"] == "forgotten"

    mine = ok(lab.post(writer, memory, {"content": "a note dropped in", "type": "fact"}))
    withheld(mine, "a note dropped in")
    episodes = observe(lab, writer, memory, {"content": f"{secret} was said"})
    withheld(episodes[0], secret)


def test_a_writer_without_read_merges_and_is_told_only_what_it_may_read(
    lab: Lab, alice: Member, admin: Admin
) -> None:
    shared = lab.memory(alice)
    ada = person(lab, alice, shared, "Ada Lovelace")
    writer = admin.member()
    lab.grant(alice, shared, writer, "write")
    own = lab.memory(writer)
    twin = person(lab, writer, own, "Ada Lovelace")
    answer = ok(operate_reply(lab, writer, shared, ada["id"], "merge", {"duplicate": twin["id"]}))
    validate("MemoryOperationResult", answer)
    result = answer["result"]
    withheld(result["record"], ada["content"][0]["text"])
    assert result["record"]["id"] == ada["id"] and result["record"]["version"] == 2
    validate("MemoryRecord", result["duplicate"])
    assert "content" in result["duplicate"] and "withheld" not in result["duplicate"], "it reads its own"
    assert result["consolidation_id"].startswith("hcon_")
    assert lab.get(alice, shared, ada["id"])["version"] == 2


def test_a_writer_without_read_starts_and_reverts_consolidation(
    lab: Lab, alice: Member, admin: Admin
) -> None:
    memory = lab.memory(alice)
    said = f"Grace Hopper renews in March {tag()}"
    ada = lab.remember(alice, memory, type="fact", content=said)
    twin = lab.remember(alice, memory, type="fact", content=said)
    writer = admin.member()
    lab.grant(alice, memory, writer, "write")
    path = f"/v1/memories/{memory}/consolidations"
    run = ok(lab.client.post(path, json={}, headers=writer.headers))
    validate("MemoryConsolidation", run)
    assert run["status"] in ("completed", "stopped") and run["changes"]["forgotten"] >= 1
    assert {lab.get(alice, memory, r["id"])["status"] for r in (ada, twin)} == {"active", "forgotten"}
    reverted = ok(lab.client.post(f"{path}/{run['id']}/revert", headers=writer.headers))
    validate("MemoryConsolidation", reverted)
    assert reverted["revert_of"] == run["id"]
    assert {lab.get(alice, memory, r["id"])["status"] for r in (ada, twin)} == {"active"}
    assert_error(lab.client.get(f"{path}/{run['id']}", headers=writer.headers), 403, "memory_forbidden")


# -- a reader without write --------------------------------------------------------------------------


def test_a_reader_without_write_is_forbidden_whether_or_not_the_record_exists(
    lab: Lab, alice: Member, admin: Admin
) -> None:
    memory = lab.memory(alice)
    ada = person(lab, alice, memory, "Ada Lovelace")
    twin = person(lab, alice, memory, "Ada Lovelace")
    reader = admin.member()
    lab.grant(alice, memory, reader, "read")
    assert lab.get(reader, memory, ada["id"])["id"] == ada["id"], "the record is visible to the reader"
    for record_id in (ada["id"], NOWHERE_RECORD):
        asked = [
            lab.patch(reader, memory, record_id, {"content": "changed"}),
            lab.delete(reader, memory, record_id),
            operate_reply(lab, reader, memory, record_id, "merge", {"duplicate": twin["id"]}),
        ]
        for reply in asked:
            assert assert_error(reply, 403, "memory_forbidden")["detail"] == {"required": "write"}
    assert [v["version"] for v in lab.history(alice, memory, ada["id"])] == [1]


def test_a_duplicate_the_merger_reads_but_may_not_write_is_forbidden(
    lab: Lab, alice: Member, bob: Member
) -> None:
    mine, theirs = lab.memory(alice), lab.memory(bob)
    ada = person(lab, alice, mine, "Ada Lovelace")
    twin = person(lab, bob, theirs, "Ada Lovelace")
    lab.grant(bob, theirs, alice, "read")
    refused = operate_reply(lab, alice, mine, ada["id"], "merge", {"duplicate": twin["id"]})
    assert assert_error(refused, 403, "memory_forbidden")["param"] == "duplicate"
    assert lab.get(bob, theirs, twin["id"])["version"] == 1


# -- unknown and unreadable look the same ------------------------------------------------------------


def test_an_unreadable_record_answers_as_an_unknown_one(lab: Lab, alice: Member, bob: Member) -> None:
    hidden, mine = lab.memory(alice), lab.memory(bob)
    record = person(lab, alice, hidden, "Ada Lovelace")
    own = person(lab, bob, mine, "Ada Lovelace")

    def attempts(memory_id: str, record_id: str) -> list[Reply]:
        return [
            lab.read(bob, memory_id, record_id),
            lab.patch(bob, memory_id, record_id, {"content": "x"}),
            lab.delete(bob, memory_id, record_id),
            operate_reply(lab, bob, memory_id, record_id, "merge", {"duplicate": own["id"]}),
            operate_reply(lab, bob, memory_id, record_id, "aliases", {}),
        ]

    # through the memory it is in, which bob cannot see: as through a memory that does not exist
    for seen, unknown in zip(
        attempts(hidden, record["id"]), attempts(NOWHERE_MEMORY, record["id"]), strict=True
    ):
        assert shape(seen) == shape(unknown) and seen.status_code == 404
        assert_error(seen, 404, "memory_not_found")
    # through bob's own memory: as a record id that does not exist
    for seen, unknown in zip(attempts(mine, record["id"]), attempts(mine, NOWHERE_RECORD), strict=True):
        assert shape(seen) == shape(unknown)
        assert_error(seen, 404, "memory_record_not_found")
    # as a merge's duplicate: as a duplicate that does not exist
    duplicates = [
        operate_reply(lab, bob, mine, own["id"], "merge", {"duplicate": duplicate})
        for duplicate in (record["id"], NOWHERE_RECORD)
    ]
    assert shape(duplicates[0]) == shape(duplicates[1])
    assert assert_error(duplicates[0], 404, "memory_record_not_found")["param"] == "duplicate"
    assert lab.get(alice, hidden, record["id"])["version"] == 1
