"""Recall over HTTP on the real Neo4j and model: signals, fusion, scope, history, navigation, abstain."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest
from fastapi.testclient import TestClient

from provider.api.app import create_app
from provider.config import Settings
from provider.embeddings import OnnxEmbedder
from tests.api.recall_support import (
    Memories,
    assert_error,
    found,
    ok,
    recall,
    recall_reply,
    result_for,
    validate,
    word,
)
from tests.conftest import Admin, Member
from tests.time_bound import next_millisecond

FACTS = {
    "quillon": ("Quillon Freight renews its contract every March.", "quillon"),
    "harlow": ("Harlow Mills pays its invoices net sixty days after delivery.", "harlow"),
    "lisbon": ("The Lisbon office closes early on Fridays during the summer.", "lisbon"),
    "ines": ("Ines Varga runs purchasing at Harlow Mills.", "harlow"),
    "backup": ("The staging database is backed up every night at two.", "ops"),
    "support": ("Our support line answers in Portuguese and English.", "support"),
}


@pytest.fixture
def mem(client: TestClient) -> Iterator[Memories]:
    tracker = Memories(client)
    yield tracker
    tracker.cleanup()


@dataclass
class Facts:
    """One memory of plain facts, shared by the signal tests of this module (read-only)."""

    owner: Member
    memory: dict[str, Any]
    ids: dict[str, str]


@pytest.fixture(scope="module")
def facts(client: TestClient, admin: Admin) -> Iterator[Facts]:
    tracker = Memories(client)
    owner = admin.member()
    memory = tracker.make(owner, word("facts-"), description="what is known about accounts")
    ids = {
        label: tracker.remember(owner, memory["id"], text, attributes={"account": account})["id"]
        for label, (text, account) in FACTS.items()
    }
    yield Facts(owner=owner, memory=memory, ids=ids)
    tracker.cleanup()


def labels(facts: Facts, answer: dict[str, Any]) -> list[str]:
    """The results as the labels of FACTS, in ranking order."""
    by_id = {record_id: label for label, record_id in facts.ids.items()}
    return [by_id[record_id] for record_id in found(answer)]


# -- the request -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "body",
    [
        {},
        {"limit": 5},
        {"query": ""},
        {"query": 5},
        {"text": ["Quillon"]},
        {"query": "x", "limit": 0},
        {"query": "x", "limit": 101},
        {"query": "x", "limit": "10"},
        {"query": "x", "limit": True},
        {"query": "x", "depth": -1},
        {"query": "x", "depth": "1"},
        {"query": "x", "include": "forgotten"},
        {"query": "x", "types": "fact"},
        {"query": "x", "types": [1]},
        {"query": "x", "as_of": "last tuesday"},
        {"query": "x", "as_of": 5},
    ],
    ids=lambda body: repr(body),
)
def test_a_bad_request_is_422(client: TestClient, facts: Facts, body: dict[str, Any]) -> None:
    response = recall_reply(client, facts.owner, facts.memory["id"], body)
    error = assert_error(response, 422, "memory_invalid")
    assert error["type"] == "invalid_request_error"


def test_a_body_that_is_not_an_object_is_422(client: TestClient, facts: Facts) -> None:
    assert_error(recall_reply(client, facts.owner, facts.memory["id"], ["query"]), 422)


@pytest.mark.parametrize(
    "filters",
    [
        [],
        "type = fact",
        {"field": "content", "op": "eq", "value": "x"},
        {"field": "attributes.", "op": "eq", "value": "x"},
        {"field": 5, "op": "eq", "value": 1},
        {"field": "type", "op": "like", "value": "fa%"},
        {"field": "type", "op": "in", "value": "fact"},
        {"field": "time.valid_from", "op": "lt", "value": "yesterday"},
        {"field": "time.no_such_time", "op": "exists"},
        {"and": []},
        {"or": "x"},
        {"and": [{"field": "type", "op": "eq", "value": "fact"}, 7]},
        {"and": [{"and": [{"and": [{"and": [{"and": [{"and": [{"and": [{"field": "type"}]}]}]}]}]}]}]},
    ],
    ids=lambda filters: repr(filters)[:60],
)
def test_a_bad_filter_is_422(client: TestClient, facts: Facts, filters: Any) -> None:
    response = recall_reply(client, facts.owner, facts.memory["id"], {"filters": filters})
    assert_error(response, 422, "memory_invalid")


def test_limit_bounds_the_results(client: TestClient, facts: Facts) -> None:
    for limit in (1, 2, 100):
        answer = recall(client, facts.owner, facts.memory["id"], query="accounts", limit=limit)
        assert len(answer["results"]) == min(limit, len(FACTS))


# -- each signal alone, and fused ----------------------------------------------------------------------


def test_query_finds_a_paraphrase(client: TestClient, facts: Facts) -> None:
    answer = recall(
        client,
        facts.owner,
        facts.memory["id"],
        query="Which month does the freight carrier extend its agreement?",
    )
    assert labels(facts, answer)[0] == "quillon"
    # A query searches its meaning and its own words: `why` names which of them found each hit, and
    # `rerank` when the cross-encoder put it in its place.
    assert all(
        result["why"] in (["query", "rerank"], ["query", "query_words", "rerank"])
        for result in answer["results"]
    )
    assert answer["abstain"] is False and answer["degraded"] == []


def test_a_query_also_searches_its_words_and_says_so(client: TestClient, facts: Facts) -> None:
    answer = recall(client, facts.owner, facts.memory["id"], query="Is Portuguese spoken on the helpline?")
    assert result_for(answer, facts.ids["support"])["why"] == ["query", "query_words", "rerank"]
    assert labels(facts, answer)[0] == "support"


def test_text_finds_an_exact_word_and_only_records_holding_it(client: TestClient, facts: Facts) -> None:
    answer = recall(client, facts.owner, facts.memory["id"], text="Portuguese")
    assert labels(facts, answer) == ["support"]
    assert answer["results"][0]["why"] == ["text"]
    answer = recall(client, facts.owner, facts.memory["id"], text="Harlow")
    assert sorted(labels(facts, answer)) == ["harlow", "ines"]


def test_filters_find_an_attribute(client: TestClient, facts: Facts) -> None:
    filters = {"field": "attributes.account", "op": "eq", "value": "harlow"}
    answer = recall(client, facts.owner, facts.memory["id"], filters=filters)
    assert sorted(labels(facts, answer)) == ["harlow", "ines"]
    assert all(result["why"] == ["filters"] for result in answer["results"])
    assert answer["degraded"] == []


def test_fused_signals_give_one_ranking_with_their_reasons(client: TestClient, facts: Facts) -> None:
    answer = recall(
        client,
        facts.owner,
        facts.memory["id"],
        query="When does Quillon Freight renew?",
        text="Portuguese",
        limit=20,
    )
    ids = found(answer)
    assert len(ids) == len(set(ids)), "one ranking: each record once"
    scores = [result["score"] for result in answer["results"]]
    assert scores == sorted(scores, reverse=True)
    assert result_for(answer, facts.ids["quillon"])["why"] == ["query", "rerank"]
    assert result_for(answer, facts.ids["support"])["why"] == ["query", "text", "rerank"]
    assert labels(facts, answer)[0] in ("quillon", "support")


def test_all_three_signals_fuse_and_filters_confine(client: TestClient, facts: Facts) -> None:
    answer = recall(
        client,
        facts.owner,
        facts.memory["id"],
        query="Who runs purchasing at the mill?",
        text="Harlow",
        filters={"field": "attributes.account", "op": "eq", "value": "harlow"},
    )
    assert labels(facts, answer)[0] == "ines"
    assert sorted(labels(facts, answer)) == ["harlow", "ines"]
    assert all(result["why"] == ["query", "text", "rerank", "filters"] for result in answer["results"])


def test_types_restricts_every_signal(client: TestClient, mem: Memories, alice: Member) -> None:
    memory = mem.make(alice, "typed")
    tag = word("typed")
    fact = mem.remember(alice, memory["id"], f"{tag} is a fact about invoices.")
    note = mem.remember(alice, memory["id"], f"{tag} is a note about invoices.", type="note")
    for signal in ({"query": "invoices"}, {"text": tag}, {"filters": {"field": "type", "op": "exists"}}):
        answer = recall(mem.client, alice, memory["id"], types=["note"], **signal)
        assert found(answer) == [note["id"]], signal
        answer = recall(mem.client, alice, memory["id"], types=["fact", "note"], **signal)
        assert sorted(found(answer)) == sorted([fact["id"], note["id"]]), signal


def test_results_are_untrusted_data_with_their_writer_and_memory(client: TestClient, facts: Facts) -> None:
    answer = recall(client, facts.owner, facts.memory["id"], query="accounts", text="Harlow")
    assert answer["results"]
    for result in answer["results"]:
        record = result["record"]
        assert record["trust"] == "untrusted"
        assert record["written_by"]["kind"] == "member" and record["written_by"]["id"] == facts.owner.id
        assert record["memory_id"] == facts.memory["id"]
        assert result["memory"] == {"id": facts.memory["id"], "name": facts.memory["name"]}
        assert isinstance(result["score"], float)


def test_every_supported_signal_is_declared_and_never_degraded(client: TestClient, facts: Facts) -> None:
    listed = ok(client.get("/v1/memories/providers", headers=facts.owner.headers))
    signals = listed["data"][0]["recall"]["signals"]
    assert set(signals) == {"query", "text", "filters"}
    bodies: list[dict[str, Any]] = [
        {"query": "renewal"},
        {"text": "March"},
        {"filters": {"field": "attributes.account", "op": "eq", "value": "quillon"}},
    ]
    for body in bodies:
        assert recall(client, facts.owner, facts.memory["id"], **body)["degraded"] == [], body


# -- filters: every operator over type, attributes and time ------------------------------------------------


@dataclass
class Filtered:
    """A memory of three records made to tell filter operators apart."""

    owner: Member
    memory_id: str
    ids: dict[str, str]
    written_at: dict[str, str]


@pytest.fixture(scope="module")
def filtered(client: TestClient, admin: Admin) -> Iterator[Filtered]:
    tracker = Memories(client)
    owner = admin.member()
    memory = tracker.make(owner, word("filtered-"))
    written = [
        tracker.remember(
            owner,
            memory["id"],
            "Quillon pays on time.",
            attributes={"account": "quillon", "amount": 10, "region": {"city": "Porto"}},
            time={"valid_from": "2024-01-01T00:00:00Z"},
        ),
        tracker.remember(
            owner,
            memory["id"],
            "Harlow pays late.",
            attributes={"account": "harlow", "amount": 20},
            time={"valid_from": "2024-06-01T00:00:00Z"},
        ),
    ]
    next_millisecond()  # written_at is in milliseconds: keep the third record apart from the second
    written.append(
        tracker.remember(
            owner,
            memory["id"],
            "Vella is a gold customer.",
            type="note",
            attributes={"account": "vella", "amount": 30, "tier": "gold"},
        )
    )
    names = ("r1", "r2", "r3")
    yield Filtered(
        owner=owner,
        memory_id=memory["id"],
        ids={name: record["id"] for name, record in zip(names, written, strict=True)},
        written_at={name: record["time"]["written_at"] for name, record in zip(names, written, strict=True)},
    )
    tracker.cleanup()


def leaf(field: str, op: str, value: Any = None) -> dict[str, Any]:
    return {"field": field, "op": op, "value": value}


FILTER_CASES: list[tuple[str, Any, set[str]]] = [
    ("type eq", leaf("type", "eq", "note"), {"r3"}),
    ("type ne", leaf("type", "ne", "note"), {"r1", "r2"}),
    ("type in", leaf("type", "in", ["fact"]), {"r1", "r2"}),
    ("attr eq", leaf("attributes.account", "eq", "harlow"), {"r2"}),
    ("attr ne", leaf("attributes.account", "ne", "harlow"), {"r1", "r3"}),
    ("attr lt", leaf("attributes.amount", "lt", 20), {"r1"}),
    ("attr lte", leaf("attributes.amount", "lte", 20), {"r1", "r2"}),
    ("attr gt", leaf("attributes.amount", "gt", 20), {"r3"}),
    ("attr gte", leaf("attributes.amount", "gte", 20), {"r2", "r3"}),
    ("attr in", leaf("attributes.account", "in", ["quillon", "vella", "nobody"]), {"r1", "r3"}),
    ("attr exists", leaf("attributes.tier", "exists", True), {"r3"}),
    ("attr exists false", leaf("attributes.tier", "exists", False), {"r1", "r2"}),
    ("nested attr", leaf("attributes.region.city", "eq", "Porto"), {"r1"}),
    ("missing attr eq", leaf("attributes.nothing", "eq", "x"), set()),
    ("time lt", leaf("time.valid_from", "lt", "2024-03-01T00:00:00Z"), {"r1"}),
    ("time gte", leaf("time.valid_from", "gte", "2024-03-01T00:00:00Z"), {"r2"}),
    ("time lte exact", leaf("time.valid_from", "lte", "2024-06-01T00:00:00Z"), {"r1", "r2"}),
    ("time gt", leaf("time.valid_from", "gt", "2024-06-01T00:00:00Z"), set()),
    ("time exists", leaf("time.valid_from", "exists", True), {"r1", "r2"}),
    ("time eq other offset", leaf("time.valid_from", "eq", "2024-01-01T02:00:00+02:00"), {"r1"}),
    ("and", {"and": [leaf("type", "eq", "fact"), leaf("attributes.amount", "gt", 10)]}, {"r2"}),
    (
        "or",
        {"or": [leaf("attributes.account", "eq", "quillon"), leaf("attributes.tier", "exists")]},
        {"r1", "r3"},
    ),
    (
        "and of or",
        {
            "and": [
                {"or": [leaf("type", "eq", "note"), leaf("attributes.amount", "lt", 15)]},
                leaf("attributes.account", "ne", "vella"),
            ]
        },
        {"r1"},
    ),
]


@pytest.mark.parametrize(
    ("filters", "expected"), [c[1:] for c in FILTER_CASES], ids=[c[0] for c in FILTER_CASES]
)
def test_each_filter_operator(
    client: TestClient, filtered: Filtered, filters: Any, expected: set[str]
) -> None:
    answer = recall(client, filtered.owner, filtered.memory_id, filters=filters)
    names = {name for name, record_id in filtered.ids.items() if record_id in found(answer)}
    assert names == expected
    assert len(found(answer)) == len(expected)


def test_filters_confine_the_other_signals(client: TestClient, filtered: Filtered) -> None:
    filters = leaf("attributes.amount", "gte", 20)
    by_query = recall(client, filtered.owner, filtered.memory_id, query="Who pays on time?", filters=filters)
    assert set(found(by_query)) == {filtered.ids["r2"], filtered.ids["r3"]}
    by_text = recall(client, filtered.owner, filtered.memory_id, text="pays", filters=filters)
    assert found(by_text) == [filtered.ids["r2"]]
    assert by_text["results"][0]["why"] == ["text", "filters"]


def test_filters_on_when_a_record_was_written(client: TestClient, filtered: Filtered) -> None:
    first, last = filtered.written_at["r1"], filtered.written_at["r3"]
    after_first = recall(
        client, filtered.owner, filtered.memory_id, filters=leaf("time.written_at", "gt", first)
    )
    assert filtered.ids["r1"] not in found(after_first) and filtered.ids["r3"] in found(after_first)
    until_last = recall(
        client, filtered.owner, filtered.memory_id, filters=leaf("time.written_at", "lte", last)
    )
    assert set(found(until_last)) == set(filtered.ids.values())
    newest_first = recall(client, filtered.owner, filtered.memory_id, filters=leaf("type", "exists"))
    assert found(newest_first)[0] == filtered.ids["r3"]


# -- scope: the memory and below, never above, never what the caller cannot read ------------------------


@dataclass
class Tree:
    """root → child → grandchild, one record each, all holding the same unique word."""

    tag: str
    root: dict[str, Any]
    child: dict[str, Any]
    grandchild: dict[str, Any]
    records: dict[str, str]


def make_tree(mem: Memories, who: Member) -> Tree:
    tag = word("scope")
    root = mem.make(who, "root", description="the top")
    child = mem.make(who, "child", parent_id=root["id"], description="what is known about each account")
    grandchild = mem.make(who, "grandchild", parent_id=child["id"], description="deeper")
    records = {
        name: mem.remember(who, memory["id"], f"{tag} is written in the {name} memory.")["id"]
        for name, memory in (("root", root), ("child", child), ("grandchild", grandchild))
    }
    return Tree(tag=tag, root=root, child=child, grandchild=grandchild, records=records)


def where_found(tree: Tree, answer: dict[str, Any]) -> set[str]:
    by_id = {record_id: name for name, record_id in tree.records.items()}
    return {by_id[record_id] for record_id in found(answer)}


def test_asking_the_root_finds_records_below_with_their_memory(mem: Memories, alice: Member) -> None:
    tree = make_tree(mem, alice)
    answer = recall(mem.client, alice, tree.root["id"], text=tree.tag)
    assert where_found(tree, answer) == {"root", "child", "grandchild"}
    child_hit = result_for(answer, tree.records["child"])
    assert child_hit["memory"] == {"id": tree.child["id"], "name": "child"}
    # A grandchild is neither the asked memory nor a child: its name is read after the signals ran.
    grandchild_hit = result_for(answer, tree.records["grandchild"])
    assert grandchild_hit["memory"] == {"id": tree.grandchild["id"], "name": "grandchild"}
    assert result_for(answer, tree.records["root"])["memory"] == {"id": tree.root["id"], "name": "root"}


@pytest.mark.parametrize(
    ("depth", "expected"),
    [
        (0, {"root"}),
        (1, {"root", "child"}),
        (2, {"root", "child", "grandchild"}),
        (None, {"root", "child", "grandchild"}),
    ],
)
def test_depth_bounds_the_levels_searched(
    mem: Memories, alice: Member, depth: int | None, expected: set[str]
) -> None:
    tree = make_tree(mem, alice)
    for signal in (
        {"text": tree.tag},
        {"query": f"{tree.tag} memory"},
        {"filters": leaf("type", "eq", "fact")},
    ):
        answer = recall(mem.client, alice, tree.root["id"], depth=depth, **signal)
        assert where_found(tree, answer) == expected, signal


def test_a_recall_never_returns_a_record_of_an_ancestor(mem: Memories, alice: Member) -> None:
    tree = make_tree(mem, alice)
    for signal in ({"text": tree.tag}, {"query": f"{tree.tag} is written in the root memory"}):
        assert where_found(tree, recall(mem.client, alice, tree.child["id"], **signal)) == {
            "child",
            "grandchild",
        }
        assert where_found(tree, recall(mem.client, alice, tree.grandchild["id"], **signal)) == {"grandchild"}
    by_fields = recall(mem.client, alice, tree.child["id"], filters=leaf("type", "exists"))
    assert {r["memory"]["id"] for r in by_fields["results"]} == {tree.child["id"], tree.grandchild["id"]}


@dataclass
class Guarded:
    """Alice's root R (bob reads it); A open below it; S restricted (nothing for bob) with G inside
    (bob reads G); W restricted where bob may only write. One record each, one shared word."""

    tag: str
    memories: dict[str, dict[str, Any]]
    records: dict[str, str]


def make_guarded(mem: Memories, alice: Member, bob: Member) -> Guarded:
    tag = word("guard")
    root = mem.make(alice, "R", description="the root")
    memories = {
        "R": root,
        "A": mem.make(alice, "A", parent_id=root["id"], description="open"),
        "S": mem.make(alice, "S", parent_id=root["id"], restricted=True, description="secret"),
        "W": mem.make(alice, "W", parent_id=root["id"], restricted=True, description="write only"),
    }
    memories["G"] = mem.make(alice, "G", parent_id=memories["S"]["id"], description="granted inside")
    mem.grant(alice, root["id"], bob.principal, "read")
    mem.grant(alice, memories["G"]["id"], bob.principal, "read")
    mem.grant(alice, memories["W"]["id"], bob.principal, "write")
    records = {
        name: mem.remember(alice, memory["id"], f"{tag} lives in memory {name}.")["id"]
        for name, memory in memories.items()
    }
    return Guarded(tag=tag, memories=memories, records=records)


def test_a_restricted_branch_is_skipped_but_a_granted_memory_inside_it_is_searched(
    mem: Memories, alice: Member, bob: Member
) -> None:
    guarded = make_guarded(mem, alice, bob)
    by_id = {record_id: name for name, record_id in guarded.records.items()}
    root_id = guarded.memories["R"]["id"]
    for signal in (
        {"text": guarded.tag},
        {"query": f"{guarded.tag} secret"},
        {"filters": leaf("type", "exists")},
    ):
        seen = {by_id[r] for r in found(recall(mem.client, bob, root_id, limit=100, **signal))}
        assert seen == {"R", "A", "G"}, signal
        everything = {by_id[r] for r in found(recall(mem.client, alice, root_id, limit=100, **signal))}
        assert everything == {"R", "A", "S", "W", "G"}, signal


def test_a_memory_the_caller_holds_nothing_on_is_not_found(
    mem: Memories, alice: Member, bob: Member, admin: Admin
) -> None:
    guarded = make_guarded(mem, alice, bob)
    carol = admin.member()
    for who, name in ((carol, "R"), (carol, "G"), (bob, "S")):
        response = recall_reply(mem.client, who, guarded.memories[name]["id"], {"text": guarded.tag})
        assert_error(response, 404, "memory_not_found")
    response = recall_reply(mem.client, carol, word("hmem_"), {"query": "anything"})
    assert_error(response, 404, "memory_not_found")


# -- navigation: parent and children ---------------------------------------------------------------------


def test_parent_is_named_with_its_counts_and_absent_on_a_root(mem: Memories, alice: Member) -> None:
    tree = make_tree(mem, alice)
    answer = recall(mem.client, alice, tree.child["id"], text=tree.tag)
    parent = answer["parent"]
    assert parent["id"] == tree.root["id"] and parent["name"] == "root" and parent["description"] == "the top"
    assert parent["records"] == {"count": 1} and parent["children"] == {"count": 1}
    assert parent["privileges"] == ["read", "write", "create", "delete"]
    assert "parent" not in recall(mem.client, alice, tree.root["id"], text=tree.tag)


def test_an_unreadable_parent_looks_like_no_parent(mem: Memories, alice: Member, bob: Member) -> None:
    guarded = make_guarded(mem, alice, bob)
    on_root = recall(mem.client, alice, guarded.memories["R"]["id"], text=guarded.tag)
    inside = recall(mem.client, bob, guarded.memories["G"]["id"], text=guarded.tag)
    assert "parent" not in inside and "parent" not in on_root
    assert set(inside) == set(on_root)
    assert found(inside) == [guarded.records["G"]]
    open_child = recall(mem.client, bob, guarded.memories["A"]["id"], text=guarded.tag)
    assert open_child["parent"]["id"] == guarded.memories["R"]["id"]


def test_children_are_the_readable_direct_children_with_descriptions(
    mem: Memories, alice: Member, bob: Member
) -> None:
    guarded = make_guarded(mem, alice, bob)
    root_id = guarded.memories["R"]["id"]
    for body in ({"text": guarded.tag}, {"text": guarded.tag, "depth": 0}):
        children = recall(mem.client, bob, root_id, **body)["children"]
        assert [(c["id"], c["description"]) for c in children] == [(guarded.memories["A"]["id"], "open")]
        assert children[0]["name"] == "A" and children[0]["privileges"] == ["read"]
    mine = recall(mem.client, alice, root_id, text=guarded.tag)["children"]
    expected = {
        guarded.memories[name]["id"]: guarded.memories[name]["description"] for name in ("A", "S", "W")
    }
    assert {c["id"]: c["description"] for c in mine} == expected


def test_the_conformance_flow_of_me_03(mem: Memories, alice: Member) -> None:
    root = mem.make(alice, word("uhp-conformance-"), description="the conformance suite's memory")
    child = mem.make(alice, "accounts", description="what is known about each account", parent_id=root["id"])
    fact = mem.remember(
        alice,
        child["id"],
        "Quillon Freight renews its contract every March.",
        attributes={"account": "quillon"},
        written_by={"kind": "member", "id": "someone-else"},
    )
    assert fact["written_by"]["id"] == alice.id
    question = {"query": "when does Quillon Freight renew?"}
    on_child = recall(mem.client, alice, child["id"], **question)
    assert fact["id"] in found(on_child) and on_child["parent"]["id"] == root["id"]
    on_root = recall(mem.client, alice, root["id"], **question)
    assert result_for(on_root, fact["id"])["memory"]["id"] == child["id"]
    assert {"id": child["id"], "description": "what is known about each account"}.items() <= next(
        c for c in on_root["children"] if c["id"] == child["id"]
    ).items()
    assert fact["id"] not in found(recall(mem.client, alice, root["id"], depth=0, **question))
    tag = word("Vellacourt")
    own = mem.remember(alice, root["id"], f"{tag} is the parent's own fact.")
    assert found(recall(mem.client, alice, root["id"], depth=0, query=f"what is {tag}?"))[0] == own["id"]
    for probe in ({"query": f"what is {tag}?"}, {"text": tag}):
        assert own["id"] not in found(recall(mem.client, alice, child["id"], **probe))


# -- history: forgotten records and as_of -----------------------------------------------------------------


def test_forgotten_records_are_left_out_unless_include_all(mem: Memories, alice: Member) -> None:
    memory = mem.make(alice, "forgetting")
    tag = word("forget")
    kept = mem.remember(alice, memory["id"], f"{tag} Harlow Mills pays net thirty.")
    gone = mem.remember(alice, memory["id"], f"{tag} Harlow Mills pays net sixty.")
    mem.forget(alice, gone)
    for signal in (
        {"text": tag},
        {"query": f"{tag} Harlow Mills pays net sixty"},
        {"filters": leaf("type", "exists")},
    ):
        assert found(recall(mem.client, alice, memory["id"], **signal)) == [kept["id"]], signal
        everything = recall(mem.client, alice, memory["id"], include="all", **signal)
        assert set(found(everything)) == {kept["id"], gone["id"]}, signal
        assert result_for(everything, gone["id"])["record"]["status"] == "forgotten"


def test_as_of_an_instant_before_a_revision_returns_the_old_content(mem: Memories, alice: Member) -> None:
    memory = mem.make(alice, "revising")
    tag = word("asof")
    first = mem.remember(alice, memory["id"], f"{tag} Quillon Freight renews its contract every March.")
    next_millisecond()
    revised = mem.revise(alice, first, content=f"{tag} Quillon Freight renews its contract every April.")
    assert revised["version"] == 2
    before = first["time"]["written_at"]
    for signal in (
        {"text": tag},
        {"query": "When does Quillon Freight renew?"},
        {"filters": leaf("type", "eq", "fact")},
    ):
        then = recall(mem.client, alice, memory["id"], as_of=before, **signal)
        assert found(then) == [first["id"]], signal
        old = then["results"][0]["record"]
        assert "March" in old["content"][0]["text"] and old["version"] == 1, signal
        now = recall(mem.client, alice, memory["id"], **signal)
        assert "April" in now["results"][0]["record"]["content"][0]["text"], signal
    assert found(recall(mem.client, alice, memory["id"], as_of=before, text="April")) == []
    assert found(recall(mem.client, alice, memory["id"], text="March")) == []
    ancient = recall(mem.client, alice, memory["id"], as_of="2001-01-01T00:00:00Z", text=tag)
    assert ancient["results"] == []


# -- the full-text index is never handed Lucene syntax ----------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "AND (",
        "*",
        '"',
        "foo:bar",
        "a OR b",
        "\\",
        "NOT",
        "&& || !",
        "title:* search_memory:*",
        "[1 TO 5] {a TO b}",
        "foo^2 bar~ /regex/",
        "-",
        "+x -y",
        "_",
        "   ",
        "é ü 中文 🙂",
        "word " * 300,
    ],
)
def test_text_with_lucene_syntax_is_just_words(client: TestClient, facts: Facts, text: str) -> None:
    answer = recall(client, facts.owner, facts.memory["id"], text=text)
    # Words past the 64th do not reach the index, and the answer says so.
    assert answer["degraded"] == (["text:words_capped_at_64"] if len(text.split()) > 64 else [])


def test_lucene_characters_inside_a_word_still_match_it(mem: Memories, alice: Member) -> None:
    memory = mem.make(alice, "lucene")
    record = mem.remember(alice, memory["id"], "Set the config key foo:bar to on.")
    assert found(recall(mem.client, alice, memory["id"], text="foo:bar")) == [record["id"]]
    assert found(recall(mem.client, alice, memory["id"], text="key AND (")) == [record["id"]]


# -- the subtree cap ------------------------------------------------------------------------------------


@pytest.fixture
def capped_client(settings: Settings, embedder: OnnxEmbedder) -> Iterator[TestClient]:
    capped = settings.model_copy(update={"subtree_cap": 2})
    with TestClient(create_app(capped, embedder=embedder)) as test_client:
        yield test_client


def test_a_capped_subtree_is_reported_in_degraded(
    mem: Memories, alice: Member, capped_client: TestClient
) -> None:
    root = mem.make(alice, "wide")
    tag = word("cap")
    children = [mem.make(alice, f"c{i}", parent_id=root["id"]) for i in range(3)]
    for memory in (root, *children):
        mem.remember(alice, memory["id"], f"{tag} in {memory['name']}.")
    capped = recall(capped_client, alice, root["id"], text=tag)
    assert "subtree:capped_at_2_memories" in capped["degraded"]
    assert len({r["memory"]["id"] for r in capped["results"]}) <= 2
    small = recall(capped_client, alice, children[0]["id"], text=tag)
    assert small["degraded"] == [] and len(small["results"]) == 1
    uncapped = recall(mem.client, alice, root["id"], text=tag)
    assert uncapped["degraded"] == [] and len(uncapped["results"]) == 4


# -- abstain ------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "question",
    [
        "What is the boiling point of mercury on Jupiter?",
        "Who won the 1954 football world cup?",
        "How do I bake sourdough bread?",
    ],
)
def test_abstain_when_nothing_answers(client: TestClient, facts: Facts, question: str) -> None:
    answer = recall(client, facts.owner, facts.memory["id"], query=question)
    assert answer["abstain"] is True


@pytest.mark.parametrize(
    ("question", "label"),
    [
        ("When does Quillon Freight renew its contract?", "quillon"),
        ("How many days does Harlow Mills take to pay an invoice?", "harlow"),
        ("Which languages does our support line speak?", "support"),
    ],
)
def test_no_abstain_when_a_record_answers(
    client: TestClient, facts: Facts, question: str, label: str
) -> None:
    answer = recall(client, facts.owner, facts.memory["id"], query=question)
    assert answer["abstain"] is False
    assert labels(facts, answer)[0] == label


def test_an_empty_memory_abstains(mem: Memories, alice: Member) -> None:
    memory = mem.make(alice, "empty")
    answer = recall(mem.client, alice, memory["id"], query="When does Quillon Freight renew?")
    assert answer["results"] == [] and answer["abstain"] is True
    validate("MemoryRecall", answer)


def test_a_reader_without_read_is_403(mem: Memories, alice: Member, bob: Member) -> None:
    guarded = make_guarded(mem, alice, bob)
    response = recall_reply(mem.client, bob, guarded.memories["W"]["id"], {"text": guarded.tag})
    assert_error(response, 403, "memory_forbidden")


def test_filters_do_not_starve_the_words_they_confine(mem: Memories, alice: Member) -> None:
    """Many records share the word; the one the filter wants ranks last by words alone."""
    memory = mem.make(alice, "crowded")
    tag = word("crowd")
    for i in range(45):
        mem.remember(alice, memory["id"], f"{tag} pays.", attributes={"n": i})
    wanted = mem.remember(
        alice,
        memory["id"],
        f"{tag} is mentioned once in this much longer sentence about a quiet account that pays rarely.",
        attributes={"account": "wanted"},
    )
    filters = leaf("attributes.account", "eq", "wanted")
    for signal in ({"text": tag}, {"query": f"{tag} pays."}):
        answer = recall(mem.client, alice, memory["id"], filters=filters, limit=5, **signal)
        assert found(answer) == [wanted["id"]], signal
