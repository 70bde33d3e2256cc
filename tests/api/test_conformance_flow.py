"""The public conformance suite's memories flow (ME-01 to ME-10), replayed in our own words.

The suite drives one credential through the chapter in a fixed order, state flowing from check to
check; this module does the same against the real Neo4j and model, so a change that would fail the
suite fails here first. Each test names the check it stands for.
"""

from __future__ import annotations

import fnmatch
import uuid
from dataclasses import dataclass, field
from typing import Any

import pytest
from fastapi.testclient import TestClient

from tests.conftest import Admin, Member
from tests.support import validate

FACT_TEXT = "Quillon Freight renews its contract every March."
PNG = b"\x89PNG\r\n\x1a\n" + b"\x00" * 16


@dataclass
class Flow:
    """What the checks share, as the suite's lazily built fixtures do."""

    client: TestClient
    who: Member
    provider: dict[str, Any]
    root: dict[str, Any]
    child: dict[str, Any] = field(default_factory=dict)
    fact: dict[str, Any] = field(default_factory=dict)

    def post(self, path: str, body: Any) -> Any:
        return self.client.post(path, json=body, headers=self.who.headers)

    def recall(self, memory_id: str, body: dict[str, Any]) -> dict[str, Any]:
        response = self.post(f"/v1/memories/{memory_id}/recall", body)
        assert response.status_code == 200, response.text
        answer: dict[str, Any] = response.json()
        return answer


@pytest.fixture(scope="module")
def flow(client: TestClient, admin: Admin) -> Flow:
    who = admin.member("agent")
    discovery = client.get("/v1/uhp").json()
    assert discovery["capabilities"]["memories"] is True
    providers = client.get("/v1/memories/providers", headers=who.headers).json()["data"]
    provider = providers[0]
    root = client.post(
        "/v1/memories",
        json={
            "name": f"uhp-conformance-{uuid.uuid4().hex[:6]}",
            "description": "the conformance suite's memory",
            "provider": provider["id"],
        },
        headers=who.headers,
    )
    assert root.status_code == 200, root.text
    return Flow(client=client, who=who, provider=provider, root=root.json())


def test_me01_a_memory_is_a_tree_node(flow: Flow) -> None:
    child = flow.post(
        "/v1/memories",
        {"name": "accounts", "description": "what is known about each account", "parent_id": flow.root["id"]},
    )
    assert child.status_code == 200, child.text
    flow.child = child.json()
    for memory in (flow.root, flow.child):
        validate("Memory", memory)
    assert flow.child["parent_id"] == flow.root["id"] and flow.child["ancestors"] == [flow.root["id"]]
    assert flow.child["provider"] == flow.root["provider"]
    assert set(flow.root["privileges"]) == {"read", "write", "create", "delete"}
    listing = flow.client.get(f"/v1/memories?parent={flow.root['id']}", headers=flow.who.headers).json()
    assert [m["id"] for m in listing["data"]] == [flow.child["id"]]
    missing = flow.client.get(
        f"/v1/memories/uhp-conformance-no-such-memory-{uuid.uuid4().hex}", headers=flow.who.headers
    )
    assert missing.status_code == 404 and missing.json()["error"]["code"] == "memory_not_found"


def test_me02_a_stated_record_is_kept_as_stated(flow: Flow) -> None:
    response = flow.post(
        f"/v1/memories/{flow.child['id']}/records",
        {
            "type": "fact",
            "content": FACT_TEXT,
            "attributes": {"account": "quillon"},
            "written_by": {"kind": "member", "id": "someone-else"},
        },
    )
    assert response.status_code == 200, response.text
    flow.fact = record = response.json()
    validate("MemoryRecord", record)
    assert record["content"] == [{"type": "text", "text": FACT_TEXT}]
    assert record["trust"] == "untrusted" and record["memory_id"] == flow.child["id"]
    assert record["written_by"]["id"] not in ("", "someone-else") and record["written_by"]["kind"] == "member"
    assert record["written_by"].get("type") in (None, "human", "agent")
    assert record["attributes"]["account"] == "quillon"
    again = flow.client.get(
        f"/v1/memories/{record['memory_id']}/records/{record['id']}", headers=flow.who.headers
    )
    assert again.json()["id"] == record["id"] and again.json()["content"] == record["content"]
    titled = flow.post(
        f"/v1/memories/{flow.child['id']}/records", {"type": "entity", "title": "Quillon", "content": []}
    )
    assert (
        titled.status_code == 200 and titled.json()["title"] == "Quillon" and titled.json()["content"] == []
    )


def _question(flow: Flow) -> dict[str, Any]:
    signals = flow.provider["recall"]["signals"]
    return {"query": "when does Quillon Freight renew?"} if "query" in signals else {"text": "Quillon"}


def test_me03_a_question_covers_the_memory_and_below_never_above(flow: Flow) -> None:
    question = _question(flow)
    on_child = flow.recall(flow.child["id"], question)
    validate("MemoryRecall", on_child)
    assert flow.fact["id"] in [r["record"]["id"] for r in on_child["results"]]
    assert on_child["parent"]["id"] == flow.root["id"]
    on_root = flow.recall(flow.root["id"], question)
    validate("MemoryRecall", on_root)
    hit = next(r for r in on_root["results"] if r["record"]["id"] == flow.fact["id"])
    assert hit["memory"]["id"] == flow.child["id"]
    assert any(
        c["id"] == flow.child["id"] and c["description"] == "what is known about each account"
        for c in on_root["children"]
    )
    shallow = flow.recall(flow.root["id"], {**question, "depth": 0})
    assert flow.fact["id"] not in [r["record"]["id"] for r in shallow["results"]]
    tag = f"Vellacourt{uuid.uuid4().hex[:6]}"
    own = flow.post(
        f"/v1/memories/{flow.root['id']}/records",
        {"type": "fact", "content": f"{tag} is the parent's own fact."},
    )
    assert own.status_code == 200
    probe = {"query": f"what is {tag}?"} if "query" in question else {"text": tag}
    assert own.json()["id"] in [
        r["record"]["id"] for r in flow.recall(flow.root["id"], {**probe, "depth": 0})["results"]
    ]
    assert own.json()["id"] not in [
        r["record"]["id"] for r in flow.recall(flow.child["id"], probe)["results"]
    ]


def test_me04_what_is_not_done_is_said_in_degraded(flow: Flow) -> None:
    signals = flow.provider["recall"]["signals"]
    bodies: dict[str, dict[str, Any]] = {
        "query": {"query": "renewal"},
        "text": {"text": "March"},
        "filters": {"filters": {"field": "attributes.account", "op": "eq", "value": "quillon"}},
    }
    for signal, body in bodies.items():
        answer = flow.recall(flow.child["id"], body)
        assert (f"{signal}:not_supported" in answer["degraded"]) == (signal not in signals)
    assert flow.post(f"/v1/memories/{flow.child['id']}/recall", {}).status_code == 422


def test_me05_a_revision_appends_a_version(flow: Flow) -> None:
    revised = flow.client.patch(
        f"/v1/memories/{flow.child['id']}/records/{flow.fact['id']}",
        json={"content": "Quillon Freight renews its contract every April."},
        headers=flow.who.headers,
    )
    assert revised.status_code == 200, revised.text
    assert revised.json()["id"] == flow.fact["id"] and "April" in str(revised.json()["content"])
    assert revised.json()["version"] == flow.fact["version"] + 1
    assert flow.provider["history"]["content"] == "versions"
    history = flow.client.get(
        f"/v1/memories/{flow.child['id']}/records/{flow.fact['id']}/history", headers=flow.who.headers
    ).json()["data"]
    assert "March" in str(history[0]["content"]) and history[0]["status"] == "superseded"
    assert "April" in str(history[-1]["content"]) and history[-1]["status"] == "active"


def test_me06_a_record_id_does_not_reach_across_memories(flow: Flow) -> None:
    through_root = f"/v1/memories/{flow.root['id']}/records/{flow.fact['id']}"
    assert flow.client.get(through_root, headers=flow.who.headers).status_code == 404
    assert flow.client.patch(through_root, json={"content": "x"}, headers=flow.who.headers).status_code == 404
    assert flow.client.delete(through_root, headers=flow.who.headers).status_code == 404
    still = flow.client.get(
        f"/v1/memories/{flow.child['id']}/records/{flow.fact['id']}", headers=flow.who.headers
    )
    assert still.status_code == 200 and still.json()["status"] == "active"


def test_me07_forget_keeps_a_trace_and_erase_reports(flow: Flow) -> None:
    made = flow.post(
        f"/v1/memories/{flow.child['id']}/records",
        {"type": "fact", "content": "Harlow Mills pays net sixty."},
    )
    path = f"/v1/memories/{flow.child['id']}/records/{made.json()['id']}"
    forgotten = flow.client.delete(path, headers=flow.who.headers)
    assert forgotten.status_code == 200 and forgotten.json()["status"] == "forgotten"
    assert flow.client.get(path, headers=flow.who.headers).json()["status"] == "forgotten"
    listed = flow.client.get(f"/v1/memories/{flow.child['id']}/records", headers=flow.who.headers).json()[
        "data"
    ]
    assert made.json()["id"] not in [r["id"] for r in listed]
    erased = flow.post(f"/v1/memories/{flow.child['id']}/erase", {"record_ids": [made.json()["id"]]})
    assert erased.status_code == 200, erased.text
    validate("MemoryErasure", erased.json())
    assert erased.json()["erased"] == [made.json()["id"]]
    assert flow.client.get(path, headers=flow.who.headers).status_code == 404


def test_me09_content_is_an_ordered_list_of_parts(flow: Flow) -> None:
    records = f"/v1/memories/{flow.child['id']}/records"
    lines = flow.post(
        records,
        {
            "type": "note",
            "content": [{"type": "text", "text": "First line."}, {"type": "text", "text": "Second line."}],
        },
    )
    assert [p["text"] for p in lines.json()["content"]] == ["First line.", "Second line."]
    for bad in (
        [{"type": "image", "url": "x"}],
        [{"type": "text"}],
        [{"type": "file", "file": {}}],
        [{"type": "text", "text": "x", "role": "narrator"}],
    ):
        assert flow.post(records, {"content": bad}).status_code == 422
    upload = flow.client.post(
        "/v1/files",
        files={"file": ("dot.png", PNG, "image/png")},
        data={"purpose": "user_data"},
        headers=flow.who.headers,
    )
    assert upload.status_code == 200, upload.text
    kept = any(
        fnmatch.fnmatch("image/png", p) for p in flow.provider.get("content", {}).get("media", ["text/*"])
    )
    note = flow.post(
        records,
        {
            "type": "note",
            "content": [
                {"type": "text", "text": "A dot."},
                {
                    "type": "file",
                    "file": {
                        "id": upload.json()["id"],
                        "name": "forged.bin",
                        "media_type": "application/x-forged",
                        "bytes": 1,
                    },
                    "text": "A single black dot on white.",
                },
            ],
        },
    )
    if not kept:
        assert note.status_code == 422 and note.json()["error"]["code"] == "memory_unsupported"
        return
    assert note.status_code == 200, note.text
    validate("MemoryRecord", note.json())
    part = note.json()["content"][1]
    assert part["file"]["media_type"] == "image/png" and part["file"]["name"] == "dot.png"
    assert part["text"] == "A single black dot on white."
    raw = flow.client.get(f"{records}/{note.json()['id']}/content/1", headers=flow.who.headers)
    assert raw.status_code == 200 and raw.content == PNG


def test_me10_entities_and_relationships_read_as_one_graph(flow: Flow) -> None:
    assert flow.provider["graph"]["entities"] in ("derived", "stated")
    tag = uuid.uuid4().hex[:6]
    records = f"/v1/memories/{flow.child['id']}/records"
    a = flow.post(records, {"type": "entity", "content": f"Ines Varga {tag}"}).json()
    b = flow.post(records, {"type": "entity", "content": f"Harlow Mills {tag}"}).json()
    assert b["type"] == "entity"
    fact = flow.post(
        records,
        {
            "type": "fact",
            "content": f"Ines Varga {tag} runs purchasing at Harlow Mills {tag}.",
            "attributes": {"predicate": "works_at"},
            "references": [{"rel": "subject", "record_id": a["id"]}, {"rel": "object", "record_id": b["id"]}],
        },
    ).json()
    graph = flow.post(f"/v1/memories/{flow.child['id']}/graph", {"around": a["id"], "hops": 2})
    assert graph.status_code == 200
    validate("MemoryGraph", graph.json())
    nodes = {n["record"]["id"]: n for n in graph.json()["nodes"]}
    assert {a["id"], b["id"], fact["id"]} <= set(nodes) and nodes[b["id"]]["memory"]["id"] == flow.child["id"]
    edges = {
        (e["from"]["record_id"], e["to"]["record_id"], e.get("rel"), e["available"])
        for e in graph.json()["edges"]
    }
    assert (fact["id"], a["id"], "subject", True) in edges and (fact["id"], b["id"], "object", True) in edges
    near = flow.post(f"/v1/memories/{flow.child['id']}/graph", {"around": a["id"], "hops": 1}).json()
    assert b["id"] not in [n["record"]["id"] for n in near["nodes"]]


def test_me08_cycle_refused_and_delete_takes_the_subtree(flow: Flow) -> None:
    cycle = flow.client.put(
        f"/v1/memories/{flow.root['id']}", json={"parent_id": flow.child["id"]}, headers=flow.who.headers
    )
    assert cycle.status_code == 422
    assert flow.client.delete(f"/v1/memories/{flow.root['id']}", headers=flow.who.headers).status_code == 200
    assert flow.client.get(f"/v1/memories/{flow.child['id']}", headers=flow.who.headers).status_code == 404
