"""The types this provider adds, over HTTP on the real Neo4j: `x.person` and `x.company`, their schemas,
their operations (`aliases`, `merge`) and who may run them, a merge's revert, and linking by names."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient
from jsonschema import Draft202012Validator

from tests.api.lifecycle_support import observe, provider_document, refs
from tests.api.records_support import Lab, Reply, assert_error, ok, tag, validate
from tests.conftest import Admin, Member

PERSON, COMPANY = "x.person", "x.company"
NOWHERE_RECORD = "hrec_" + "0" * 32


@pytest.fixture
def lab(client: TestClient) -> Iterator[Lab]:
    tracker = Lab(client)
    yield tracker
    tracker.cleanup()


def person(lab: Lab, who: Member, memory_id: str, name: str, **attributes: Any) -> dict[str, Any]:
    extra = attributes.pop("references", [])
    body = {"type": PERSON, "title": name, "attributes": {"name": name, **attributes}, "references": extra}
    return lab.remember(who, memory_id, **body)


def company(lab: Lab, who: Member, memory_id: str, name: str, **attributes: Any) -> dict[str, Any]:
    return lab.remember(who, memory_id, type=COMPANY, title=name, attributes={"name": name, **attributes})


def operate_reply(lab: Lab, who: Member, memory_id: str, record_id: str, name: str, body: Any) -> Reply:
    path = f"{lab.path(memory_id, record_id)}/operations/{name}"
    return lab.client.post(path, json=body, headers=who.headers)


def operate(lab: Lab, who: Member, memory_id: str, record_id: str, name: str, **body: Any) -> dict[str, Any]:
    answer = ok(operate_reply(lab, who, memory_id, record_id, name, body))
    validate("MemoryOperationResult", answer)
    assert answer["name"] == name
    result: dict[str, Any] = answer["result"]
    for role in ("record", "duplicate"):
        if role in result:
            validate("MemoryRecord", result[role])
    return result


def shape(reply: Reply) -> tuple[int, dict[str, Any]]:
    error = dict(reply.json()["error"])
    error.pop("request_id", None)
    return reply.status_code, error


def versions(lab: Lab, who: Member, memory_id: str, record_id: str) -> list[int]:
    return [v["version"] for v in lab.history(who, memory_id, record_id)]


# -- the listing and the capability document ---------------------------------------------------------


def test_the_listing_has_the_core_types_and_people_and_companies(client: TestClient, alice: Member) -> None:
    body = ok(client.get("/v1/memories/types", headers=alice.headers))
    validate("MemoryTypeList", body)
    added = {t["type"]: t for t in body["data"] if not t["core"]}
    assert set(added) == {PERSON, COMPANY}
    for kind in added.values():
        assert kind["type"].startswith("x."), "the chapter keeps unprefixed names for itself"
        Draft202012Validator.check_schema(kind["schema"])
        assert kind["schema"]["required"] == ["name"] and kind["schema"]["additionalProperties"] is False
        assert len(kind["description"]) > 80 and kind["text"].strip()
        operations = {op["name"]: op for op in kind["operations"]}
        assert {n: op["requires"] for n, op in operations.items()} == {"merge": "write", "aliases": "read"}
        for op in operations.values():
            Draft202012Validator.check_schema(op["input"])
            assert op["input"]["additionalProperties"] is False and op["description"].strip()
        assert operations["merge"]["input"]["required"] == ["duplicate"]
    assert {"emails", "phones", "aliases", "handles"} <= set(added[PERSON]["schema"]["properties"])
    assert {"domains", "aliases"} <= set(added[COMPANY]["schema"]["properties"])
    assert added[PERSON]["references"][0]["rel"] == "works_for"


def test_the_capability_document_declares_types(client: TestClient, alice: Member) -> None:
    assert provider_document(client, alice)["types"] is True


# -- schemas, on remember and revise -----------------------------------------------------------------


def test_a_person_and_a_company_are_kept_as_stated_and_found_by_their_fields(lab: Lab, alice: Member) -> None:
    memory = lab.memory(alice)
    word = tag()
    acme = company(lab, alice, memory, f"Harlow {word}", domains=[f"h{word}.com"], aliases=["HM Group"])
    ada = person(
        lab,
        alice,
        memory,
        "Ada Lovelace",
        aliases=[f"Countess {word[::-1]}"],
        emails=[f"ada@h{word}.com"],
        phones=["+44 20 7946 0000"],
        handles=["github:ada"],
        role="Analyst",
        references=[{"rel": "works_for", "record_id": acme["id"]}],
    )
    assert ada["type"] == PERSON and ada["attributes"]["role"] == "Analyst"
    assert refs(ada) == {("works_for", acme["id"])}
    assert lab.get(alice, memory, ada["id"])["attributes"] == ada["attributes"]
    found = ok(lab.client.post(f"/v1/memories/{memory}/recall", json={"text": word[::-1]},
                               headers=alice.headers))  # fmt: skip
    assert [r["record"]["id"] for r in found["results"]] == [ada["id"]], (
        "the alias is in the words recall reads"
    )
    by_domain = ok(lab.client.post(f"/v1/memories/{memory}/recall", json={"text": f"h{word}.com"},
                                   headers=alice.headers))  # fmt: skip
    assert acme["id"] in {r["record"]["id"] for r in by_domain["results"]}
    filtered = ok(lab.client.post(
        f"/v1/memories/{memory}/recall",
        json={"filters": {"field": "attributes.role", "op": "eq", "value": "Analyst"}},
        headers=alice.headers,
    ))  # fmt: skip
    assert [r["record"]["id"] for r in filtered["results"]] == [ada["id"]]


BAD = [
    (PERSON, {}, "attributes.name"),
    (PERSON, {"name": "  "}, "attributes.name"),
    (PERSON, {"name": 7}, "attributes.name"),
    (PERSON, {"name": "Ada", "alias": ["A"]}, "attributes.alias"),
    (PERSON, {"name": "Ada", "aliases": "A"}, "attributes.aliases"),
    (PERSON, {"name": "Ada", "aliases": ["A", "A"]}, "attributes.aliases"),
    (PERSON, {"name": "Ada", "emails": ["ada.example.org"]}, "attributes.emails.0"),
    (PERSON, {"name": "Ada", "phones": ["+44 20", "call me"]}, "attributes.phones.1"),
    (PERSON, {"name": "Ada", "handles": ["ada"]}, "attributes.handles.0"),
    (PERSON, {"name": "Ada", "aliases": [f"a{i}" for i in range(65)]}, "attributes.aliases"),
    (PERSON, {"name": "Ada", "standing": "yes"}, "attributes.standing"),
    (COMPANY, {"name": "Acme", "domains": ["acme.com", "acme_com"]}, "attributes.domains.1"),
    (COMPANY, {"name": "Acme", "emails": ["a@acme.com"]}, "attributes.emails"),
]


@pytest.mark.parametrize(("kind", "attributes", "param"), BAD, ids=[p for _, _, p in BAD])
def test_a_record_that_breaks_its_schema_is_refused_naming_the_field(
    lab: Lab, alice: Member, kind: str, attributes: dict[str, Any], param: str
) -> None:
    memory = lab.memory(alice)
    reply = lab.post(alice, memory, {"type": kind, "title": "Someone", "attributes": attributes})
    error = assert_error(reply, 422, "memory_invalid")
    assert error["param"] == param, error
    assert lab.listed(alice, memory, include="all") == []


def test_a_revision_is_checked_against_the_schema_too(lab: Lab, alice: Member) -> None:
    memory = lab.memory(alice)
    ada = person(lab, alice, memory, "Ada Lovelace")
    bad = lab.patch(alice, memory, ada["id"], {"attributes": {"name": "Ada", "emails": ["nope"]}})
    assert assert_error(bad, 422, "memory_invalid")["param"] == "attributes.emails.0"
    missing = lab.patch(alice, memory, ada["id"], {"attributes": {"aliases": ["Ada"]}})
    assert assert_error(missing, 422, "memory_invalid")["param"] == "attributes.name"
    assert versions(lab, alice, memory, ada["id"]) == [1]
    renamed = lab.revise(alice, memory, ada["id"], title="Ada King")
    assert renamed["attributes"] == {"name": "Ada Lovelace"} and renamed["version"] == 2
    good = lab.revise(alice, memory, ada["id"], attributes={"name": "Ada Lovelace", "aliases": ["Ada"]})
    assert good["attributes"]["aliases"] == ["Ada"]


def test_a_bulk_or_unregistered_type_is_not_held_to_a_schema(lab: Lab, alice: Member) -> None:
    memory = lab.memory(alice)
    other = lab.remember(alice, memory, type="x.invoice", content="Invoice 7.", attributes={"alias": 1})
    assert other["attributes"] == {"alias": 1}, "an extension type nobody registered is carried unchanged"


# -- aliases: a read operation -----------------------------------------------------------------------


def test_aliases_answers_the_names_a_record_answers_to(lab: Lab, alice: Member, bob: Member) -> None:
    memory = lab.memory(alice)
    ada = person(lab, alice, memory, "Ada Lovelace", aliases=["Ada", "A. King"], emails=["ada@example.org"])
    lab.grant(alice, memory, bob, "read")
    result = operate(lab, bob, memory, ada["id"], "aliases")
    assert result == {
        "name": "Ada Lovelace",
        "aliases": ["Ada", "A. King"],
        "identifiers": ["ada@example.org"],
        "names": ["Ada Lovelace", "Ada", "A. King", "ada@example.org"],
    }
    acme = company(lab, alice, memory, "Acme", domains=["acme.com"])
    assert operate(lab, bob, memory, acme["id"], "aliases")["identifiers"] == ["acme.com"]


# -- who may run an operation, and what is refused ---------------------------------------------------


def test_without_the_privilege_an_operation_is_refused_before_the_record_is_looked_up(
    lab: Lab, alice: Member, bob: Member, admin: Admin
) -> None:
    memory = lab.memory(alice)
    ada = person(lab, alice, memory, "Ada Lovelace")
    twin = person(lab, alice, memory, "Ada Lovelace")
    reader, writer = admin.member(), admin.member()
    lab.grant(alice, memory, reader, "read")
    lab.grant(alice, memory, writer, "write")
    # read without write: merge is forbidden, and alike for a record that is not there
    refused = operate_reply(lab, reader, memory, ada["id"], "merge", {"duplicate": twin["id"]})
    unknown = operate_reply(lab, reader, memory, NOWHERE_RECORD, "merge", {"duplicate": twin["id"]})
    assert shape(refused) == shape(unknown)
    assert assert_error(refused, 403, "memory_forbidden")["detail"] == {"required": "write"}
    # write without read: aliases likewise
    hidden = operate_reply(lab, writer, memory, ada["id"], "aliases", {})
    assert shape(hidden) == shape(operate_reply(lab, writer, memory, NOWHERE_RECORD, "aliases", {}))
    assert_error(hidden, 403, "memory_forbidden")
    # with a key too: the privilege is judged before the key is claimed
    keyed = lab.client.post(
        f"{lab.path(memory, ada['id'])}/operations/merge",
        json={"duplicate": twin["id"]},
        headers={**reader.headers, "Idempotency-Key": tag()},
    )
    assert shape(keyed) == shape(unknown)
    # no privilege at all: the memory itself is unknown
    assert_error(operate_reply(lab, bob, memory, ada["id"], "aliases", {}), 404, "memory_not_found")
    assert versions(lab, alice, memory, ada["id"]) == [1] and versions(lab, alice, memory, twin["id"]) == [1]


BAD_INPUT = [
    ("merge", {}, "duplicate"),
    ("merge", {"duplicate": 7}, "duplicate"),
    ("merge", {"duplicate": "x" * 129}, "duplicate"),
    ("merge", {"duplicate": "hrec_1", "force": True}, "force"),
    ("aliases", {"all": True}, "all"),
]


@pytest.mark.parametrize(("name", "body", "param"), BAD_INPUT, ids=[f"{n}-{p}" for n, _, p in BAD_INPUT])
def test_input_that_does_not_match_its_schema_is_422(
    lab: Lab, alice: Member, name: str, body: dict[str, Any], param: str
) -> None:
    memory = lab.memory(alice)
    ada = person(lab, alice, memory, "Ada Lovelace")
    error = assert_error(operate_reply(lab, alice, memory, ada["id"], name, body), 422, "memory_invalid")
    assert error["param"] == param, error


def test_unknown_operations_and_impossible_merges_are_422(lab: Lab, alice: Member) -> None:
    memory = lab.memory(alice)
    ada = person(lab, alice, memory, "Ada Lovelace")
    acme = company(lab, alice, memory, "Acme")
    note = lab.remember(alice, memory, content="A plain fact.")
    unknown = operate_reply(lab, alice, memory, ada["id"], "reschedule", {})
    assert assert_error(unknown, 422, "memory_unsupported")["param"] == "name"
    on_fact = operate_reply(lab, alice, memory, note["id"], "aliases", {})
    assert assert_error(on_fact, 422, "memory_unsupported")["param"] == "name"
    for duplicate, param in ((ada["id"], "duplicate"), (acme["id"], "duplicate")):
        reply = operate_reply(lab, alice, memory, ada["id"], "merge", {"duplicate": duplicate})
        assert assert_error(reply, 422, "memory_invalid")["param"] == param
    missing = operate_reply(lab, alice, memory, ada["id"], "merge", {"duplicate": NOWHERE_RECORD})
    assert assert_error(missing, 404, "memory_record_not_found")["param"] == "duplicate"
    assert versions(lab, alice, memory, ada["id"]) == [1]


# -- merge, and its revert ---------------------------------------------------------------------------


def test_a_merge_folds_the_duplicate_and_its_revert_restores_everything(lab: Lab, alice: Member) -> None:
    memory = lab.memory(alice)
    acme = company(lab, alice, memory, "Acme")
    ada = person(lab, alice, memory, "Ada Lovelace", emails=["ada@example.org"])
    twin = person(
        lab,
        alice,
        memory,
        "Ada King",
        aliases=["Countess of Lovelace"],
        emails=["ADA@example.org", "ada@king.org"],
        role="Analyst",
        references=[{"rel": "works_for", "record_id": acme["id"]}],
    )
    about = lab.remember(alice, memory, content="She wrote the first program.",
                         references=[{"rel": "subject", "record_id": twin["id"]}])  # fmt: skip
    [episode] = observe(lab, alice, memory, {"content": "The Countess of Lovelace called about Acme."})
    assert refs(episode) == {("about", twin["id"]), ("about", acme["id"])}
    before = {r: lab.history(alice, memory, r) for r in (ada["id"], twin["id"], about["id"], episode["id"])}

    result = operate(lab, alice, memory, ada["id"], "merge", duplicate=twin["id"])
    kept, closed = result["record"], result["duplicate"]
    assert result["references_moved"] == 2
    assert kept["attributes"] == {
        "name": "Ada Lovelace",
        "aliases": ["Ada King", "Countess of Lovelace"],
        "emails": ["ada@example.org", "ada@king.org"],
        "role": "Analyst",
    }
    assert refs(kept) == {("works_for", acme["id"])} and kept["version"] == 2
    assert closed["status"] == "forgotten" and refs(closed) == {("merged_into", ada["id"])}
    run_id = result["consolidation_id"]
    for record in (kept, closed):
        assert record["written_by"] == {
            "kind": "member",
            "id": alice.id,
            "type": "human",
            "consolidation_id": run_id,
        }
    assert refs(lab.get(alice, memory, about["id"])) == {("subject", ada["id"])}
    assert refs(lab.get(alice, memory, episode["id"])) == {("about", ada["id"]), ("about", acme["id"])}
    assert twin["id"] not in lab.listed(alice, memory)
    run = ok(lab.client.get(f"/v1/memories/{memory}/consolidations/{run_id}", headers=alice.headers))
    validate("MemoryConsolidation", run)
    assert (
        run["status"] == "completed" and run["trigger"] == "operation" and run["changes"]["superseded"] == 4
    )
    changed = ok(
        lab.client.get(f"/v1/memories/{memory}/consolidations/{run_id}/changes", headers=alice.headers)
    )
    assert {c["record_id"] for c in changed["data"]} == set(before)
    order = [c["record_id"] for c in changed["data"]]
    assert order[0] == ada["id"] and order[-1] == twin["id"], "the kept record first, the duplicate last"

    reverted = ok(
        lab.client.post(f"/v1/memories/{memory}/consolidations/{run_id}/revert", headers=alice.headers)
    )
    assert reverted["status"] == "completed" and reverted["revert_of"] == run_id
    for record_id, old in before.items():
        now = lab.history(alice, memory, record_id)
        assert len(now) == len(old) + 2, "the merge and its revert each appended a version"
        assert [v["attributes"] for v in now[: len(old)]] == [v["attributes"] for v in old], "history kept"
        assert now[-1]["attributes"] == old[-1]["attributes"] and refs(now[-1]) == refs(old[-1])
        assert now[-1]["status"] == "active" and now[-1]["version"] == old[-1]["version"] + 2
    assert twin["id"] in lab.listed(alice, memory)
    assert refs(lab.get(alice, memory, episode["id"])) == {("about", twin["id"]), ("about", acme["id"])}


def test_a_merge_across_two_memories_needs_read_and_write_on_both(
    lab: Lab, alice: Member, bob: Member, admin: Admin
) -> None:
    mine, theirs = lab.memory(alice), lab.memory(bob)
    ada = person(lab, alice, mine, "Ada Lovelace")
    twin = person(lab, bob, theirs, "Ada Lovelace", aliases=["Ada"])
    referrer = lab.remember(
        bob, theirs, content="Ada signs.", references=[{"rel": "about", "record_id": twin["id"]}]
    )
    unknown = operate_reply(lab, alice, mine, ada["id"], "merge", {"duplicate": NOWHERE_RECORD})
    for privileges in ((), ("write",), ("read",)):
        if privileges:
            lab.grant(bob, theirs, alice, *privileges)
        refused = operate_reply(lab, alice, mine, ada["id"], "merge", {"duplicate": twin["id"]})
        if "read" in privileges:  # a duplicate alice reads and may not write: forbidden
            assert assert_error(refused, 403, "memory_forbidden")["param"] == "duplicate"
        else:  # one she may not read answers as one that is not there
            assert shape(refused) == shape(unknown), privileges
            assert_error(refused, 404, "memory_record_not_found")
        for who, memory, record in ((alice, mine, ada), (bob, theirs, twin), (bob, theirs, referrer)):
            assert versions(lab, who, memory, record["id"]) == [1], "nothing changed"
    lab.grant(bob, theirs, alice, "read", "write")
    result = operate(lab, alice, mine, ada["id"], "merge", duplicate=twin["id"])
    assert result["duplicate"]["memory_id"] == theirs and result["references_moved"] == 1
    assert refs(lab.get(alice, theirs, referrer["id"])) == {("about", ada["id"])}
    # Someone who may write only the run's memory cannot undo what it did in the other one.
    carol = admin.member()
    lab.grant(alice, mine, carol, "read", "write")
    run_path = f"/v1/memories/{mine}/consolidations/{result['consolidation_id']}/revert"
    assert_error(lab.client.post(run_path, headers=carol.headers), 403, "memory_forbidden")
    assert versions(lab, bob, theirs, twin["id"]) == [1, 2]
    ok(lab.client.post(run_path, headers=alice.headers))
    assert lab.get(bob, theirs, twin["id"])["status"] == "active"


def test_references_the_merger_may_not_write_still_lead_to_the_kept_record(
    lab: Lab, alice: Member, bob: Member
) -> None:
    shared = lab.memory(alice)
    private = lab.memory(bob)
    ada = person(lab, alice, shared, "Ada Lovelace")
    twin = person(lab, alice, shared, "Ada L.")
    theirs = lab.remember(
        bob, private, content="Met Ada.", references=[{"rel": "about", "record_id": twin["id"]}]
    )
    result = operate(lab, alice, shared, ada["id"], "merge", duplicate=twin["id"])
    assert result["references_moved"] == 0, "a record alice cannot write is not changed, nor counted"
    assert versions(lab, bob, private, theirs["id"]) == [1]
    lab.grant(alice, shared, bob, "read")
    closed = lab.get(bob, shared, twin["id"])
    assert closed["status"] == "forgotten" and refs(closed) == {("merged_into", ada["id"])}


def test_a_merge_under_an_idempotency_key_is_done_once(lab: Lab, alice: Member) -> None:
    memory = lab.memory(alice)
    ada = person(lab, alice, memory, "Ada Lovelace")
    twin = person(lab, alice, memory, "Ada King")
    headers = {**alice.headers, "Idempotency-Key": tag()}
    path = f"{lab.path(memory, ada['id'])}/operations/merge"
    first = lab.client.post(path, json={"duplicate": twin["id"]}, headers=headers)
    again = lab.client.post(path, json={"duplicate": twin["id"]}, headers=headers)
    assert first.status_code == again.status_code == 200 and first.json() == again.json()
    assert versions(lab, alice, memory, ada["id"]) == [1, 2]


# -- linking: observe and consolidation --------------------------------------------------------------


def test_observe_links_an_episode_to_a_person_by_an_alias(lab: Lab, alice: Member, bob: Member) -> None:
    root = lab.memory(alice)
    child = lab.memory(alice, parent_id=root)
    word = tag().capitalize()
    mel = person(lab, alice, root, f"Melanie {word}", aliases=["Mel"], emails=[f"mel@{word.lower()}.org"])
    joy = person(lab, alice, child, "Joy")
    acme = company(lab, alice, child, f"Quillon {word}", domains=[f"q{word.lower()}.com"])
    hidden_memory = lab.memory(bob)
    hidden = person(lab, bob, hidden_memory, f"Zephyrine {word}", aliases=["Zeph"])
    spoken = [
        ("Mel said the renewal is fine.", {mel["id"]}),
        ("Such joy: the order came.", set()),  # a one-word name keeps its capital
        ("Joy called back.", {joy["id"]}),
        (f"Write to MEL@{word.upper()}.ORG and see q{word.lower()}.com.", {mel["id"], acme["id"]}),
        ("Zeph was not told.", set()),  # a person in a memory alice cannot read is never linked
        ("Melanie alone is not her whole name; mellow is not her either.", set()),
    ]
    kept = observe(lab, alice, child, *({"content": text} for text, _ in spoken))
    for record, (text, expected) in zip(kept, spoken, strict=True):
        assert {rid for rel, rid in refs(record) if rel == "about"} == expected, text
    assert hidden["id"] not in {rid for r in kept for _, rid in refs(r)}


def consolidate(lab: Lab, who: Member, memory: str) -> dict[str, Any]:
    run = ok(lab.client.post(f"/v1/memories/{memory}/consolidations", json={}, headers=who.headers))
    validate("MemoryConsolidation", run)
    return run


def test_consolidation_merges_people_and_companies_it_recognises(lab: Lab, alice: Member) -> None:
    memory = lab.memory(alice)
    ada = person(lab, alice, memory, "Ada Lovelace", emails=["ada@example.org"])
    by_alias = person(lab, alice, memory, "Countess Ada", aliases=["Ada Lovelace"])
    by_email = person(lab, alice, memory, "A. King", emails=["Ada@Example.org"])
    bob_one = person(lab, alice, memory, "Robert Smith", aliases=["Bob"])
    bob_two = person(
        lab, alice, memory, "Bob Jones", aliases=["Bob"]
    )  # two Bobs: aliases alone decide nothing
    other_ada = person(
        lab, alice, memory, "Ada Lovelace", emails=["ada@elsewhere.org"]
    )  # same name, other person
    acme = company(lab, alice, memory, "Acme", domains=["acme.com"])
    acme_inc = company(lab, alice, memory, "Acme Incorporated", domains=["ACME.com"])
    fact = lab.remember(alice, memory, content="Acme renews in March.",
                        references=[{"rel": "subject", "record_id": acme_inc["id"]}])  # fmt: skip
    run = consolidate(lab, alice, memory)
    listed = set(lab.listed(alice, memory))
    assert {by_alias["id"], by_email["id"], acme_inc["id"]}.isdisjoint(listed)
    assert {ada["id"], bob_one["id"], bob_two["id"], other_ada["id"], acme["id"], fact["id"]} <= listed
    kept = lab.get(alice, memory, ada["id"])
    assert kept["attributes"]["aliases"] == ["Countess Ada", "A. King"]
    assert kept["written_by"]["consolidation_id"] == run["id"]
    assert lab.get(alice, memory, acme["id"])["attributes"]["aliases"] == ["Acme Incorporated"]
    assert refs(lab.get(alice, memory, fact["id"])) == {("subject", acme["id"])}
    assert refs(lab.get(alice, memory, acme_inc["id"])) == {("merged_into", acme["id"])}
    ok(lab.client.post(f"/v1/memories/{memory}/consolidations/{run['id']}/revert", headers=alice.headers))
    assert {by_alias["id"], by_email["id"], acme_inc["id"]} <= set(lab.listed(alice, memory))
    assert refs(lab.get(alice, memory, fact["id"])) == {("subject", acme_inc["id"])}
    assert "aliases" not in lab.get(alice, memory, ada["id"])["attributes"]
