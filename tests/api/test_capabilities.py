"""The capability document, walked: every capability declared is exercised, every one not declared refused.

The checks read the document at run time, so they follow it as it changes: declaring a capability
turns on the check that it works, withdrawing one turns on the check that it is refused with
`memory_unsupported` (or reported in `degraded`). A field no check knows fails the test.
"""

from __future__ import annotations

import fnmatch
import json
import secrets
from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient

from tests.api.lifecycle_support import erase_reply, observe, observe_reply, provider_document, refs
from tests.api.records_support import PNG, Lab, Reply, assert_error, ok, tag, validate
from tests.conftest import Member

CHECKED = {
    "id",
    "object",
    "isolation",
    "derivation",
    "observe",
    "recall",
    "history",
    "revise",
    "forget",
    "erase",
    "prime",
    "consolidate",
    "graph",
    "content",
    "types",
    "queries",
}
SIGNALS = ("query", "text", "filters")
DEFAULT_MEDIA = ["text/*"]
CONCRETE = {
    "text/*": "text/plain",
    "image/*": "image/png",
    "audio/*": "audio/wav",
    "video/*": "video/mp4",
    "application/*": "application/octet-stream",
}
OUTSIDE_CANDIDATES = ["application/x-msdownload", "video/mp4", "model/gltf-binary", "font/woff2", "image/png"]


@pytest.fixture
def lab(client: TestClient) -> Iterator[Lab]:
    tracker = Lab(client)
    yield tracker
    tracker.cleanup()


@pytest.fixture
def document(client: TestClient, alice: Member) -> dict[str, Any]:
    return provider_document(client, alice)


def unsupported(reply: Reply) -> None:
    assert_error(reply, 422, "memory_unsupported")


def media_of(document: dict[str, Any]) -> list[str]:
    media: list[str] = (document.get("content") or {}).get("media") or DEFAULT_MEDIA
    return media


def concrete(pattern: str) -> str:
    """A real media type the pattern matches."""
    kind = CONCRETE.get(pattern, pattern.replace("*", "x-uhp-test"))
    assert fnmatch.fnmatch(kind, pattern), (kind, pattern)
    return kind


def upload(lab: Lab, who: Member, data: bytes, media_type: str) -> str:
    body = ok(
        lab.client.post(
            "/v1/files",
            data={"purpose": "user_data"},
            files={"file": ("f", data, media_type)},
            headers=who.headers,
        )
    )
    return str(body["id"])


def file_record(lab: Lab, who: Member, memory_id: str, file_id: str) -> Reply:
    content = [{"type": "text", "text": "Attached."}, {"type": "file", "file": {"id": file_id}}]
    return lab.post(who, memory_id, {"type": "note", "content": content})


# -- the document itself -----------------------------------------------------------------------------


def test_the_document_validates_and_every_field_has_a_check(document: dict[str, Any]) -> None:
    validate("MemoryProvider", document)
    assert set(document) <= CHECKED, f"no check exercises {sorted(set(document) - CHECKED)}"
    assert document["isolation"] in ("container", "enforced_filter")
    signals = (document.get("recall") or {}).get("signals") or []
    assert set(signals) <= set(SIGNALS), f"no check exercises signals {sorted(set(signals) - set(SIGNALS))}"


def test_memories_are_made_with_the_declared_provider(
    lab: Lab, alice: Member, document: dict[str, Any]
) -> None:
    made = ok(
        lab.client.post(
            "/v1/memories", json={"name": tag(), "provider": document["id"]}, headers=alice.headers
        )
    )
    lab.made.append((made["id"], alice))
    assert made["provider"] == document["id"]
    refused = lab.client.post(
        "/v1/memories", json={"name": tag(), "provider": f"no-{tag()}"}, headers=alice.headers
    )
    assert_error(refused, 422, "memory_invalid")


# -- recall ------------------------------------------------------------------------------------------


@pytest.mark.parametrize("signal", SIGNALS)
def test_each_recall_signal_works_if_declared_else_is_degraded(
    lab: Lab, alice: Member, document: dict[str, Any], signal: str
) -> None:
    declared = signal in ((document.get("recall") or {}).get("signals") or [])
    memory = lab.memory(alice)
    word, account = f"quill{tag()}", tag()
    sentence = f"Harlow Mills renews its {word} contract every March."
    record = lab.remember(alice, memory, type="fact", content=sentence, attributes={"account": account})
    ask = {
        "query": {"query": "When does Harlow Mills renew its contract?"},
        "text": {"text": word},
        "filters": {"filters": {"field": "attributes.account", "op": "eq", "value": account}},
    }[signal]
    reply = lab.client.post(f"/v1/memories/{memory}/recall", json=ask, headers=alice.headers)
    if not declared and reply.status_code == 422:
        unsupported(reply)
        return
    answer = ok(reply)
    validate("MemoryRecall", answer)
    degraded = answer.get("degraded") or []
    if declared:
        assert f"{signal}:not_supported" not in degraded
        hits = [r for r in answer["results"] if r["record"]["id"] == record["id"]]
        assert hits and signal in hits[0]["why"], answer
    else:
        assert f"{signal}:not_supported" in degraded, answer


# -- history, revise, forget -------------------------------------------------------------------------


def test_history_works_as_declared(lab: Lab, alice: Member, document: dict[str, Any]) -> None:
    memory = lab.memory(alice)
    record = lab.remember(alice, memory, content="first")
    path = f"{lab.path(memory, record['id'])}/history"
    if (document.get("history") or {}).get("content") != "versions":
        unsupported(lab.client.get(path, headers=alice.headers))
        return
    lab.revise(alice, memory, record["id"], content="second")
    history = lab.history(alice, memory, record["id"])
    assert [(v["version"], v["status"]) for v in history] == [(1, "superseded"), (2, "active")]
    assert [v["content"][0]["text"] for v in history] == ["first", "second"]


@pytest.mark.parametrize("capability", ["revise", "forget"])
def test_revise_and_forget_work_as_declared(
    lab: Lab, alice: Member, document: dict[str, Any], capability: str
) -> None:
    memory = lab.memory(alice)
    record = lab.remember(alice, memory, content="as stated")
    if capability == "revise":
        reply = lab.patch(alice, memory, record["id"], {"content": "as revised"})
    else:
        reply = lab.delete(alice, memory, record["id"])
    if document.get(capability) not in ("native", "emulated"):
        unsupported(reply)
        return
    body = ok(reply)
    validate("MemoryRecord", body)
    if capability == "revise":
        assert body["version"] == 2 and body["content"] == [{"type": "text", "text": "as revised"}]
    else:
        assert body["status"] == "forgotten"
        assert record["id"] not in lab.listed(alice, memory)


# -- erase, prime, consolidate -----------------------------------------------------------------------


def test_erase_works_as_declared(lab: Lab, alice: Member, document: dict[str, Any]) -> None:
    memory = lab.memory(alice)
    rid = lab.remember(alice, memory, content="to erase")["id"]
    derived = lab.remember(
        alice, memory, content="from it", references=[{"rel": "derived_from", "record_id": rid}]
    )["id"]
    reply = erase_reply(lab, alice, memory, {"record_ids": [rid]})
    declared = document.get("erase")
    if not declared:
        unsupported(reply)
        return
    body = ok(reply)
    validate("MemoryErasure", body)
    assert_error(lab.read(alice, memory, rid), 404, "memory_record_not_found")
    if declared.get("derived") == "erased":
        assert body["erased"] == [rid, derived]
        assert_error(lab.read(alice, memory, derived), 404, "memory_record_not_found")
    else:
        assert body["erased"] == [rid]
    if declared.get("unreachable") == "reported":
        assert body["unreachable"] and all(isinstance(u, str) and u for u in body["unreachable"])


def test_prime_works_as_declared(lab: Lab, alice: Member, document: dict[str, Any]) -> None:
    memory = lab.memory(alice)
    rid = lab.remember(alice, memory, content="Always be brief.", attributes={"standing": True})["id"]
    reply = lab.client.get(f"/v1/memories/{memory}/prime", params={"budget": 500}, headers=alice.headers)
    if document.get("prime") is not True:
        unsupported(reply)
        return
    body = ok(reply)
    assert body["records"] == [rid] and "Always be brief." in body["text"]


def test_consolidation_works_as_declared(lab: Lab, alice: Member, document: dict[str, Any]) -> None:
    memory = lab.memory(alice)
    lab.remember(alice, memory, type="fact", content="Harlow Mills pays net sixty.")
    duplicate = lab.remember(alice, memory, type="fact", content="Harlow Mills pays net sixty.")["id"]
    reply = lab.client.post(f"/v1/memories/{memory}/consolidations", json={}, headers=alice.headers)
    if document.get("consolidate") != "runs":
        unsupported(reply)
        return
    run = ok(reply)
    validate("MemoryConsolidation", run)
    assert run["status"] == "completed"
    assert lab.get(alice, memory, duplicate)["status"] == "forgotten"
    listed = ok(lab.client.get(f"/v1/memories/{memory}/consolidations", headers=alice.headers))
    assert [r["id"] for r in listed["data"]] == [run["id"]]


# -- observe and derivation --------------------------------------------------------------------------


def test_observe_works_as_declared(lab: Lab, alice: Member, document: dict[str, Any]) -> None:
    memory = lab.memory(alice)
    named = lab.remember(alice, memory, type="entity", title="Quillon Freight", content="Quillon Freight")
    declared = document.get("observe") or {}
    if not declared:
        unsupported(observe_reply(lab, alice, memory, {"episodes": [{"content": "hello"}]}))
        return
    assert declared.get("answers") == "records", "only 200-with-records is exercised here"
    [episode] = observe(lab, alice, memory, {"content": "Quillon Freight called about the renewal."})
    if declared.get("keeps_episodes"):
        read = lab.get(alice, memory, episode["id"])
        assert read["type"] == "episode"
        assert read["content"] == [{"type": "text", "text": "Quillon Freight called about the renewal."}]
    linked = ("about", named["id"]) in refs(episode)
    assert linked == (document.get("derivation") == "write_time"), document.get("derivation")


# -- graph -------------------------------------------------------------------------------------------


def test_the_graph_works_as_declared(lab: Lab, alice: Member, document: dict[str, Any]) -> None:
    memory = lab.memory(alice)
    company = lab.remember(alice, memory, type="entity", title="Harlow Mills", content="Harlow Mills")
    claim = lab.remember(
        alice,
        memory,
        type="fact",
        content="Harlow Mills pays net sixty.",
        references=[{"rel": "subject", "record_id": company["id"]}],
    )
    reply = lab.client.post(
        f"/v1/memories/{memory}/graph", json={"around": company["id"]}, headers=alice.headers
    )
    if (document.get("graph") or {}).get("entities") in (None, "none"):
        unsupported(reply)
        return
    body = ok(reply)
    validate("MemoryGraph", body)
    assert {n["record"]["id"] for n in body["nodes"]} == {company["id"], claim["id"]}
    hops = document["graph"].get("hops")
    if hops is not None:
        path = f"/v1/memories/{memory}/graph"
        ok(lab.client.post(path, json={"around": company["id"], "hops": hops}, headers=alice.headers))
        beyond = lab.client.post(
            path, json={"around": company["id"], "hops": hops + 1}, headers=alice.headers
        )
        assert_error(beyond, 422, "memory_invalid")


# -- content media -----------------------------------------------------------------------------------


def test_every_declared_media_pattern_is_kept_byte_exact(
    lab: Lab, alice: Member, document: dict[str, Any]
) -> None:
    memory = lab.memory(alice)
    for pattern in media_of(document):
        kind = concrete(pattern)
        data = PNG if kind == "image/png" else secrets.token_bytes(64)
        record = ok(file_record(lab, alice, memory, upload(lab, alice, data, kind)))
        validate("MemoryRecord", record)
        assert record["content"][1]["file"]["media_type"] == kind
        part = lab.client.get(f"{lab.path(memory, record['id'])}/content/1", headers=alice.headers)
        assert part.status_code == 200 and part.content == data, (pattern, part.status_code)


def test_media_outside_the_declared_patterns_is_refused(
    lab: Lab, alice: Member, document: dict[str, Any]
) -> None:
    media = media_of(document)
    outside = [m for m in OUTSIDE_CANDIDATES if not any(fnmatch.fnmatch(m, p) for p in media)]
    assert outside, f"every candidate is declared: add one outside {media}"
    memory = lab.memory(alice)
    for kind in outside:
        reply = file_record(lab, alice, memory, upload(lab, alice, secrets.token_bytes(32), kind))
        unsupported(reply)
    assert lab.listed(alice, memory, include="all") == []


# -- types and queries -------------------------------------------------------------------------------


def test_types_and_operations_work_as_declared(lab: Lab, alice: Member, document: dict[str, Any]) -> None:
    listed = ok(lab.client.get("/v1/memories/types", headers=alice.headers))
    validate("MemoryTypeList", listed)
    memory = lab.memory(alice)
    record = lab.remember(alice, memory, type="x.invoice", content="Invoice 7.")
    operation = lab.client.post(
        f"{lab.path(memory, record['id'])}/operations/pay", json={}, headers=alice.headers
    )
    extension = [t for t in listed["data"] if not t.get("core")]
    if not document.get("types"):
        assert extension == [], "types is not declared, yet extension types are listed"
        unsupported(operation)
        return
    assert extension, "types is declared: at least one extension type is registered"
    assert operation.status_code in (200, 404, 422), operation.text
    for kind in extension:
        assert kind.get("schema") and kind.get("operations"), kind
        required = kind["schema"].get("required", [])
        if required:  # its schema is enforced
            refused = lab.post(alice, memory, {"type": kind["type"], "title": "t", "attributes": {}})
            assert_error(refused, 422, "memory_invalid")
        record = lab.remember(
            alice, memory, type=kind["type"], title="t", attributes=dict.fromkeys(required, "t")
        )
        for op in kind["operations"]:
            assert op["requires"] in ("read", "write", "create", "delete"), op
            if op["requires"] == "read" and not op.get("input", {}).get("required"):
                path = f"{lab.path(memory, record['id'])}/operations/{op['name']}"
                validate("MemoryOperationResult", ok(lab.client.post(path, json={}, headers=alice.headers)))


def test_queries_work_as_declared(lab: Lab, alice: Member, document: dict[str, Any]) -> None:
    declared = document.get("queries") or {}
    memory = lab.memory(alice)
    rid = lab.remember(alice, memory, content="Harlow Mills pays net sixty.")["id"]
    base = f"/v1/memories/{memory}"
    statement = "MATCH (r:Record) RETURN r.id AS id"
    definition = {"language": "cypher", "body": statement, "requires": "read"}
    named = [
        lab.client.put(f"{base}/queries/recent", json=definition, headers=alice.headers),
        lab.client.get(f"{base}/queries", headers=alice.headers),
        lab.client.post(f"{base}/queries/recent", json={"params": {}}, headers=alice.headers),
    ]
    free = lab.client.post(f"{base}/query", json={"statement": statement}, headers=alice.headers)
    if declared.get("named"):
        defined, listed, run = (ok(reply) for reply in named)
        validate("MemoryQuery", defined)
        validate("MemoryQueryList", listed)
        assert [q["name"] for q in listed["data"]] == ["recent"]
        assert rid in json.dumps(run), "the named query finds the memory's record"
    else:
        for reply in named:
            unsupported(reply)
    if declared.get("free"):
        assert rid in json.dumps(ok(free)), "the free query finds the memory's record"
    else:
        unsupported(free)
