"""Writes racing each other over HTTP: moves never make a cycle, a principal keeps one grant per memory.

Each test fires its requests from threads through the session's app, so they run at once on its
event loop and meet in Neo4j as concurrent transactions.
"""

from __future__ import annotations

import asyncio
import random
import threading
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

import pytest
from fastapi.testclient import TestClient
from neo4j import Driver, GraphDatabase

from provider.config import Settings
from provider.store.driver import Neo4jStore
from provider.store.schema import schema_statements
from tests.conftest import Member, make_memory
from tests.neo4j_target import Neo4jTarget
from tests.support import Reply, assert_error, ok

T = TypeVar("T")
PRIVILEGE_SETS = [["read"], ["read", "write"], ["write", "create"], ["read", "delete"], ["create"]]


@pytest.fixture(scope="module")
def driver(neo4j_target: Neo4jTarget) -> Iterator[Driver]:
    with GraphDatabase.driver(neo4j_target.uri, auth=(neo4j_target.user, neo4j_target.password)) as sync:
        yield sync


def at_once(calls: list[Callable[[], T]]) -> list[T]:
    """Runs every call in its own thread, all released together by a barrier; answers in order."""
    barrier = threading.Barrier(len(calls))

    def released(call: Callable[[], T]) -> T:
        barrier.wait(timeout=30)
        return call()

    with ThreadPoolExecutor(max_workers=len(calls)) as pool:
        return list(pool.map(released, calls))


def move(client: TestClient, who: Member, memory_id: str, parent_id: str) -> Callable[[], Reply]:
    return lambda: client.put(f"/v1/memories/{memory_id}", json={"parent_id": parent_id}, headers=who.headers)


def assert_one_tree(driver: Driver, root: str, ids: list[str]) -> None:
    """No memory lies above itself, each has one parent, and each still reaches the root."""
    records, _, _ = driver.execute_query(
        """
        UNWIND $ids AS id
        MATCH (m:Memory {id: id})
        RETURN id,
               COUNT { (m)-[:CHILD_OF]->() } AS parents,
               EXISTS { (m)-[:CHILD_OF*1..]->(m) } AS cyclic,
               EXISTS { (m)-[:CHILD_OF*1..]->(:Memory {id: $root}) } AS rooted
        """,
        ids=ids,
        root=root,
    )
    found = {r["id"]: (r["parents"], r["cyclic"], r["rooted"]) for r in records}
    assert found == dict.fromkeys(ids, (1, False, True)), found


def test_opposite_moves_at_once_leave_one_done_and_the_other_refused(
    client: TestClient, alice: Member, driver: Driver
) -> None:
    root = make_memory(client, alice, "race root")["id"]
    try:
        for _ in range(12):
            a = make_memory(client, alice, "a", parent_id=root)["id"]
            b = make_memory(client, alice, "b", parent_id=root)["id"]
            answers = at_once([move(client, alice, a, b), move(client, alice, b, a)])
            assert sorted(r.status_code for r in answers) == [200, 422], [r.text for r in answers]
            refused = next(r for r in answers if r.status_code == 422)
            assert_error(refused, 422, "memory_invalid")
            assert_one_tree(driver, root, [a, b])
    finally:
        assert client.delete(f"/v1/memories/{root}", headers=alice.headers).status_code == 200


def test_many_moves_at_once_never_make_a_cycle(client: TestClient, alice: Member, driver: Driver) -> None:
    root = make_memory(client, alice, "storm root")["id"]
    nodes = [make_memory(client, alice, f"n{i}", parent_id=root)["id"] for i in range(8)]
    draw = random.Random(20261004)
    try:
        for _ in range(6):
            pairs = [draw.sample(nodes, 2) for _ in range(10)]
            answers = at_once([move(client, alice, x, y) for x, y in pairs])
            assert {r.status_code for r in answers} <= {200, 422}, [r.text for r in answers]
            for answer in answers:
                if answer.status_code == 422:
                    assert_error(answer, 422, "memory_invalid")
            assert_one_tree(driver, root, nodes)
        # The tree the API shows agrees: each node's ancestors run from the root to its parent.
        for node in nodes:
            shown = ok(client.get(f"/v1/memories/{node}", headers=alice.headers))
            assert shown["ancestors"][0] == root and shown["ancestors"][-1] == shown["parent_id"]
            assert node not in shown["ancestors"]
    finally:
        assert client.delete(f"/v1/memories/{root}", headers=alice.headers).status_code == 200


def post_grant(client: TestClient, who: Member, memory_id: str, principal: str, privileges: list[str]) -> Any:
    body = {"principal": principal, "privileges": privileges}
    return lambda: client.post(f"/v1/memories/{memory_id}/grants", json=body, headers=who.headers)


def explicit_grants(client: TestClient, who: Member, memory_id: str, principal: str) -> list[dict[str, Any]]:
    listed = ok(client.get(f"/v1/memories/{memory_id}/grants", headers=who.headers))["data"]
    return [g for g in listed if g["principal"] == principal and not g["inherited"]]


def test_grants_for_one_principal_at_once_leave_one_grant(
    client: TestClient, alice: Member, bob: Member, driver: Driver
) -> None:
    for _ in range(5):
        memory = make_memory(client, alice, "granted at once")["id"]
        try:
            sent = [PRIVILEGE_SETS[i % len(PRIVILEGE_SETS)] for i in range(8)]
            answers = at_once([post_grant(client, alice, memory, bob.principal, p) for p in sent])
            bodies = [ok(answer) for answer in answers]
            assert len({b["id"] for b in bodies}) == 1, "every answer names the one grant kept"
            kept = explicit_grants(client, alice, memory, bob.principal)
            assert len(kept) == 1, kept
            assert kept[0]["id"] == bodies[0]["id"] and kept[0]["privileges"] in sent
            records, _, _ = driver.execute_query(
                "MATCH (g:Grant {principal: $p})-[:ON]->(:Memory {id: $m}) RETURN count(g) AS n",
                p=bob.principal,
                m=memory,
            )
            assert records[0]["n"] == 1
        finally:
            assert client.delete(f"/v1/memories/{memory}", headers=alice.headers).status_code == 200


def test_the_creators_implicit_grant_stays_apart_under_a_race(client: TestClient, alice: Member) -> None:
    memory = make_memory(client, alice, "own grants at once")["id"]
    try:
        sent = [["read"], ["write"], ["read", "create"], ["delete"]]
        for answer in at_once([post_grant(client, alice, memory, alice.principal, p) for p in sent]):
            ok(answer)
        listed = ok(client.get(f"/v1/memories/{memory}/grants", headers=alice.headers))["data"]
        mine = [g for g in listed if g["principal"] == alice.principal]
        assert len(mine) == 2, "the implicit grant and one explicit one"
        shown = ok(client.get(f"/v1/memories/{memory}", headers=alice.headers))
        assert shown["privileges"] == ["read", "write", "create", "delete"]
    finally:
        assert client.delete(f"/v1/memories/{memory}", headers=alice.headers).status_code == 200


def test_duplicates_kept_before_the_constraint_fold_into_one_at_start_up(
    client: TestClient, settings: Settings, alice: Member, bob: Member, driver: Driver
) -> None:
    """What an earlier race left: two grants for one principal. Start-up keeps one with both's privileges."""
    memory = make_memory(client, alice, "raced before")["id"]
    try:
        driver.execute_query(
            """
            MATCH (m:Memory {id: $m})
            UNWIND [[$a, ['read'], 1], [$b, ['write'], 2]] AS g
            CREATE (:Grant {id: g[0], principal: $p, privileges: g[1], implicit: false, created_at: g[2]})
                   -[:ON]->(m)
            """,
            m=memory,
            p=bob.principal,
            a="hgrt_" + "a" * 32,
            b="hgrt_" + "b" * 32,
        )
        fold(settings)
        kept = explicit_grants(client, alice, memory, bob.principal)
        assert [(g["id"], g["privileges"]) for g in kept] == [("hgrt_" + "a" * 32, ["read", "write"])]
        again = ok(post_grant(client, alice, memory, bob.principal, ["create"])())
        assert again["id"] == kept[0]["id"] and again["privileges"] == ["create"]
        assert len(explicit_grants(client, alice, memory, bob.principal)) == 1
    finally:
        assert client.delete(f"/v1/memories/{memory}", headers=alice.headers).status_code == 200


def fold(settings: Settings) -> None:
    """Runs the schema step that gives old grants their slot, as start-up does."""
    [name] = [n for n in schema_statements() if n.endswith("_grant_slot_fill")]

    async def main() -> None:
        store = Neo4jStore.from_settings(settings)
        try:
            await store.write(name)
        finally:
            await store.close()

    asyncio.run(main())
