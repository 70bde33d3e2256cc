"""Named and free Cypher queries over HTTP, run in a real query sandbox against the real Neo4j.

One memory tree serves the module (each new scope version costs the sandbox a new database):

    root (alice; bob may read)          records: acme fact, beta note, a fact naming carol's record
    ├── child                           records: child fact
    └── cut (restricted; alice only)    records: cut secret
    carol's root (nobody else)          records: carol's secret, named by a reference from root
"""

from __future__ import annotations

import asyncio
import csv
import io
import json
import secrets
import time
from collections.abc import AsyncIterator, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi.testclient import TestClient
from neo4j import GraphDatabase

from devtools import neo4j_server
from devtools.sandbox_service import Limits, LocalSandbox
from provider import cli_query
from provider.api.app import create_app
from provider.client import MemoryClient
from provider.config import Settings
from provider.embeddings import Embedder
from provider.sandbox import load as sandbox_load
from provider.sandbox.load import warm_up_projection
from provider.sandbox.pool import SandboxPool, copy_key
from tests import sandboxes
from tests.api.lifecycle_support import erase
from tests.api.records_support import Lab, Reply, assert_error, ok, validate
from tests.conftest import Admin, Member
from tests.neo4j_target import Neo4jTarget
from tests.time_bound import until

RECORDS_OF = "MATCH (r:Record) RETURN r ORDER BY r.title"
TITLES = "MATCH (r:Record) RETURN r.title AS title ORDER BY title"


@dataclass
class World:
    """The module's tree, its members and the records written into it, by title."""

    client: TestClient
    lab: Lab
    alice: Member
    bob: Member
    carol: Member
    root: str
    child: str
    cut: str
    hidden: str
    records: dict[str, dict[str, Any]] = field(default_factory=dict)

    def query(self, who: Member, statement: str, memory: str | None = None, **body: Any) -> Reply:
        return self.client.post(
            f"/v1/memories/{memory or self.root}/query",
            json={"statement": statement, **body},
            headers=who.headers,
        )

    def rows(self, who: Member, statement: str, memory: str | None = None, **body: Any) -> dict[str, Any]:
        answer = ok(self.query(who, statement, memory, **body))
        assert answer["object"] == "memory.query.result", answer
        data = answer.pop("data")  # what it reflects: checked here, then left out of the comparisons
        assert set(data) == {"version", "as_of", "stale_ms"} and data["stale_ms"] >= 0, data
        return answer

    def sandboxes(self) -> Any:
        return self.client.app.state.services.queries.pool  # type: ignore[attr-defined]


@pytest.fixture(scope="module")
def query_client(settings: Settings, embedder: Embedder) -> Iterator[TestClient]:
    """An app of its own, on the session's sandbox service."""
    with TestClient(create_app(settings, embedder=embedder)) as client:
        yield client


@pytest.fixture(scope="module")
def world(query_client: TestClient, admin: Admin) -> Iterator[World]:
    lab = Lab(query_client)
    alice, bob, carol = admin.member(), admin.member("agent"), admin.member()
    root = lab.memory(alice, description="the team")
    world = World(
        query_client, lab, alice, bob, carol, root,
        child=lab.memory(alice, parent_id=root),
        cut=lab.memory(alice, parent_id=root, restricted=True),
        hidden=lab.memory(carol),
    )  # fmt: skip
    lab.grant(alice, root, bob, "read")
    secret = lab.remember(
        carol, world.hidden, type="fact", title="carol secret", content="the vault code is 4471"
    )
    world.records["carol secret"] = secret
    beta = lab.remember(alice, root, type="note", title="beta", content="Beta ships in May.")
    about_beta = [{"rel": "about", "record_id": beta["id"]}]
    written: list[tuple[str, str, dict[str, Any]]] = [
        ("acme", root, {"attributes": {"account": "acme", "stage": 3}, "references": about_beta}),
        ("names carol", root, {"references": [{"rel": "subject", "record_id": secret["id"]}]}),
        ("child fact", world.child, {}),
        ("cut secret", world.cut, {}),
    ]  # fmt: skip
    for title, memory, extra in written:
        world.records[title] = lab.remember(
            alice, memory, type="fact", title=title, content=f"{title} text", **extra
        )
    world.records["beta"] = beta
    yield world
    lab.cleanup()


# -- free queries: shapes, scope, depth ---------------------------------------------------------------


def test_capability_document_declares_named_and_free_cypher(world: World) -> None:
    providers = ok(world.client.get("/v1/memories/providers", headers=world.alice.headers))
    assert providers["data"][0]["queries"] == {
        "named": True,
        "free": {"languages": ["cypher"], "write": False},
    }


def test_rows_answer_carries_columns_and_values(world: World) -> None:
    answer = world.rows(
        world.alice, "MATCH (r:Record) RETURN r.title AS title, r.`attr.stage` AS stage ORDER BY title"
    )
    assert answer["columns"] == ["title", "stage"]
    assert answer["rows"] == [
        ["acme", 3],
        ["beta", None],
        ["child fact", None],
        ["cut secret", None],
        ["names carol", None],
    ]
    assert answer["degraded"] == []


def test_values_leave_as_plain_json(world: World) -> None:
    """Times as ISO strings (nanoseconds, numeric offsets), non-finite floats named, no internal ids."""
    statement = (
        "RETURN 0.0 / 0.0 AS nan, 1.0 / 0.0 AS inf, -1.0 / 0.0 AS ninf, date('2026-01-02') AS d, "
        "localtime('01:02:03.000000004') AS t, datetime('2026-01-02T03:04:05+02:00') AS dt, "
        "localdatetime('2026-01-02T03:04:05') AS ldt, duration('P1Y2M3DT4H5M6.000000007S') AS du, "
        "duration('PT0S') AS zero, point({x: 1, y: 2}) AS p, {a: [1, 2.5, null, 'x']} AS m"
    )
    assert world.rows(world.alice, statement)["rows"] == [
        [
            "NaN", "Infinity", "-Infinity", "2026-01-02", "01:02:03.000000004",
            "2026-01-02T03:04:05.000000000+02:00", "2026-01-02T03:04:05.000000000",
            "P1Y2M3DT4H5M6.000000007S", "PT0S", {"srid": 7203, "coordinates": [1.0, 2.0]},
            {"a": [1, 2.5, None, "x"]},
        ]
    ]  # fmt: skip


def test_record_nodes_answer_in_the_shape_of_recall(world: World) -> None:
    answer = ok(world.query(world.alice, RECORDS_OF))
    validate("MemoryRecall", answer)
    assert answer["abstain"] is False and answer["degraded"] == []
    titles = [r["record"]["title"] for r in answer["results"]]
    assert titles == ["acme", "beta", "child fact", "cut secret", "names carol"]
    first = answer["results"][0]
    assert first["score"] is None and first["why"] == ["query"]
    assert first["memory"]["id"] == world.root and first["record"]["trust"] == "untrusted"
    assert first["record"]["written_by"]["id"] == world.alice.id
    assert first["record"]["attributes"] == {"account": "acme", "stage": 3}


def test_scope_follows_grants_and_cutoffs(world: World) -> None:
    assert [r[0] for r in world.rows(world.bob, TITLES)["rows"]] == [
        "acme",
        "beta",
        "child fact",
        "names carol",
    ]
    counted = world.rows(world.bob, "MATCH (n) RETURN labels(n)[0] AS label, count(*) AS n ORDER BY label")
    assert counted["rows"] == [["Memory", 2], ["Record", 4], ["Unavailable", 1]]
    memories = world.rows(
        world.bob, "MATCH (m:Memory) RETURN m.id AS id, m.parent_id AS parent ORDER BY m.name"
    )
    assert sorted(memories["rows"], key=str) == sorted(
        [[world.root, None], [world.child, world.root]], key=str
    )


def test_a_reference_leaving_the_scope_is_an_id_only_stub(world: World) -> None:
    stub = world.rows(
        world.alice,
        "MATCH (:Record {title: 'names carol'})-[e:REFERENCES]->(t) "
        "RETURN e.rel AS rel, labels(t) AS labels, t",
    )
    secret = world.records["carol secret"]["id"]
    assert stub["rows"] == [
        ["subject", ["Unavailable"], {"labels": ["Unavailable"], "properties": {"id": secret}}]
    ]
    inner = world.rows(
        world.alice, "MATCH (:Record {title: 'acme'})-[:REFERENCES]->(t:Record) RETURN t.title AS t"
    )
    assert inner["rows"] == [["beta"]]


def test_depth_zero_holds_the_memory_alone(world: World) -> None:
    assert [r[0] for r in world.rows(world.alice, TITLES, depth=0)["rows"]] == ["acme", "beta", "names carol"]


def test_full_text_ranks_within_the_copy(world: World) -> None:
    statement = (
        "CALL db.index.fulltext.queryNodes('record_words', 'vault OR secret') YIELD node "
        "RETURN node.title AS t"
    )
    assert world.rows(world.bob, statement)["rows"] == []
    assert world.rows(world.alice, statement)["rows"] == [["cut secret"]]


def test_params_reach_the_statement(world: World) -> None:
    answer = world.rows(
        world.alice, "MATCH (r:Record {title: $t}) RETURN r.type AS type", params={"t": "beta"}
    )
    assert answer["rows"] == [["note"]]


# -- bounds and errors ----------------------------------------------------------------------------------


def test_row_cap_is_reported_in_degraded(world: World) -> None:
    answer = world.rows(world.alice, "UNWIND range(1, 1500) AS x RETURN x")
    assert len(answer["rows"]) == 1000 and answer["degraded"] == ["query:rows_capped_at_1000"]


def test_timeout_is_reported_in_degraded(world: World) -> None:
    answer = world.rows(world.alice, "UNWIND range(1, 4000000000) AS x RETURN count(x) AS n")
    assert answer == {
        "object": "memory.query.result",
        "trust": "untrusted",
        "columns": [],
        "rows": [],
        "written_by": [],
        "degraded": ["query:timeout_2000ms"],
    }


def test_errors_quote_no_data(world: World) -> None:
    for statement, cause in [
        ("MATCH (r:Record {title: 'beta'}) RETURN date(r.text) AS d", "data"),
        ("RETURN range(1, 10, 0) AS r", "data"),
        ("RETURN substring('abc', -1) AS s", "statement"),
        ("MATCH (r:Record {title: 'acme'}) RETURN 1 / (r.`attr.stage` - 3) AS x", "arithmetic"),
        ("MATCH (r:Record {title: 'beta'}) RETURN r.text + 1 - 1 AS x", "type"),
        ("MATCH (r:Record RETURN r", "syntax"),
        ("RETURN $missing AS x", "parameter"),
    ]:
        error = assert_error(world.query(world.alice, statement), 422, "memory_invalid")
        assert error["detail"] == {"cause": cause}, (statement, error)
        assert (
            "Beta" not in error["message"]
            and "May" not in error["message"]
            and "beta" not in error["message"]
        )


@pytest.mark.parametrize(
    "statement",
    [
        "LOAD CSV FROM 'file:///etc/passwd' AS line RETURN line",
        "CREATE (n:Record {title: 'x'}) RETURN n",
        "MATCH (r:Record) SET r.title = 'x'",
        "CALL db.labels()",
        "USE system SHOW USERS",
        "SHOW TRANSACTIONS",
        "CALL { MATCH (r:Record) RETURN r } IN TRANSACTIONS RETURN count(*) AS n",
        "MATCH (n) RETURN elementId(n) AS e",
        "DROP INDEX record_words",
    ],
)
def test_the_gate_refuses_with_a_safe_message(world: World, statement: str) -> None:
    error = assert_error(world.query(world.alice, statement), 422, "memory_invalid")
    assert error["detail"] == {"cause": "gate"} and error["param"] == "statement"


def test_language_and_write_are_checked(world: World) -> None:
    assert_error(world.query(world.alice, TITLES, language="sql"), 422, "memory_invalid")
    assert_error(world.query(world.alice, TITLES, write=True), 422, "memory_unsupported")
    assert_error(world.query(world.alice, TITLES, depth=-1), 422, "memory_invalid")
    assert_error(world.query(world.alice, TITLES, params=[1]), 422, "memory_invalid")


def test_privileges_unknown_is_forbidden_and_write_is_not_read(world: World, admin: Admin) -> None:
    stranger = admin.member()
    assert_error(world.query(stranger, TITLES), 404, "memory_not_found")
    assert_error(world.query(world.bob, TITLES, memory=world.cut), 404, "memory_not_found")
    writer = admin.member()
    world.lab.grant(world.alice, world.child, writer, "write")
    assert_error(world.query(writer, TITLES, memory=world.child), 403, "memory_forbidden")


# -- the cache and its invalidation --------------------------------------------------------------------


def test_repeated_questions_reuse_the_copy_and_writes_bring_it_up_to_date(world: World) -> None:
    """A write is applied to the held copy (no new database); an erase makes a new one."""
    pool = world.sandboxes()
    world.rows(world.bob, TITLES)
    loads, applies = pool.stats.loads, pool.stats.applies
    world.rows(world.bob, "MATCH (r:Record) RETURN count(r) AS n")
    assert (pool.stats.loads, pool.stats.applies) == (loads, applies)
    added = world.lab.remember(world.alice, world.child, type="note", title="late note", content="late")
    assert "late note" in [r[0] for r in world.rows(world.bob, TITLES)["rows"]]
    assert (pool.stats.loads, pool.stats.applies) == (loads, applies + 1)
    world.lab.delete(world.alice, world.child, added["id"])
    answer = world.rows(world.bob, "MATCH (r:Record {title: 'late note'}) RETURN r.status AS s")
    assert answer["rows"] == [["forgotten"]]
    assert (pool.stats.loads, pool.stats.applies) == (loads, applies + 2)
    erase(world.lab, world.alice, world.child, added["id"])
    answer = world.rows(world.bob, "MATCH (r:Record {title: 'late note'}) RETURN r.status AS s")
    assert answer["rows"] == [] and pool.stats.loads == loads + 1, "an erase is never applied: a new copy"


LINKS = (
    "MATCH (r:Record {title: $t})-[e:REFERENCES]->(x) "
    "RETURN e.rel AS rel, coalesce(x.title, x.id) AS to ORDER BY rel"
)


def test_a_newer_copy_holds_every_change(world: World) -> None:
    """Revisions, new references, erasures and renames all reach the held copy; nothing stale stays."""
    beta = world.records["beta"]["id"]
    temp = world.lab.remember(world.alice, world.child, type="fact", title="temp", content="temporary")
    linker = world.lab.remember(world.alice, world.root, type="fact", title="linker", content="links")
    assert world.rows(world.alice, LINKS, params={"t": "linker"})["rows"] == []
    links = [{"rel": "about", "record_id": temp["id"]}, {"rel": "object", "record_id": beta}]
    world.lab.revise(world.alice, world.root, linker["id"], title="linker", content="links", references=links)
    assert world.rows(world.alice, LINKS, params={"t": "linker"})["rows"] == [
        ["about", "temp"],
        ["object", "beta"],
    ]
    erase(world.lab, world.alice, world.child, temp["id"])
    assert world.rows(world.alice, LINKS, params={"t": "linker"})["rows"] == [["object", "beta"]]
    assert world.rows(world.alice, "MATCH (r:Record {title: 'temp'}) RETURN count(r) AS n")["rows"] == [[0]]
    ok(world.client.put(f"/v1/memories/{world.child}", json={"name": "renamed"}, headers=world.alice.headers))
    named = world.rows(
        world.alice, "MATCH (m:Memory {id: $m}) RETURN m.name AS name", params={"m": world.child}
    )
    assert named["rows"] == [["renamed"]]
    erase(world.lab, world.alice, world.root, linker["id"])
    assert world.rows(world.alice, "MATCH (r:Record {title: 'linker'}) RETURN r")["rows"] == []


# -- named queries -------------------------------------------------------------------------------------


DEFINITION = {
    "description": "Records of a type, newest first.",
    "params": {"type": "object", "properties": {"type": {"type": "string"}}, "required": ["type"]},
    "requires": "read",
    "language": "cypher",
    "body": "MATCH (r:Record {type: $type}) RETURN r ORDER BY r.title",
}


def put(world: World, who: Member, name: str, definition: dict[str, Any], memory: str | None = None) -> Reply:
    return world.client.put(
        f"/v1/memories/{memory or world.root}/queries/{name}", json=definition, headers=who.headers
    )


def run(world: World, who: Member, name: str, params: Any, memory: str | None = None) -> Reply:
    body = {"params": params}
    return world.client.post(
        f"/v1/memories/{memory or world.root}/queries/{name}", json=body, headers=who.headers
    )


def test_define_list_and_run_a_named_query(world: World) -> None:
    defined = ok(put(world, world.alice, "by_type", DEFINITION))
    validate("MemoryQuery", defined)
    assert {k: defined[k] for k in DEFINITION} == DEFINITION and defined["name"] == "by_type"
    listed = ok(world.client.get(f"/v1/memories/{world.root}/queries", headers=world.bob.headers))
    validate("MemoryQueryList", listed)
    assert [q["name"] for q in listed["data"]] == ["by_type"]
    answer = ok(run(world, world.alice, "by_type", {"type": "fact"}))
    validate("MemoryRecall", answer)
    assert [r["record"]["title"] for r in answer["results"]] == [
        "acme",
        "child fact",
        "cut secret",
        "names carol",
    ]


def test_a_named_query_runs_within_what_the_runner_may_read(world: World) -> None:
    ok(put(world, world.alice, "by_type", DEFINITION))
    answer = ok(run(world, world.bob, "by_type", {"type": "fact"}))
    assert [r["record"]["title"] for r in answer["results"]] == ["acme", "child fact", "names carol"]


def test_replacing_a_named_query_keeps_one(world: World) -> None:
    ok(put(world, world.alice, "titles", {"body": TITLES}))
    replaced = ok(
        put(
            world, world.alice, "titles", {"body": "MATCH (r:Record {status: 'active'}) RETURN count(r) AS n"}
        )
    )
    assert replaced["params"] == {"type": "object"} and replaced["requires"] == "read"
    names = [
        q["name"]
        for q in ok(world.client.get(f"/v1/memories/{world.root}/queries", headers=world.alice.headers))[
            "data"
        ]
    ]
    assert names.count("titles") == 1
    assert ok(run(world, world.bob, "titles", {}))["rows"] == [[4]]


def test_params_are_validated_against_the_schema(world: World) -> None:
    ok(put(world, world.alice, "by_type", DEFINITION))
    for params in ({}, {"type": 3}, "fact"):
        assert_error(run(world, world.alice, "by_type", params), 422, "memory_invalid")


def test_a_param_matching_its_pattern_runs(world: World) -> None:
    """Patterns run on RE2; a value that matches goes through to the statement."""
    schema = {"type": "object", "properties": {"t": {"type": "string", "pattern": "^(b|e)+ta$"}}}
    body = {"body": "MATCH (r:Record {title: $t}) RETURN r.type AS type", "params": schema}
    ok(put(world, world.alice, "patterned", body))
    assert ok(run(world, world.alice, "patterned", {"t": "beta"}))["rows"] == [["note"]]
    error = assert_error(run(world, world.alice, "patterned", {"t": "gamma"}), 422, "memory_invalid")
    assert error["param"] == "params.t" and "gamma" not in error["message"]


def test_named_query_privileges(world: World, admin: Admin) -> None:
    assert_error(put(world, world.bob, "mine", DEFINITION), 403, "memory_forbidden")
    assert_error(run(world, world.alice, "no_such_query", {}), 404, "memory_query_not_found")
    stranger = admin.member()
    assert_error(run(world, stranger, "by_type", {"type": "fact"}), 404, "memory_not_found")
    assert_error(
        world.client.get(f"/v1/memories/{world.root}/queries", headers=stranger.headers),
        404,
        "memory_not_found",
    )


@pytest.mark.parametrize(
    ("definition", "code"),
    [
        ({"body": "MATCH (r:Record) DETACH DELETE r"}, "memory_unsupported"),
        ({"body": TITLES, "requires": "write"}, "memory_unsupported"),
        ({"body": "LOAD CSV FROM 'http://127.0.0.1/x' AS l RETURN l"}, "memory_invalid"),
        ({"body": TITLES, "language": "sql"}, "memory_invalid"),
        ({"body": TITLES, "params": {"type": "no such type"}}, "memory_invalid"),
        ({"body": ""}, "memory_invalid"),
        ({"body": TITLES, "name": "another"}, "memory_invalid"),
    ],
)
def test_definitions_that_are_refused(world: World, definition: dict[str, Any], code: str) -> None:
    assert_error(put(world, world.alice, "refused", definition), 422, code)


def test_named_queries_go_with_their_memory(world: World, neo4j_target: Neo4jTarget) -> None:
    doomed = world.lab.memory(world.alice)
    ok(put(world, world.alice, "titles", {"body": TITLES}, memory=doomed))
    ok(world.client.delete(f"/v1/memories/{doomed}", headers=world.alice.headers))
    with GraphDatabase.driver(neo4j_target.uri, auth=(neo4j_target.user, neo4j_target.password)) as driver:
        left = driver.execute_query("MATCH (q:NamedQuery {memory_id: $m}) RETURN count(q) AS n", m=doomed)
    assert left.records[0]["n"] == 0


# -- the sandbox service: a new database per copy, several scopes at once, its own token and environment ---

# Unordered on purpose: rows come in the store's order, so equal rows mean equal internal ids too.
GRAPH = (
    "MATCH (r:Record)-[:IN]->(m:Memory) OPTIONAL MATCH (r)-[e:REFERENCES]->(t) "
    "RETURN r.id AS node, r.title AS title, m.id AS memory, e.rel AS rel, t.id AS to, labels(t) AS target"
)
SLOW = (
    "MATCH (a), (b), (c), (d), (e), (f), (g), (h) WHERE a <> b AND c <> d AND e <> f AND g <> h "
    "RETURN count(*) AS n"
)


COUNT = "MATCH (r:Record) RETURN count(r) AS n"


def recycle(world: World) -> None:
    """Every copy the app's pool loaded dropped from the service."""
    assert world.client.portal is not None, "the app runs inside the TestClient's portal"
    world.client.portal.call(world.sandboxes().recycle_all)


def test_a_copy_loaded_again_answers_exactly_as_the_first(world: World) -> None:
    """Each copy is a new database from the same template: the same store, the same order."""
    recycle(world)
    first = world.rows(world.alice, GRAPH)["rows"]
    loads = world.sandboxes().stats.loads
    recycle(world)
    assert world.rows(world.alice, GRAPH)["rows"] == first
    assert world.sandboxes().stats.loads == loads + 1
    assert {"acme", "beta", "names carol", "child fact", "cut secret"} <= {row[1] for row in first}


def test_two_scopes_are_held_at_once_and_a_slow_statement_holds_up_neither(world: World) -> None:
    world.rows(world.alice, TITLES)
    world.rows(world.bob, TITLES)
    stats = world.sandboxes().stats
    loads, hits = stats.loads, stats.hits
    with ThreadPoolExecutor(1) as pool:
        slow = pool.submit(world.rows, world.alice, SLOW)
        until(lambda: stats.hits > hits, within=30, what="the slow statement holding alice's copy")
        started = time.perf_counter()
        assert world.rows(world.bob, "RETURN 1 AS one")["rows"] == [[1]]
        elapsed = time.perf_counter() - started
        assert slow.result()["degraded"] == ["query:timeout_2000ms"]
    assert elapsed < 1.0, elapsed
    assert world.sandboxes().stats.loads == loads, "both copies stayed held"


def test_the_service_holds_no_secret_of_the_main_service(
    world: World, settings: Settings, sandbox: LocalSandbox
) -> None:
    world.rows(world.alice, "RETURN 1 AS one")
    local = sandbox
    environ = Path(f"/proc/{local.process.pid}/environ").read_bytes()
    names = {entry.split(b"=", 1)[0].decode() for entry in environ.split(b"\0") if entry}
    assert names <= {"PATH", "LANG", "LC_ALL", "TZ"} | {n for n in names if n.startswith("UHP_SANDBOX_")}
    cmdline = Path(f"/proc/{local.process.pid}/cmdline").read_bytes()
    for secret in (settings.neo4j.password.get_secret_value(), settings.admin_key.get_secret_value()):
        assert secret and secret.encode() not in environ + cmdline
    assert local.token.encode() in environ, "its own token, made for it"


def test_the_service_answers_only_its_token(world: World, sandbox: LocalSandbox) -> None:
    world.rows(world.alice, "RETURN 1 AS one")
    local = sandbox
    assert httpx.get(f"{local.url}/health").status_code == 401
    wrong = {"Authorization": "Bearer " + secrets.token_urlsafe(32)}
    assert httpx.get(f"{local.url}/health", headers=wrong).status_code == 401
    health = httpx.get(f"{local.url}/health", headers={"Authorization": f"Bearer {local.token}"}).json()
    assert health["neo4j"] == neo4j_server.NEO4J_VERSION
    # Six shares of 160 MB in 1024: one for the service, one for a standby database, four copies.
    assert health["scopes_max"] == 4 and health["standby"] and health["scopes"] >= 1


def test_past_its_memory_the_service_drops_the_least_recently_used_copy(settings: Settings) -> None:
    """Declared 320 MB at 160 MB a scope holds one copy; a lease on a dropped one loads it again."""

    async def main() -> tuple[int, list[bool], list[list[Any]]]:
        pool = SandboxPool(service.url, service.token)
        try:
            client = await pool.client()
            held = (await client.health())["scopes_max"]
            for scope in (("one",), ("two",)):
                async with pool.lease(scope, sandboxes.still(scope), lambda: fake(5), sandboxes.no_changes):
                    pass
            present = [await client.holds(copy_key(s, sandboxes.still(s))) for s in (("one",), ("two",))]
            one = ("one",)
            async with pool.lease(
                one, sandboxes.still(one), lambda: fake(5), sandboxes.no_changes
            ) as sandbox:
                counted = await sandbox.run(
                    "MATCH (r:Record) RETURN count(r) AS n", {}, timeout_ms=2000, row_cap=1
                )
            return held, present, counted.rows
        finally:
            await pool.close()

    def fake(records: int) -> AsyncIterator[sandbox_load.Step]:
        return sandbox_load.replayed(sandbox_load.steps(warm_up_projection(records)))

    with sandboxes.start(Limits(memory_mb=320, scope_mb=160)) as service:
        held, present, rows = asyncio.run(main())
    assert held == 1 and present == [False, True] and rows == [[5]]


def test_a_statement_the_server_cannot_interrupt_costs_the_sandbox_not_the_service(world: World) -> None:
    runaway = "RETURN reduce(s = 0, x IN range(1, 40000000000) | s + x) AS s"
    assert world.rows(world.alice, runaway)["degraded"] == ["query:timeout_2000ms"]
    assert world.rows(world.alice, "RETURN 1 AS one")["rows"] == [[1]]


def test_readiness_asks_a_sandbox_service_of_its_own_and_names_it_when_it_is_gone(
    settings: Settings, embedder: Embedder
) -> None:
    """As compose runs it: the API given a URL and a token; /readyz follows the service's health."""
    service = sandboxes.start(Limits(memory_mb=320, scope_mb=160))
    tuned = sandboxes.wired(settings, service)
    try:
        with TestClient(create_app(tuned, embedder=embedder)) as client:
            ready = client.get("/readyz")
            assert ready.status_code == 200 and ready.json()["checks"]["queries"], ready.text
            service.stop()
            gone = client.get("/readyz")
            assert gone.status_code == 503, gone.text
            assert gone.json()["checks"]["queries"] is False
            assert service.url in gone.json()["not_ready"]["queries"]
            assert service.token not in gone.text
    finally:
        service.stop()


def test_without_a_sandbox_queries_are_unsupported_and_undeclared(
    settings: Settings, embedder: Embedder, admin: Admin
) -> None:
    plain = settings.changed(query_sandbox=False)
    with TestClient(create_app(plain, embedder=embedder)) as client:
        member = admin.member()
        document = ok(client.get("/v1/memories/providers", headers=member.headers))["data"][0]
        assert document["queries"] == {"named": False}
        memory = ok(client.post("/v1/memories", json={"name": secrets.token_hex(4)}, headers=member.headers))[
            "id"
        ]
        try:
            reply = client.post(
                f"/v1/memories/{memory}/query", json={"statement": TITLES}, headers=member.headers
            )
            assert_error(reply, 422, "memory_unsupported")
            assert_error(
                client.get(f"/v1/memories/{memory}/queries", headers=member.headers),
                422,
                "memory_unsupported",
            )
        finally:
            client.delete(f"/v1/memories/{memory}", headers=member.headers)


# -- the analyst's command line -------------------------------------------------------------------------


def test_the_command_line_prints_a_table_and_json(
    world: World, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    def connect(url: str, key: str) -> MemoryClient:
        assert url == "http://uhp.test"
        return MemoryClient(http=world.client, key=key)

    monkeypatch.setattr(cli_query, "connect", connect)
    monkeypatch.setenv("UHP_API_KEY", world.bob.key)
    common = ["--url", "http://uhp.test", "--memory", world.root]
    assert (
        cli_query.main(
            [
                *common,
                "MATCH (r:Record) WHERE r.title < $t RETURN r.title AS title ORDER BY title",
                "--param",
                "t=c",
            ]
        )
        == 0
    )
    printed = capsys.readouterr().out.splitlines()
    assert printed == ["title", "-----", "acme", "beta", "2 rows"]
    assert cli_query.main([*common, "--json", "MATCH (r:Record {title: 'beta'}) RETURN r"]) == 0
    assert json.loads(capsys.readouterr().out)["results"][0]["record"]["title"] == "beta"
    assert cli_query.main([*common, "MATCH (n) RETURN id(n)"]) == 1
    assert "memory_invalid" in capsys.readouterr().err


def test_the_command_line_writes_rows_as_csv_and_ndjson(
    world: World, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(cli_query, "connect", lambda url, key: MemoryClient(http=world.client, key=key))
    monkeypatch.setenv("UHP_API_KEY", world.bob.key)
    common = ["--url", "http://uhp.test", "--memory", world.root]
    statement = (
        "MATCH (r:Record) WHERE r.title < 'c' RETURN r.title AS title, r.`attr.stage` AS stage ORDER BY title"
    )
    assert cli_query.main([*common, "--format", "csv", statement]) == 0
    assert capsys.readouterr().out.splitlines() == ["title,stage", "acme,3", "beta,"]
    assert cli_query.main([*common, "--format", "ndjson", statement]) == 0
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert lines == [{"title": "acme", "stage": 3}, {"title": "beta", "stage": None}]


# -- what analysts expect around it: plans, downloads, freshness ---------------------------------------


def test_explain_answers_the_plan_and_profile_is_refused(world: World) -> None:
    plan = world.rows(world.bob, "EXPLAIN MATCH (r:Record {type: 'fact'}) RETURN count(r) AS n")
    assert plan["columns"] == ["operator", "details"] and plan["rows"], plan
    assert any("ProduceResults" in str(row[0]) for row in plan["rows"]), plan["rows"]
    assert plan["written_by"] == [[] for _ in plan["rows"]]
    refused = world.query(world.bob, "PROFILE MATCH (r:Record) RETURN count(r) AS n")
    assert_error(refused, 422, "memory_invalid")
    assert refused.json()["error"]["detail"] == {"cause": "profile"}
    gated = world.query(world.bob, "EXPLAIN MATCH (n) RETURN id(n)")
    assert_error(gated, 422, "memory_invalid")


def test_rows_download_as_csv_and_ndjson_with_what_they_reflect(world: World) -> None:
    statement = "MATCH (r:Record) WHERE r.title < 'c' RETURN r.title AS title, r AS node ORDER BY title"
    as_csv = world.client.post(
        f"/v1/memories/{world.root}/query",
        json={"statement": statement},
        headers={**world.bob.headers, "Accept": "text/csv"},
    )
    assert as_csv.status_code == 200 and as_csv.headers["content-type"].startswith("text/csv")
    assert as_csv.headers["UHP-Trust"] == "untrusted" and as_csv.headers["UHP-Data-Version"]
    lines = list(csv.reader(io.StringIO(as_csv.text)))
    assert lines[0] == ["title", "node"] and [line[0] for line in lines[1:]] == ["acme", "beta"]
    assert json.loads(lines[1][1])["labels"] == ["Record"], "a node is its JSON in the cell"
    as_ndjson = world.client.post(
        f"/v1/memories/{world.root}/query",
        json={"statement": statement},
        headers={**world.bob.headers, "Accept": "application/x-ndjson"},
    )
    rows = [json.loads(line) for line in as_ndjson.text.splitlines()]
    assert [row["title"] for row in rows] == ["acme", "beta"]
    records = world.client.post(
        f"/v1/memories/{world.root}/query",
        json={"statement": "MATCH (r:Record {title: 'beta'}) RETURN r"},
        headers={**world.bob.headers, "Accept": "text/csv"},
    )
    assert list(csv.reader(io.StringIO(records.text)))[1][5] == "beta", "a records answer: a row a record"


def test_an_answer_reflects_every_write_before_it_unless_staleness_is_accepted(world: World) -> None:
    count = "MATCH (r:Record {type: 'note', title: 'fresh?'}) RETURN count(r) AS n"
    before = world.rows(world.bob, count)["rows"][0][0]
    world.lab.remember(world.alice, world.child, type="note", title="fresh?", content="one more")
    answer = ok(world.query(world.bob, count, max_staleness_ms=3_600_000))
    assert answer["rows"][0][0] in (before, before + 1)
    if answer["rows"][0][0] == before:
        assert answer["data"]["stale_ms"] > 0, "a stale answer says so"
    fresh = ok(world.query(world.bob, count))
    assert fresh["rows"][0][0] == before + 1 and fresh["data"]["stale_ms"] == 0
