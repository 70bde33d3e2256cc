"""Shared by the observe, erase, consolidation, prime and capability tests: calls and direct DB reads."""

from __future__ import annotations

from typing import Any

from fastapi.testclient import TestClient
from neo4j import GraphDatabase

from tests.api.records_support import Lab, Reply, ok, validate
from tests.conftest import Member
from tests.neo4j_target import Neo4jTarget


def provider_document(client: TestClient, who: Member) -> dict[str, Any]:
    """The one provider's capability document, checked against `MemoryProviderList`."""
    body = ok(client.get("/v1/memories/providers", headers=who.headers))
    validate("MemoryProviderList", body)
    assert len(body["data"]) == 1, body
    document: dict[str, Any] = body["data"][0]
    return document


def observe_reply(lab: Lab, who: Member, memory_id: str, body: Any) -> Reply:
    """POST .../observe as is."""
    return lab.client.post(f"/v1/memories/{memory_id}/observe", json=body, headers=who.headers)


def observe(lab: Lab, who: Member, memory_id: str, *episodes: dict[str, Any]) -> list[dict[str, Any]]:
    """Episodes kept (200 expected); the request and every record checked against the schema."""
    body = {"episodes": list(episodes)}
    validate("MemoryObserve", body)
    answer = ok(observe_reply(lab, who, memory_id, body))
    validate("MemoryRecordList", answer)
    data: list[dict[str, Any]] = answer["data"]
    assert len(data) == len(episodes), answer
    return data


def erase_reply(lab: Lab, who: Member, memory_id: str, body: Any) -> Reply:
    """POST .../erase as is."""
    return lab.client.post(f"/v1/memories/{memory_id}/erase", json=body, headers=who.headers)


def erase(lab: Lab, who: Member, memory_id: str, *record_ids: str) -> dict[str, Any]:
    """An erase that must succeed, checked against `MemoryErasure`."""
    body = {"record_ids": list(record_ids)}
    validate("MemoryErase", body)
    answer = ok(erase_reply(lab, who, memory_id, body))
    validate("MemoryErasure", answer)
    return answer


def refs(record: dict[str, Any]) -> set[tuple[str, str]]:
    """A record's references as (rel, record_id)."""
    return {(r.get("rel", ""), r["record_id"]) for r in record["references"]}


def cypher(target: Neo4jTarget, query: str, **params: Any) -> list[dict[str, Any]]:
    """Runs one statement straight on the tests' Neo4j, outside the service, and returns the rows."""
    with GraphDatabase.driver(target.uri, auth=(target.user, target.password)) as driver:
        records, _, _ = driver.execute_query(query, params, database_="neo4j")
        return [r.data() for r in records]


def nodes_containing(target: Neo4jTarget, marker: str) -> list[dict[str, Any]]:
    """Every node with a property (or a list item of one) holding the marker: its labels and those keys."""
    holds = (
        "CASE WHEN n[k] IS :: LIST<ANY> THEN any(x IN n[k] WHERE toStringOrNull(x) CONTAINS $marker)"
        " ELSE toStringOrNull(n[k]) CONTAINS $marker END"
    )
    return cypher(
        target,
        f"MATCH (n) WHERE any(k IN keys(n) WHERE {holds}) "
        f"RETURN labels(n) AS labels, [k IN keys(n) WHERE {holds}] AS keys",
        marker=marker,
    )
