"""`migrate graphiti` against a real Graphiti graph, written by graphiti-core's own classes.

Neo4j Community holds one user database, so the Graphiti graph shares it with the service: its nodes
carry Graphiti's labels (`Entity`, `Episodic`) and this test's own group ids, which the migration reads
and nothing of the service touches. Embeddings come from our model; no LLM is involved. The migration
runs inside the app's event loop (the TestClient's portal) and is read back over HTTP.
"""

from __future__ import annotations

import asyncio
import io
from collections.abc import Iterator
from datetime import UTC, datetime
from functools import partial
from typing import Any

import pytest
from fastapi.testclient import TestClient
from graphiti_core.driver.neo4j_driver import Neo4jDriver
from graphiti_core.edges import EntityEdge, EpisodicEdge
from graphiti_core.nodes import EntityNode, EpisodeType, EpisodicNode

from provider.embeddings import OnnxEmbedder
from provider.migrate.graphiti import GraphitiMigration
from provider.migrate.writer import MigrationSummary, MigrationWriter
from provider.store.graphiti_source import GraphitiSource
from tests.api.lifecycle_support import cypher
from tests.api.records_support import Lab, caller_of, ok, tag, texts
from tests.conftest import Member
from tests.neo4j_target import Neo4jTarget

JOINED = datetime(2020, 1, 5, 9, 30, tzinfo=UTC)
MOVED = datetime(2023, 3, 1, 12, 0, tzinfo=UTC)


@pytest.fixture
def lab(client: TestClient) -> Iterator[Lab]:
    tracker = Lab(client)
    yield tracker
    tracker.cleanup()


class Graph:
    """A small Graphiti graph in two groups: who Alice works for (expired) and where she lives."""

    def __init__(self, embedder: OnnxEmbedder):
        self.embed = embedder.embed_sync
        self.group, self.other = f"g{tag()}", f"g{tag()}"
        self.nodes: dict[str, Any] = {}

    def entity(self, name: str, labels: list[str], group: str | None = None, **attributes: Any) -> EntityNode:
        node = EntityNode(
            name=name,
            group_id=group or self.group,
            labels=labels,
            summary=f"{name}, as the conversation tells it.",
            name_embedding=self.embed([name])[0],
            attributes=attributes,
            created_at=JOINED,
        )
        self.nodes[name] = node
        return node

    def episode(self, name: str, content: str, valid_at: datetime, source: EpisodeType) -> EpisodicNode:
        node = EpisodicNode(
            name=name,
            group_id=self.group,
            source=source,
            source_description="support chat",
            content=content,
            valid_at=valid_at,
            created_at=valid_at,
        )
        self.nodes[name] = node
        return node

    def fact(self, name: str, subject: str, obj: str, fact: str, **fields: Any) -> EntityEdge:
        valid_at = fields.pop("valid_at")
        edge = EntityEdge(
            group_id=self.group,
            source_node_uuid=self.nodes[subject].uuid,
            target_node_uuid=self.nodes[obj].uuid,
            name=name,
            fact=fact,
            fact_embedding=self.embed([fact])[0],
            created_at=valid_at,
            valid_at=valid_at,
            **fields,
        )
        self.nodes[name] = edge
        return edge

    def build(self) -> list[Any]:
        """Every node and edge, in the order Graphiti saves them (nodes before the edges between them)."""
        alice = self.entity("Alice Moreau", ["Person"], role="engineer")
        acme = self.entity("Acme Robotics", ["Company"])
        berlin = self.entity("Berlin", [])
        self.entity("Lisbon", ["Location"], group=self.other)
        joined = self.episode("joined", "alice: I joined Acme Robotics in 2020.", JOINED, EpisodeType.message)
        moved = self.episode("moved", "Alice left Acme and moved to Berlin.", MOVED, EpisodeType.text)
        works = self.fact(
            "WORKS_AT",
            "Alice Moreau",
            "Acme Robotics",
            "Alice Moreau works at Acme Robotics.",
            valid_at=JOINED,
            episodes=[joined.uuid],
            expired_at=MOVED,
            invalid_at=MOVED,
        )
        lives = self.fact(
            "LIVES_IN",
            "Alice Moreau",
            "Berlin",
            "Alice Moreau lives in Berlin.",
            valid_at=MOVED,
            episodes=[moved.uuid],
            attributes={"confidence": 0.9},
        )
        mentions = [
            EpisodicEdge(
                group_id=self.group, source_node_uuid=e.uuid, target_node_uuid=n.uuid, created_at=JOINED
            )
            for e, n in ((joined, alice), (joined, acme), (moved, alice), (moved, berlin))
        ]
        nodes = [alice, acme, berlin, self.nodes["Lisbon"], joined, moved]
        return [*nodes, works, lives, *mentions]


def save(target: Neo4jTarget, items: list[Any]) -> None:
    """Graphiti's own save(), through its Neo4j driver (made outside a loop: it builds no indexes then)."""
    driver = Neo4jDriver(target.uri, target.user, target.password)

    async def work() -> None:
        for item in items:
            await item.save(driver)
        await driver.close()

    asyncio.run(work())


def source_state(target: Neo4jTarget, groups: list[str]) -> list[dict[str, Any]]:
    """Every node and relationship of the groups, whole, to compare before and after."""
    nodes = cypher(
        target,
        "MATCH (n) WHERE n.group_id IN $groups "
        "RETURN n.uuid AS uuid, labels(n) AS labels, properties(n) AS p ORDER BY uuid",
        groups=groups,
    )
    edges = cypher(
        target,
        "MATCH ()-[r]->() WHERE r.group_id IN $groups RETURN r.uuid AS uuid, type(r) AS type, "
        "properties(r) AS p ORDER BY uuid",
        groups=groups,
    )
    return nodes + edges


def migrate(
    client: TestClient, who: Member, into: str, target: Neo4jTarget, groups: list[str]
) -> MigrationSummary:
    services = client.app.state.services  # type: ignore[attr-defined]
    summary = MigrationSummary(source="graphiti", into=into)
    writer = MigrationWriter(services.records, services.tree, caller_of(who), summary, progress=io.StringIO())
    source = GraphitiSource(target.uri, target.user, target.password, page=2)
    assert client.portal is not None
    try:
        return client.portal.call(partial(GraphitiMigration(source, writer).run, groups))
    finally:
        client.portal.call(source.close)


@pytest.fixture
def graph(neo4j_target: Neo4jTarget, embedder: OnnxEmbedder) -> Iterator[Graph]:
    made = Graph(embedder)
    save(neo4j_target, made.build())
    yield made
    cypher(neo4j_target, "MATCH (n) WHERE n.group_id IN $g DETACH DELETE n", g=[made.group, made.other])


def test_a_graphiti_graph_comes_across_whole_and_a_second_run_writes_nothing(
    lab: Lab, alice: Member, graph: Graph, neo4j_target: Neo4jTarget
) -> None:
    into = lab.memory(alice)
    before = source_state(neo4j_target, [graph.group, graph.other])
    first = migrate(lab.client, alice, into, neo4j_target, [graph.group, graph.other])
    lab.made += [(m, alice) for m in first.memories.values()]
    assert (first.read, first.written, first.skipped, first.forgotten, first.refused) == (8, 8, 0, 1, [])
    assert set(first.memories) == {graph.group, graph.other}
    memory = first.memories[graph.group]
    shown = ok(lab.client.get(f"/v1/memories/{memory}", headers=alice.headers))
    assert shown["name"] == graph.group and shown["parent_id"] == into

    writer = MigrationWriter(None, None, caller_of(alice), first)  # type: ignore[arg-type]
    rid = {
        name: writer.record_id(kind, graph.nodes[name].uuid)
        for name, kind in (
            ("Alice Moreau", "entity"),
            ("Acme Robotics", "entity"),
            ("Berlin", "entity"),
            ("joined", "episode"),
            ("moved", "episode"),
            ("WORKS_AT", "fact"),
            ("LIVES_IN", "fact"),
        )
    }
    check_entities(lab, alice, memory, rid, graph)
    check_episode(lab, alice, memory, rid)
    check_facts(lab, alice, memory, rid, graph)
    assert sorted(lab.listed(alice, memory)) == sorted(v for k, v in rid.items() if k != "WORKS_AT")

    again = migrate(lab.client, alice, into, neo4j_target, [graph.group, graph.other])
    assert (again.read, again.written, again.skipped, again.forgotten, again.revised) == (8, 0, 8, 0, 0)
    assert again.memories == first.memories, "the group's memory is found again, not made twice"
    children = ok(lab.client.get("/v1/memories", params={"parent": into}, headers=alice.headers))["data"]
    assert sorted(c["name"] for c in children) == sorted([graph.group, graph.other])
    assert len(lab.listed(alice, memory, include="all")) == 7
    assert source_state(neo4j_target, [graph.group, graph.other]) == before, "the source is never written"
    labelled = cypher(
        neo4j_target, "MATCH (n:Record) WHERE n.group_id IN $g RETURN count(n) AS n", g=[graph.group]
    )
    assert labelled == [{"n": 0}]


def check_entities(lab: Lab, who: Member, memory: str, rid: dict[str, str], graph: Graph) -> None:
    person = lab.get(who, memory, rid["Alice Moreau"])
    assert (person["type"], person["title"], person["attributes"]) == (
        "x.person",
        "Alice Moreau",
        {"name": "Alice Moreau"},
    )
    assert texts(person) == ["Alice Moreau, as the conversation tells it."]
    kept = next(p for p in person["content"] if p["type"] == "x.graphiti")
    assert kept["uuid"] == graph.nodes["Alice Moreau"].uuid and kept["labels"] == ["Person"]
    assert kept["attributes"] == {"role": "engineer"} and kept["created_at"].startswith("2020-01-05T09:30")
    assert lab.get(who, memory, rid["Acme Robotics"])["type"] == "x.company"
    place = lab.get(who, memory, rid["Berlin"])
    assert (place["type"], place["title"]) == ("entity", "Berlin")
    assert place["attributes"]["graphiti"]["uuid"] == graph.nodes["Berlin"].uuid


def check_episode(lab: Lab, who: Member, memory: str, rid: dict[str, str]) -> None:
    episode = lab.get(who, memory, rid["joined"])
    assert (episode["type"], episode["title"]) == ("episode", "joined")
    assert texts(episode) == ["alice: I joined Acme Robotics in 2020."]
    assert episode["time"]["valid_from"].startswith("2020-01-05T09:30")
    kept = episode["attributes"]["graphiti"]
    assert (kept["source"], kept["source_description"]) == ("message", "support chat")
    assert kept["created_at"].startswith("2020-01-05T09:30") and len(kept["mentions"]) == 2
    about = sorted((r["rel"], r["record_id"]) for r in episode["references"])
    assert about == sorted([("about", rid["Alice Moreau"]), ("about", rid["Acme Robotics"])])


def check_facts(lab: Lab, who: Member, memory: str, rid: dict[str, str], graph: Graph) -> None:
    lives = lab.get(who, memory, rid["LIVES_IN"])
    assert (lives["type"], lives["status"], texts(lives)) == (
        "fact",
        "active",
        ["Alice Moreau lives in Berlin."],
    )
    refs = sorted((r["rel"], r["record_id"]) for r in lives["references"])
    assert refs == sorted(
        [("subject", rid["Alice Moreau"]), ("object", rid["Berlin"]), ("derived_from", rid["moved"])]
    )
    assert (
        lives["time"]["valid_from"].startswith("2023-03-01T12:00") and lives["time"].get("valid_to") is None
    )
    kept = lives["attributes"]["graphiti"]
    assert (kept["uuid"], kept["name"], kept["attributes"]) == (
        graph.nodes["LIVES_IN"].uuid,
        "LIVES_IN",
        {"confidence": 0.9},
    )
    works = lab.get(who, memory, rid["WORKS_AT"])
    assert works["status"] == "forgotten", "an edge Graphiti expired is not a live fact"
    assert works["time"]["valid_to"].startswith("2023-03-01T12:00")
    assert works["attributes"]["graphiti"]["expired_at"].startswith("2023-03-01T12:00")
    found = ok(
        lab.client.post(
            f"/v1/memories/{memory}/recall",
            json={"query": "Where does Alice Moreau work?"},
            headers=who.headers,
        )
    )
    assert rid["WORKS_AT"] not in [r["record"]["id"] for r in found["results"]]


def test_a_group_the_graph_does_not_hold_is_named_in_the_summary(
    lab: Lab, alice: Member, graph: Graph, neo4j_target: Neo4jTarget
) -> None:
    into = lab.memory(alice)
    summary = migrate(lab.client, alice, into, neo4j_target, [graph.other, "no-such-group"])
    lab.made += [(m, alice) for m in summary.memories.values()]
    assert list(summary.memories) == [graph.other] and summary.written == 1
    assert summary.refused == [
        {
            "group_id": "no-such-group",
            "code": "memory_invalid",
            "message": "The graph holds no episode or entity in this group.",
        }
    ]
