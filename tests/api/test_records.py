"""Records over HTTP: remember as stated, types, content parts, privileges, id isolation, follows, lists."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient

from tests.api.records_support import RECORD_ID, Lab, assert_error, ok, tag, texts
from tests.conftest import Admin, Member

CORE_TYPES = ["episode", "fact", "note", "procedure", "link", "entity"]


@pytest.fixture
def lab(client: TestClient) -> Iterator[Lab]:
    tracker = Lab(client)
    yield tracker
    tracker.cleanup()


# -- remember: kept as stated, stamped by the server ------------------------------------------------


def test_remember_answers_the_whole_record_as_stated(lab: Lab, alice: Member) -> None:
    memory_id = lab.memory(alice)
    words = f"Quillon Freight renews its contract every March {tag()}."
    record = lab.remember(
        alice,
        memory_id,
        type="fact",
        content=words,
        attributes={"account": "quillon", "tier": {"level": 2}},
        time={"valid_from": "2026-03-01T00:00:00Z", "valid_to": "2027-03-01T00:00:00Z"},
    )
    assert RECORD_ID.match(record["id"]), record["id"]
    assert record["object"] == "memory.record" and record["memory_id"] == memory_id
    assert record["type"] == "fact"
    assert record["content"] == [{"type": "text", "text": words}]
    assert record["attributes"] == {"account": "quillon", "tier": {"level": 2}}
    assert (record["version"], record["supersedes"], record["status"]) == (1, None, "active")
    assert record["trust"] == "untrusted"
    assert record["time"]["valid_from"] == "2026-03-01T00:00:00Z"
    assert record["time"]["valid_to"] == "2027-03-01T00:00:00Z"
    assert record["time"]["written_at"] and record["time"]["invalidated_at"] is None
    assert record["references"] == [] and "title" not in record
    again = lab.get(alice, memory_id, record["id"])
    assert again == record


def test_the_writer_is_stamped_from_the_caller_whatever_the_client_says(
    lab: Lab, admin: Admin, alice: Member
) -> None:
    agent = admin.member("agent")
    memory_id = lab.memory(alice)
    lab.grant(alice, memory_id, agent, "read", "write")
    forged = {"kind": "member", "id": "someone-else", "type": "human"}
    mine = lab.remember(alice, memory_id, written_by=forged)
    theirs = lab.remember(agent, memory_id, written_by={"kind": "provider", "id": "x"})
    assert mine["written_by"] == {"kind": "member", "id": alice.id, "type": "human"}
    assert theirs["written_by"] == {"kind": "member", "id": agent.id, "type": "agent"}


def test_every_read_says_untrusted(lab: Lab, alice: Member) -> None:
    memory_id = lab.memory(alice)
    record = lab.remember(alice, memory_id, trust="trusted")
    lab.revise(alice, memory_id, record["id"], content="changed", trust="trusted")
    reads = [
        lab.get(alice, memory_id, record["id"]),
        *lab.page(alice, memory_id)["data"],
        *lab.history(alice, memory_id, record["id"]),
    ]
    assert len(reads) == 4
    assert all(r["trust"] == "untrusted" for r in reads)


def test_a_title_reads_back_apart_from_the_content(lab: Lab, alice: Member) -> None:
    memory_id = lab.memory(alice)
    titled = lab.remember(alice, memory_id, title="Renewal terms", content="Every March.")
    assert titled["title"] == "Renewal terms"
    assert titled["content"] == [{"type": "text", "text": "Every March."}]
    bare = lab.remember(alice, memory_id, title="Only a name", content=[])
    assert (bare["title"], bare["content"]) == ("Only a name", [])
    omitted = ok(lab.post(alice, memory_id, {"title": "No content at all"}))
    assert (omitted["title"], omitted["content"]) == ("No content at all", [])
    longest = lab.remember(alice, memory_id, title="t" * 300)
    assert lab.get(alice, memory_id, longest["id"])["title"] == "t" * 300


@pytest.mark.parametrize(
    "body",
    [
        {"title": "t" * 301, "content": "x"},
        {},
        {"content": []},
        {"content": None},
        {"title": "", "content": []},
        {"title": 7, "content": "x"},
        {"content": 42},
        {"content": "x", "time": {"valid_from": "next March"}},
        {"content": "x", "time": {"valid_to": 20260301}},
        {"content": "x", "time": "2026-03-01"},
        {"content": "x", "attributes": ["a"]},
        {"content": "x", "type": "Not A Type"},
    ],
    ids=[
        "title too long",
        "nothing",
        "empty content no title",
        "null content",
        "empty title",
        "title a number",
        "content a number",
        "valid_from not an instant",
        "valid_to a number",
        "time not an object",
        "attributes a list",
        "type not a name",
    ],
)
def test_a_bad_record_is_422_memory_invalid(lab: Lab, alice: Member, body: dict[str, Any]) -> None:
    memory_id = lab.memory(alice)
    assert_error(lab.post(alice, memory_id, body), 422, "memory_invalid")
    assert lab.listed(alice, memory_id) == []


# -- types -------------------------------------------------------------------------------------------


def test_the_core_types_and_extension_types_are_carried(lab: Lab, alice: Member) -> None:
    memory_id = lab.memory(alice)
    for kind in [*CORE_TYPES, "x.invoice", "invoice"]:
        record = lab.remember(alice, memory_id, type=kind)
        assert record["type"] == kind
        assert lab.get(alice, memory_id, record["id"])["type"] == kind
    assert lab.remember(alice, memory_id)["type"] == "fact", "fact when no type is stated"


def test_an_episode_is_not_revised(lab: Lab, alice: Member) -> None:
    memory_id = lab.memory(alice)
    episode = lab.remember(alice, memory_id, type="episode", content="user: hello")
    assert_error(lab.patch(alice, memory_id, episode["id"], {"content": "edited"}), 422, "memory_invalid")
    assert lab.get(alice, memory_id, episode["id"])["version"] == 1


# -- content parts -----------------------------------------------------------------------------------


def test_parts_keep_their_order_role_source_and_extensions(lab: Lab, alice: Member) -> None:
    memory_id = lab.memory(alice)
    parts = [
        {"type": "text", "text": "First line."},
        {"type": "text", "text": "What did they ask?", "role": "user"},
        {"type": "x.citation", "url": "https://example.org/a", "meta": {"page": 3, "tags": ["a"]}},
        {"type": "text", "text": "A summary.", "role": "assistant", "text_source": "derived"},
        {"type": "text", "text": "Last line.", "text_source": "stated"},
    ]
    record = lab.remember(alice, memory_id, type="note", content=parts)
    assert record["content"] == parts
    assert lab.get(alice, memory_id, record["id"])["content"] == parts
    assert texts(record) == ["First line.", "What did they ask?", "A summary.", "Last line."]


@pytest.mark.parametrize(
    "bad",
    [
        [{"type": "image", "url": "x"}],
        [{"type": "text"}],
        [{"type": "text", "text": 5}],
        [{"type": "file", "file": {}}],
        [{"type": "file"}],
        [{"type": "text", "text": "x", "role": "narrator"}],
        [{"type": "text", "text": "x", "text_source": "guessed"}],
        [{"text": "no type"}],
        ["a bare string"],
        [{"type": "text", "text": "fine"}, {"type": "video"}],
    ],
    ids=[
        "unknown part",
        "text without text",
        "text not a string",
        "file without id",
        "file without file",
        "role narrator",
        "text_source guessed",
        "part without type",
        "part not an object",
        "second part bad",
    ],
)
def test_a_bad_part_is_422_memory_invalid(lab: Lab, alice: Member, bad: list[Any]) -> None:
    memory_id = lab.memory(alice)
    assert_error(lab.post(alice, memory_id, {"content": bad}), 422, "memory_invalid")
    assert lab.listed(alice, memory_id) == []


# -- privileges --------------------------------------------------------------------------------------


def test_writes_need_write_and_reads_need_read(lab: Lab, alice: Member, bob: Member) -> None:
    memory_id = lab.memory(alice)
    record = lab.remember(alice, memory_id)
    lab.grant(alice, memory_id, bob, "read")
    assert lab.get(bob, memory_id, record["id"])["id"] == record["id"]
    assert lab.listed(bob, memory_id) == [record["id"]]
    assert len(lab.history(bob, memory_id, record["id"])) == 1
    refused = [
        lab.post(bob, memory_id, {"content": "mine"}),
        lab.patch(bob, memory_id, record["id"], {"content": "changed"}),
        lab.delete(bob, memory_id, record["id"]),
    ]
    for response in refused:
        assert_error(response, 403, "memory_forbidden")
    after = lab.get(alice, memory_id, record["id"])
    assert (after["version"], after["status"]) == (1, "active")
    assert lab.listed(alice, memory_id) == [record["id"]]


def test_a_memory_held_on_nothing_is_not_found(lab: Lab, alice: Member, bob: Member) -> None:
    memory_id = lab.memory(alice)
    record = lab.remember(alice, memory_id)
    path = lab.path(memory_id, record["id"])
    unseen = [
        lab.read(bob, memory_id, record["id"]),
        lab.client.get(f"/v1/memories/{memory_id}/records", headers=bob.headers),
        lab.client.get(f"{path}/history", headers=bob.headers),
        lab.post(bob, memory_id, {"content": "mine"}),
        lab.patch(bob, memory_id, record["id"], {"content": "changed"}),
        lab.delete(bob, memory_id, record["id"]),
    ]
    for response in unseen:
        assert_error(response, 404, "memory_not_found")
    assert lab.get(alice, memory_id, record["id"])["version"] == 1


def test_a_bad_shape_answers_alike_in_every_memory(lab: Lab, alice: Member, bob: Member) -> None:
    """A body's shape is judged before the memory is looked at, so the answer tells nothing about it."""
    hidden = lab.memory(alice)
    readable = lab.memory(alice)
    lab.grant(alice, readable, bob, "read")
    bad_bodies: list[dict[str, Any]] = [{"content": [{"type": "text"}]}, {"content": "x", "type": 7}]
    for body in bad_bodies:
        answers = [
            lab.post(bob, hidden, body),
            lab.post(bob, readable, body),
            lab.post(alice, readable, body),
        ]
        for answer in answers:
            assert_error(answer, 422, "memory_invalid")
        assert len({(a.json()["error"]["message"], a.json()["error"]["param"]) for a in answers}) == 1
        assert_error(lab.post(bob, "hmem_" + "0" * 32, body), 422, "memory_invalid")
    assert lab.listed(alice, hidden) == [] and lab.listed(alice, readable) == []


def test_the_access_refusal_outranks_what_the_store_would_refuse(
    lab: Lab, alice: Member, bob: Member
) -> None:
    """Checks that need the store (a file id) run beside the access check; its refusal comes first."""
    hidden = lab.memory(alice)
    readable = lab.memory(alice)
    lab.grant(alice, readable, bob, "read")
    body = {"content": [{"type": "file", "file": {"id": "file_" + "0" * 32}}]}
    assert_error(lab.post(bob, hidden, body), 404, "memory_not_found")
    assert_error(lab.post(bob, readable, body), 403, "memory_forbidden")
    assert lab.post(alice, readable, body).status_code in (404, 422)
    assert lab.listed(alice, hidden) == [] and lab.listed(alice, readable) == []


def test_write_alone_lets_a_member_remember_revise_and_forget(lab: Lab, alice: Member, bob: Member) -> None:
    memory_id = lab.memory(alice)
    lab.grant(alice, memory_id, bob, "write")
    mine = ok(lab.post(bob, memory_id, {"content": "bob's note"}))
    assert mine["withheld"] is True and "content" not in mine, "bob may not read what the memory holds"
    revised = ok(lab.patch(bob, memory_id, mine["id"], {"content": "bob's note, revised"}))
    assert revised["version"] == 2 and revised["withheld"] is True
    assert ok(lab.delete(bob, memory_id, mine["id"]))["status"] == "forgotten"
    assert_error(lab.read(bob, memory_id, mine["id"]), 403, "memory_forbidden")
    assert lab.history(alice, memory_id, mine["id"])[0]["written_by"]["id"] == bob.id


# -- a record id does not reach across memories -------------------------------------------------------


def test_a_record_is_not_reached_through_another_memory(lab: Lab, alice: Member) -> None:
    parent = lab.memory(alice)
    child = lab.memory(alice, parent_id=parent)
    other = lab.memory(alice)
    record = lab.remember(alice, child, content="Quillon Freight renews every March.")
    for through in (parent, other):
        missing = [
            lab.read(alice, through, record["id"]),
            lab.patch(alice, through, record["id"], {"content": "x"}),
            lab.delete(alice, through, record["id"]),
            lab.client.get(f"{lab.path(through, record['id'])}/history", headers=alice.headers),
            lab.client.get(f"{lab.path(through, record['id'])}/content/0", headers=alice.headers),
        ]
        for response in missing:
            assert_error(response, 404, "memory_record_not_found")
    after = lab.get(alice, child, record["id"])
    assert (after["version"], after["status"], after["content"]) == (1, "active", record["content"])
    assert len(lab.history(alice, child, record["id"])) == 1


def test_an_unknown_record_is_memory_record_not_found(lab: Lab, alice: Member) -> None:
    memory_id = lab.memory(alice)
    ghost = "hrec_" + "0" * 32
    for response in (
        lab.read(alice, memory_id, ghost),
        lab.patch(alice, memory_id, ghost, {"content": "x"}),
        lab.delete(alice, memory_id, ghost),
    ):
        assert_error(response, 404, "memory_record_not_found")


# -- follows: records the server keeps in step with a source -------------------------------------------


def test_a_server_key_may_mark_a_record_as_following_a_source(lab: Lab, admin: Admin) -> None:
    server = admin.member("agent", server=True)
    memory_id = lab.memory(server)
    source = {"kind": "skill", "id": f"skl_{tag()}", "name": "refund-policy"}
    record = lab.remember(
        server, memory_id, type="procedure", content="Refund within 30 days.", follows=source
    )
    assert record["follows"] == source
    assert lab.get(server, memory_id, record["id"])["follows"] == source
    for response in (
        lab.patch(server, memory_id, record["id"], {"content": "Refund within 60 days."}),
        lab.delete(server, memory_id, record["id"]),
    ):
        error = assert_error(response, 422, "memory_unsupported")
        assert "refund-policy" in error["message"] and "skill" in error["message"], error
    after = lab.get(server, memory_id, record["id"])
    assert (after["version"], after["status"]) == (1, "active")


def test_a_member_key_may_not_send_follows(lab: Lab, alice: Member) -> None:
    memory_id = lab.memory(alice)
    body = {"content": "x", "follows": {"kind": "skill", "id": "skl_1", "name": "n"}}
    assert_error(lab.post(alice, memory_id, body), 422, "memory_invalid")
    assert lab.listed(alice, memory_id) == []


@pytest.mark.parametrize("follows", [{"kind": "skill"}, {"id": "x"}, "skill:x", {"kind": 1, "id": "x"}])
def test_a_malformed_follows_is_refused(lab: Lab, admin: Admin, follows: Any) -> None:
    server = admin.member("agent", server=True)
    memory_id = lab.memory(server)
    assert_error(lab.post(server, memory_id, {"content": "x", "follows": follows}), 422, "memory_invalid")


# -- the record list ---------------------------------------------------------------------------------


def test_the_list_pages_in_writing_order(lab: Lab, alice: Member) -> None:
    memory_id = lab.memory(alice)
    written = [lab.remember(alice, memory_id, content=f"record {i}")["id"] for i in range(5)]
    seen: list[str] = []
    sizes: list[int] = []
    cursor: str | None = None
    for _ in range(10):
        params: dict[str, str | int] = {"limit": 2, **({"cursor": cursor} if cursor else {})}
        page = lab.page(alice, memory_id, **params)
        sizes.append(len(page["data"]))
        seen += [r["id"] for r in page["data"]]
        cursor = page["next"]
        if cursor is None:
            break
    assert sizes == [2, 2, 1]
    assert seen == written
    assert lab.page(alice, memory_id, limit=5)["next"] is None


@pytest.mark.parametrize("params", [{"limit": 0}, {"limit": 101}, {"cursor": "not-ours"}, {"include": "x"}])
def test_bad_list_parameters_are_422(lab: Lab, alice: Member, params: dict[str, str | int]) -> None:
    memory_id = lab.memory(alice)
    response = lab.client.get(f"/v1/memories/{memory_id}/records", params=params, headers=alice.headers)
    assert response.status_code == 422, response.text


def test_the_list_filters_by_type(lab: Lab, alice: Member) -> None:
    memory_id = lab.memory(alice)
    notes = [lab.remember(alice, memory_id, type="note")["id"] for _ in range(2)]
    facts = [lab.remember(alice, memory_id, type="fact")["id"] for _ in range(3)]
    invoice = lab.remember(alice, memory_id, type="x.invoice")["id"]
    assert lab.listed(alice, memory_id, type="note") == notes
    assert lab.listed(alice, memory_id, type="fact") == facts
    assert lab.listed(alice, memory_id, type="x.invoice") == [invoice]
    assert lab.listed(alice, memory_id, type="procedure") == []
    assert lab.listed(alice, memory_id) == [*notes, *facts, invoice]


def test_the_list_holds_only_this_memorys_records(lab: Lab, alice: Member) -> None:
    parent = lab.memory(alice)
    child = lab.memory(alice, parent_id=parent)
    above = lab.remember(alice, parent)["id"]
    below = lab.remember(alice, child)["id"]
    assert lab.listed(alice, parent) == [above]
    assert lab.listed(alice, child) == [below]
