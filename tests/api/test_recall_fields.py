"""Filter-only recall over most of the database walks newest first; it must answer what the sort does."""

from __future__ import annotations

from collections.abc import Iterator
from functools import partial
from typing import Any

import pytest
from fastapi.testclient import TestClient
from neo4j import Driver, GraphDatabase

from provider.protocol.recall_requests import RecallRequest
from provider.services.recall.filters import compile_filters
from provider.store.catalogue import statement
from provider.store.recall import Neo4jRecallStore
from tests.conftest import Member, make_memory
from tests.neo4j_target import Neo4jTarget

LATER = 9_000_000_000_000  # written "in the future", so these records lead the newest-first walk
FILTERS: list[Any] = [
    None,
    {"field": "attributes.parity", "op": "eq", "value": 1},
    {
        "or": [
            {"field": "attributes.n", "op": "gte", "value": 24},
            {"field": "type", "op": "eq", "value": "note"},
        ]
    },
    {"field": "attributes.n", "op": "lt", "value": -1},  # matches nothing: the walk goes to the end
]


@pytest.fixture(scope="module")
def driver(neo4j_target: Neo4jTarget) -> Iterator[Driver]:
    with GraphDatabase.driver(neo4j_target.uri, auth=(neo4j_target.user, neo4j_target.password)) as sync:
        yield sync


def sorted_scan(driver: Driver, scope: list[str], dnf: Any, k: int) -> list[tuple[str, str, None]]:
    rows = driver.execute_query(statement("recall_filter"), scope=scope, dnf=dnf, k=k).records
    return [(row["id"], row["memory_id"], None) for row in rows]


def test_the_newest_first_walk_answers_what_the_sorting_scan_does(
    client: TestClient, driver: Driver, alice: Member
) -> None:
    memory = make_memory(client, alice, "fields")["id"]
    written = []
    for n in range(30):
        body = {
            "type": "note" if n % 7 == 0 else "fact",
            "content": f"fact {n}",
            "attributes": {"parity": n % 2, "n": n},
        }
        answer = client.post(f"/v1/memories/{memory}/records", json=body, headers=alice.headers)
        assert answer.status_code == 200, answer.text
        written.append(answer.json()["id"])
    # Ten records share one written_at ahead of everything else: ties are broken by id on both paths.
    driver.execute_query(
        "MATCH (r:Record) WHERE r.id IN $ids SET r.written_at = $at", ids=written[5:15], at=LATER
    )
    forgotten = client.delete(f"/v1/memories/{memory}/records/{written[8]}", headers=alice.headers)
    assert forgotten.status_code == 200
    store: Neo4jRecallStore = client.app.state.services.recall.store  # type: ignore[attr-defined]
    portal = client.portal
    assert portal is not None, "the app runs inside the TestClient's portal"
    everything = driver.execute_query("MATCH (m:Memory) RETURN collect(m.id) AS ids").records[0]["ids"]
    try:
        for tree in FILTERS:
            dnf = compile_filters(RecallRequest.model_validate({"filters": tree, "text": "x"}).ask().filters)
            for k in (3, 12, 40):
                found, how = portal.call(partial(store.fields, everything, dnf, k))
                assert how == "fields_newest"
                assert found == sorted_scan(driver, everything, dnf, k), (tree, k)
        ours = portal.call(partial(store.fields, [memory], compile_filters(None), 12))[0]
        tied = sorted(set(written[5:15]) - {written[8]})
        assert [record_id for record_id, _, _ in ours][:9] == tied
        assert written[8] not in [record_id for record_id, _, _ in ours]
    finally:
        client.delete(f"/v1/memories/{memory}", headers=alice.headers)
