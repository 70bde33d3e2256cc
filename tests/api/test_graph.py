"""The graph read over HTTP on the real Neo4j: records as nodes, references as edges, one reader's view."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest
from fastapi.testclient import TestClient

from tests.api.recall_support import Memories, Reply, assert_error, ok, validate, word
from tests.conftest import Admin, Member


@pytest.fixture
def mem(client: TestClient) -> Iterator[Memories]:
    tracker = Memories(client)
    yield tracker
    tracker.cleanup()


def graph_reply(client: TestClient, who: Member, memory_id: str, body: Any) -> Reply:
    return client.post(f"/v1/memories/{memory_id}/graph", json=body, headers=who.headers)


def graph(client: TestClient, who: Member, memory_id: str, **body: Any) -> dict[str, Any]:
    """A graph read that must answer 200 with a valid `MemoryGraph`."""
    answer = ok(graph_reply(client, who, memory_id, body))
    validate("MemoryGraph", answer)
    return answer


def node_ids(answer: dict[str, Any]) -> set[str]:
    return {node["record"]["id"] for node in answer["nodes"]}


def edge_set(answer: dict[str, Any]) -> set[tuple[str, str, str | None, bool]]:
    return {
        (e["from"]["record_id"], e["to"]["record_id"], e.get("rel"), e["available"]) for e in answer["edges"]
    }


@dataclass
class Triple:
    """Two entities and the fact that links them, in a child of a root (the ME-10 shape)."""

    root: dict[str, Any]
    child: dict[str, Any]
    a: dict[str, Any]
    b: dict[str, Any]
    fact: dict[str, Any]


def make_triple(mem: Memories, who: Member) -> Triple:
    tag = word("")
    root = mem.make(who, "root")
    child = mem.make(who, "accounts", parent_id=root["id"])
    a = mem.remember(who, child["id"], f"Ines Varga {tag}", type="entity")
    b = mem.remember(who, child["id"], f"Harlow Mills {tag}", type="entity")
    fact = mem.remember(
        who,
        child["id"],
        f"Ines Varga {tag} runs purchasing at Harlow Mills {tag}.",
        attributes={"predicate": "works_at"},
        references=[{"rel": "subject", "record_id": a["id"]}, {"rel": "object", "record_id": b["id"]}],
    )
    assert a["type"] == "entity" and b["type"] == "entity"
    return Triple(root=root, child=child, a=a, b=b, fact=fact)


def test_graph_is_declared(client: TestClient, alice: Member) -> None:
    provider = ok(client.get("/v1/memories/providers", headers=alice.headers))["data"][0]
    assert provider["graph"]["entities"] in ("stated", "derived")


def test_the_conformance_flow_of_me_10(mem: Memories, alice: Member) -> None:
    t = make_triple(mem, alice)
    two = graph(mem.client, alice, t.child["id"], around=t.a["id"], hops=2)
    assert node_ids(two) == {t.a["id"], t.b["id"], t.fact["id"]}
    b_node = next(n for n in two["nodes"] if n["record"]["id"] == t.b["id"])
    assert b_node["memory"] == {"id": t.child["id"], "name": "accounts"}
    assert (t.fact["id"], t.a["id"], "subject", True) in edge_set(two)
    assert (t.fact["id"], t.b["id"], "object", True) in edge_set(two)
    edge = next(e for e in two["edges"] if e.get("rel") == "subject")
    assert edge["from"] == {"record_id": t.fact["id"], "memory_id": t.child["id"]}
    assert edge["to"] == {"record_id": t.a["id"], "memory_id": t.child["id"]}
    one = graph(mem.client, alice, t.child["id"], around=t.a["id"], hops=1)
    assert node_ids(one) == {t.a["id"], t.fact["id"]}
    assert two["truncated"] is False and two["degraded"] == []


@pytest.mark.parametrize(
    ("hops", "expected"), [(0, {"a"}), (1, {"a", "fact"}), (2, {"a", "fact", "b"}), (3, {"a", "fact", "b"})]
)
def test_hops_count_references_in_either_direction(
    mem: Memories, alice: Member, hops: int, expected: set[str]
) -> None:
    t = make_triple(mem, alice)
    names = {t.a["id"]: "a", t.b["id"]: "b", t.fact["id"]: "fact"}
    answer = graph(mem.client, alice, t.root["id"], around=t.a["id"], hops=hops)
    assert {names[i] for i in node_ids(answer)} == expected
    from_fact = graph(mem.client, alice, t.child["id"], around=t.fact["id"], hops=hops)
    assert {names[i] for i in node_ids(from_fact)} == ({"fact"} if hops == 0 else {"a", "b", "fact"})


def test_hops_default_to_one(mem: Memories, alice: Member) -> None:
    t = make_triple(mem, alice)
    assert node_ids(graph(mem.client, alice, t.child["id"], around=t.a["id"])) == {t.a["id"], t.fact["id"]}


@pytest.mark.parametrize(
    "body",
    [
        {"hops": -1},
        {"hops": 4},
        {"hops": "1"},
        {"hops": True},
        {"hops": 1.5},
        {"limit": 0},
        {"limit": "5"},
        {"types": "entity"},
        {"around": 5},
    ],
    ids=repr,
)
def test_a_bad_graph_request_is_422(mem: Memories, alice: Member, body: dict[str, Any]) -> None:
    memory = mem.make(alice, "g")
    assert_error(graph_reply(mem.client, alice, memory["id"], body), 422, "memory_invalid")


def test_nodes_are_full_untrusted_records_with_their_memory(mem: Memories, alice: Member) -> None:
    t = make_triple(mem, alice)
    answer = graph(mem.client, alice, t.child["id"], around=t.fact["id"])
    for node in answer["nodes"]:
        record = node["record"]
        validate("MemoryRecord", record)
        assert record["trust"] == "untrusted" and record["written_by"]["id"] == alice.id
        assert record["status"] == "active" and record["content"]
        assert node["memory"]["id"] == record["memory_id"] == t.child["id"]
    fact = next(n["record"] for n in answer["nodes"] if n["record"]["id"] == t.fact["id"])
    assert fact == t.fact


def test_without_around_the_graph_is_the_whole_readable_subtree(
    mem: Memories, alice: Member, bob: Member
) -> None:
    root = mem.make(alice, "root")
    open_child = mem.make(alice, "open", parent_id=root["id"])
    secret = mem.make(alice, "secret", parent_id=root["id"], restricted=True)
    granted = mem.make(alice, "granted", parent_id=secret["id"])
    mem.grant(alice, root["id"], bob.principal, "read")
    mem.grant(alice, granted["id"], bob.principal, "read")
    made = {
        name: mem.remember(alice, memory["id"], f"A note in {name}.")["id"]
        for name, memory in (("root", root), ("open", open_child), ("secret", secret), ("granted", granted))
    }
    names = {record_id: name for name, record_id in made.items()}
    bobs = graph(mem.client, bob, root["id"], limit=1000)
    assert {names[i] for i in node_ids(bobs)} == {"root", "open", "granted"}
    alices = graph(mem.client, alice, root["id"])
    assert {names[i] for i in node_ids(alices)} == {"root", "open", "secret", "granted"}
    below = graph(mem.client, alice, open_child["id"])
    assert {names[i] for i in node_ids(below)} == {"open"}, "never above the memory asked"


def test_types_filter_the_nodes(mem: Memories, alice: Member) -> None:
    t = make_triple(mem, alice)
    entities = graph(mem.client, alice, t.child["id"], types=["entity"])
    assert node_ids(entities) == {t.a["id"], t.b["id"]}
    facts = graph(mem.client, alice, t.root["id"], types=["fact"])
    assert node_ids(facts) == {t.fact["id"]}
    around = graph(mem.client, alice, t.child["id"], around=t.fact["id"], types=["entity"])
    assert node_ids(around) == {t.a["id"], t.b["id"], t.fact["id"]}, "the start is always shown"
    assert node_ids(graph(mem.client, alice, t.child["id"], types=["procedure"])) == set()


def test_limit_truncates_and_says_so(mem: Memories, alice: Member) -> None:
    memory = mem.make(alice, "many")
    for i in range(5):
        mem.remember(alice, memory["id"], f"Note number {i}.", type="note")
    cut = graph(mem.client, alice, memory["id"], limit=2)
    assert len(cut["nodes"]) == 2 and cut["truncated"] is True
    exact = graph(mem.client, alice, memory["id"], limit=5)
    assert len(exact["nodes"]) == 5 and exact["truncated"] is False
    whole = graph(mem.client, alice, memory["id"])
    assert len(whole["nodes"]) == 5 and whole["truncated"] is False


def test_forgotten_records_are_not_nodes(mem: Memories, alice: Member) -> None:
    t = make_triple(mem, alice)
    mem.forget(alice, t.fact)
    assert node_ids(graph(mem.client, alice, t.child["id"], around=t.a["id"], hops=3)) == {t.a["id"]}
    assert node_ids(graph(mem.client, alice, t.child["id"])) == {t.a["id"], t.b["id"]}


def test_an_edge_into_an_unreadable_memory_names_only_the_record(
    mem: Memories, alice: Member, bob: Member
) -> None:
    root = mem.make(alice, "root")
    hidden = mem.make(alice, "hidden", parent_id=root["id"], restricted=True)
    mem.grant(alice, root["id"], bob.principal, "read")
    secret = mem.remember(alice, hidden["id"], "Harlow Mills secret entity", type="entity")
    public = mem.remember(alice, root["id"], "Ines Varga", type="entity")
    fact = mem.remember(
        alice,
        root["id"],
        "Ines Varga works with someone.",
        references=[
            {"rel": "subject", "record_id": public["id"]},
            {"rel": "object", "record_id": secret["id"]},
        ],
    )
    for body in ({"around": fact["id"], "hops": 3}, {}):
        answer = graph(mem.client, bob, root["id"], **body)
        assert node_ids(answer) == {public["id"], fact["id"]}
        into_hidden = [e for e in answer["edges"] if e["to"]["record_id"] == secret["id"]]
        assert into_hidden == [
            {
                "from": {"record_id": fact["id"], "memory_id": root["id"]},
                "to": {"record_id": secret["id"]},
                "available": False,
            }
        ]
        assert (fact["id"], public["id"], "subject", True) in edge_set(answer)
        shown = next(n["record"] for n in answer["nodes"] if n["record"]["id"] == fact["id"])
        assert {"record_id": secret["id"], "available": False} in shown["references"]
    alices = graph(mem.client, alice, root["id"], around=fact["id"])
    assert node_ids(alices) == {public["id"], fact["id"], secret["id"]}
    assert (fact["id"], secret["id"], "object", True) in edge_set(alices)


def test_a_start_outside_the_readable_subtree_is_not_found(
    mem: Memories, alice: Member, bob: Member, admin: Admin
) -> None:
    t = make_triple(mem, alice)
    above = mem.remember(alice, t.root["id"], "A record of the root.")
    for around in (above["id"], word("hrec_")):
        response = graph_reply(mem.client, alice, t.child["id"], {"around": around})
        assert_error(response, 404, "memory_record_not_found")
    hidden = mem.make(alice, "hidden", parent_id=t.root["id"], restricted=True)
    mem.grant(alice, t.root["id"], bob.principal, "read")
    unseen = mem.remember(alice, hidden["id"], "Out of bob's sight.", type="entity")
    assert_error(
        graph_reply(mem.client, bob, t.root["id"], {"around": unseen["id"]}), 404, "memory_record_not_found"
    )
    carol = admin.member()
    assert_error(graph_reply(mem.client, carol, t.root["id"], {}), 404, "memory_not_found")
