"""Non-interference: what a query answers depends on what the caller may read and on nothing else.

Two fixtures, A and B, are identical in everything the caller may read and different in everything
it may not: the unreadable records' content, their number, their attributes (so property names),
their embeddings, references from unreadable records into readable ones, extra unreadable memories
and grants. Every statement below, adversarial by design, must give A and B the same output: rows,
error codes and messages, `degraded`, all of it, byte for byte.

Why the same ids, and how. A placeholder pass over differing ids would also paper over an id that
leaked; so A and B are built with the *same* ids and the *same* timestamps, written straight through
the store (the API mints fresh ids and stamps the clock). They live in the same database one after
the other: A is built, queried and deleted, then B is built with the same ids and queried. The
caller is the same member for both.

Why each fixture starts from a pristine sandbox. A sandbox's internal ids, tokens and counters carry
its history; the pool never lets one scope see another's history (a pristine store before another
scope). Here both fixtures' sandboxes start from the same template and see the same sequence of
loads and statements, so the only thing that can differ between the two runs is what was loaded
from the main database: exactly the property under test. B's fingerprint equals A's (it is a
function of readable data only, which is itself checked); B is still loaded from the main database,
not served from A's cache, because the pool is recycled in between (and the load count proves it).

The suite runs twice per fixture: with the gate, and with the gate off (the statement reaches the
sandbox as written: the container alone must hold).
"""

from __future__ import annotations

import asyncio
import hashlib
import random
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import pytest

from provider.config import Settings
from provider.errors import ProviderError
from provider.models import Caller, FreeQuery, NewMemory, RecallAnswer, RecordVersion, UsageLimits, Writer
from provider.protocol.answers.queries import query_answer
from provider.protocol.errors import envelope
from provider.sandbox.pool import SandboxPool
from provider.services.queries.service import QueryService
from provider.services.records.references import ReferenceResolver
from provider.services.tree.memories import TreeService
from provider.store.driver import Neo4jStore
from provider.store.grants import Neo4jGrantStore
from provider.store.memories import Neo4jMemoryStore
from provider.store.named_queries import Neo4jNamedQueryStore
from provider.store.principals import Neo4jPrincipalStore
from provider.store.projection import Neo4jProjectionStore
from provider.store.recall import Neo4jRecallStore
from provider.store.records import Neo4jRecordStore
from provider.store.usage import Neo4jUsageStore

RUN = uuid.uuid4().hex[:8]
T0 = 1_790_000_000_000
DIMENSION = 384
OWNER = "member:hmbr_" + "0" * 32
CALLER_ID = "hmbr_" + hashlib.sha256(f"caller{RUN}".encode()).hexdigest()[:32]


def mid(name: str) -> str:
    return "hmem_" + hashlib.sha256(f"{RUN}:memory:{name}".encode()).hexdigest()[:32]


def rid(name: str) -> str:
    return "hrec_" + hashlib.sha256(f"{RUN}:record:{name}".encode()).hexdigest()[:32]


VECTOR = [round(0.01 * (i % 17) - 0.08, 3) for i in range(DIMENSION)]
STATEMENTS: list[tuple[str, dict[str, Any]]] = [
    # counting everything there is
    ("MATCH (n) RETURN count(n) AS n", {}),
    ("MATCH (n) RETURN labels(n)[0] AS label, count(*) AS n ORDER BY label", {}),
    ("MATCH ()-[r]->() RETURN type(r) AS type, count(*) AS n ORDER BY type", {}),
    ("MATCH ()-->() RETURN count(*) AS n", {}),
    ("MATCH ()--() RETURN count(*) AS n", {}),
    ("MATCH (n) UNWIND keys(n) AS k RETURN k, count(*) AS n ORDER BY k", {}),
    ("MATCH (r:Record) RETURN count(*) AS n, sum(r.`attr.n`) AS total, max(r.written_at) AS last, "
     "collect(r.title) AS titles", {}),
    # anonymous and relationship-only patterns
    ("MATCH ()-[e:REFERENCES]->() RETURN e.rel AS rel, e.position AS pos ORDER BY rel, pos", {}),
    ("MATCH ()<-[:IN]-() RETURN count(*) AS n", {}),
    ("MATCH (n) WHERE NOT (n)--() RETURN labels(n)[0] AS label, count(*) AS n ORDER BY label", {}),
    # variable-length, quantified and shortest paths
    ("MATCH (a)-[*]->(b) RETURN count(*) AS n", {}),
    ("MATCH (a:Record)-[:REFERENCES*1..6]->(b) RETURN a.title AS a, coalesce(b.title, b.id) AS b "
     "ORDER BY a, b", {}),
    ("MATCH (a:Record) ((x)-[:REFERENCES]->(y)){1,4} (b) RETURN count(*) AS n", {}),
    ("MATCH p = (:Memory)((a)<-[:IN|REFERENCES]-(b))+ RETURN max(length(p)) AS longest, count(p) AS n", {}),
    ("MATCH p = shortestPath((a:Record {title: 'alpha'})-[*]-(b:Unavailable)) RETURN length(p) AS hops, "
     "b.id AS target ORDER BY hops, target", {}),
    ("MATCH p = allShortestPaths((a:Memory)-[*]-(b:Memory)) WHERE a.name < b.name "
     "RETURN a.name AS a, b.name AS b, length(p) AS hops ORDER BY a, b", {}),
    ("MATCH p = ANY SHORTEST (a:Record)-[:REFERENCES]-+(b:Unavailable) "
     "RETURN a.title AS a, length(p) AS hops ORDER BY a, hops", {}),
    # OPTIONAL MATCH, UNION, CALL subqueries, EXISTS / COUNT / COLLECT, pattern comprehensions
    ("MATCH (r:Record) OPTIONAL MATCH (r)-[:REFERENCES]->(t) RETURN r.title AS r, labels(t) AS t "
     "ORDER BY r, t", {}),
    ("MATCH (m:Memory) RETURN m.name AS x UNION MATCH (r:Record) RETURN r.title AS x", {}),
    ("MATCH (m:Memory) RETURN m.id AS x UNION ALL MATCH (u:Unavailable) RETURN u.id AS x", {}),
    ("CALL () { MATCH (n) RETURN count(n) AS c } RETURN c", {}),
    ("MATCH (m:Memory) CALL (m) { MATCH (r)-[:IN]->(m) RETURN count(r) AS n } RETURN m.name AS m, n "
     "ORDER BY m", {}),
    ("MATCH (r:Record) WHERE EXISTS { (r)-[:REFERENCES]->(:Unavailable) } RETURN r.title AS t "
     "ORDER BY t", {}),
    ("MATCH (m:Memory) RETURN m.name AS m, COUNT { (m)<-[:IN]-() } AS n ORDER BY m", {}),
    ("MATCH (m:Memory) RETURN m.name AS m, "
     "COLLECT { MATCH (m)<-[:IN]-(r) RETURN r.title ORDER BY r.title } AS t ORDER BY m", {}),
    ("MATCH (r:Record) RETURN r.title AS t, [(r)-->(x) | labels(x)[0]] AS out, "
     "[(r)<--(x) | labels(x)[0]] AS inn ORDER BY t", {}),
    # startNode / endNode, label expressions, properties of the stubs
    ("MATCH ()-[e]->() RETURN labels(startNode(e))[0] AS s, labels(endNode(e))[0] AS t, count(*) AS n "
     "ORDER BY s, t", {}),
    ("MATCH (n:!Record&!Memory) RETURN labels(n) AS l, properties(n) AS p ORDER BY p.id", {}),
    ("MATCH (n:Record|Unavailable) RETURN count(n) AS n", {}),
    ("MATCH (n:%) RETURN count(n) AS n", {}),
    ("MATCH (n:Grant|Member|Group|ApiKey|RecordVersion|NamedQuery|Snapshot) RETURN count(n) AS n", {}),
    # reaching for what is not there: ids, other memories, other properties, other words
    ("MATCH (m:Memory {id: $hidden}) RETURN m", {"hidden": mid("cut")}),
    ("MATCH (r:Record) WHERE r.memory_id = $hidden RETURN count(r) AS n", {"hidden": mid("cut")}),
    ("MATCH (n) WHERE n.`attr.salary` IS NOT NULL OR n.`attr.secret` IS NOT NULL RETURN count(n) AS n", {}),
    ("MATCH (n) WHERE n.text CONTAINS 'vault' OR n.title CONTAINS 'secret' RETURN count(n) AS n", {}),
    ("MATCH (n) WHERE elementId(n) = $eid RETURN n", {"eid": "4:00000000-0000-0000-0000-000000000000:3"}),
    ("MATCH (n) WHERE id(n) IN range(0, 100000) RETURN count(n) AS n", {}),
    ("MATCH (n) RETURN id(n) AS i, labels(n)[0] AS l ORDER BY i", {}),
    ("MATCH (n) RETURN elementId(n) AS e ORDER BY e LIMIT 3", {}),
    # indexes: the copy's own full text, the main database's vector index
    ("CALL db.index.fulltext.queryNodes('record_words', 'alpha OR vault OR secret OR salary') "
     "YIELD node, score RETURN node.title AS t, round(score, 6) AS s ORDER BY s DESC, t", {}),
    ("CALL db.index.vector.queryNodes('record_embedding', 5, $v) YIELD node, score "
     "RETURN node.title AS t", {"v": VECTOR}),
    ("MATCH (r:Record) WHERE r.embedding IS NOT NULL RETURN count(r) AS n", {}),
    # oracles: division by zero, type errors, timing
    ("MATCH (r:Record) WHERE 1 / (r.`attr.n` - 7) > 0 RETURN count(r) AS n", {}),
    ("MATCH (r:Record) RETURN r.title AS t, 10 / (r.`attr.n` - 3) AS q ORDER BY t", {}),
    ("MATCH (r:Record) RETURN r.title - r.`attr.n` AS x", {}),
    ("MATCH (r:Record) WHERE r.title = 'alpha' RETURN date(r.text) AS d", {}),
    ("MATCH (a), (b), (c), (d), (e), (f), (g), (h) WHERE a <> b AND c <> d AND e <> f AND g <> h "
     "RETURN count(*) AS n", {}),
    ("UNWIND range(1, 3000) AS x RETURN x", {}),
    # answers in records: hydrated from the main store with the reader's privileges
    ("MATCH (r:Record) RETURN r ORDER BY r.title", {}),
    ("MATCH (r:Record)-[:REFERENCES]->(:Unavailable) RETURN r ORDER BY r.title", {}),
    ("MATCH (m:Memory) RETURN m ORDER BY m.name", {}),
    ("MATCH (m:Memory)-[:CHILD_OF*]->(p) RETURN m.name AS m, p.name AS p ORDER BY m, p", {}),
    # every forbidden construct of the gate
    ("LOAD CSV FROM 'file:///etc/passwd' AS line RETURN line", {}),
    ("LOAD CSV FROM 'http://127.0.0.1:9/x.csv' AS line RETURN line", {}),
    ("USE system SHOW USERS", {}),
    ("USE neo4j MATCH (n) RETURN count(n) AS n", {}),
    ("CALL () { MATCH (n) RETURN n } IN TRANSACTIONS OF 2 ROWS RETURN count(*) AS n", {}),
    ("SHOW TRANSACTIONS YIELD currentQuery, status", {}),
    ("SHOW INDEXES YIELD name, type, labelsOrTypes, properties RETURN name, type, labelsOrTypes, properties "
     "ORDER BY name", {}),
    ("SHOW USERS", {}),
    ("SHOW DATABASES YIELD name RETURN name ORDER BY name", {}),
    ("CREATE INDEX probe IF NOT EXISTS FOR (n:Record) ON (n.title)", {}),
    ("DROP INDEX record_words", {}),
    ("CREATE USER probe SET PASSWORD 'probe-password-1'", {}),
    ("ALTER CURRENT USER SET PASSWORD FROM 'x' TO 'probe-password-2'", {}),
    ("CREATE (n:Record {title: 'injected'}) RETURN n.title AS t", {}),
    ("MATCH (r:Record) SET r.title = 'changed' RETURN count(r) AS n", {}),
    ("MATCH (n) DETACH DELETE n", {}),
    ("MERGE (m:Memory {id: $hidden}) RETURN m.id AS id", {"hidden": mid("cut")}),
    ("FOREACH (x IN [1] | CREATE (:Probe))", {}),
    ("USING PERIODIC COMMIT 10 LOAD CSV FROM 'file:///x' AS l RETURN l", {}),
    ("CALL db.labels() YIELD label RETURN label ORDER BY label", {}),
    ("CALL db.propertyKeys() YIELD propertyKey RETURN propertyKey ORDER BY propertyKey", {}),
    ("CALL db.relationshipTypes() YIELD relationshipType "
     "RETURN relationshipType ORDER BY relationshipType", {}),
    ("CALL db.stats.retrieve('GRAPH COUNTS') YIELD data RETURN data.nodes AS nodes", {}),
    ("CALL dbms.queryJmx('org.neo4j:*') YIELD name RETURN count(name) AS n", {}),
    ("CALL db.createLabel('Probe')", {}),
    ("CALL dbms.components() YIELD versions RETURN versions", {}),
    ("RETURN db.nameFromElementId($eid) AS db", {"eid": "4:00000000-0000-0000-0000-000000000000:3"}),
    ("CYPHER runtime=slotted MATCH (n) RETURN count(n) AS n", {}),
    ("MATCH (n) RETURN count(n) AS n; MATCH (m) RETURN m", {}),
]  # fmt: skip


@dataclass
class Spec:
    """A record to write: its memory, fields and references (by record name)."""

    name: str
    memory: str
    title: str
    text: str
    kind: str = "fact"
    attributes: dict[str, Any] = field(default_factory=dict)
    refs: list[tuple[str, str]] = field(default_factory=list)
    forgotten: bool = False


READABLE = [
    Spec("alpha", "top", "alpha", "Alpha renews in March.", attributes={"n": 7, "team": "sales"},
         refs=[("about", "beta"), ("subject", "target")]),
    Spec("beta", "top", "beta", "Beta ships in May.", "note", {"n": 3}),
    Spec("gamma", "top", "gamma", "Gamma was paused.", attributes={"n": 1, "tags": ["x", "y"]},
         refs=[("derived_from", "alpha"), ("object", "cutrec")]),
    Spec("delta", "child", "delta", "Delta owes an invoice.", "note", {"n": 0}, [("about", "gamma")]),
    Spec("epsilon", "child", "epsilon", "Epsilon was forgotten.", attributes={"n": 5}, forgotten=True),
    Spec("zeta", "granted", "zeta", "Zeta sits inside the cut branch, granted directly.", attributes={"n": 9},
         refs=[("part_of", "alpha"), ("about", "cutrec")]),
    Spec("eta", "granted", "eta", "Eta references zeta.", "procedure", {"n": 2}, [("about", "zeta")]),
]  # fmt: skip


def unreadable(variant: str) -> list[Spec]:
    """The records the caller may not read: same ids for the two stubbed targets, all else varies."""
    if variant == "A":
        return [
            Spec("target", "outside", "vault", "The vault code is 4471.", attributes={"secret": 1}),
            Spec("cutrec", "cut", "cut secret", "Cut branch secret alpha.", attributes={"secret": 2}),
            Spec("cut2", "cut", "cut two", "Another cut record."),
        ]
    specs = [
        Spec("target", "outside", "other vault", "A different secret, salary 90k.", "note",
             {"salary": 90000}),
        Spec("cutrec", "cut", "cut secret b", "Completely different words here.",
             attributes={"n": 7, "salary": 1}, refs=[("about", "alpha"), ("about", "beta")]),
    ]  # fmt: skip
    specs += [
        Spec(
            f"cutb{i}", "cut", f"cut b {i}", f"secret {i} of B", attributes={"n": i}, refs=[("about", "beta")]
        )
        for i in range(8)
    ]
    specs += [
        Spec(f"extra{i}", "extra", f"extra {i}", "vault salary secret", refs=[("about", "gamma")])
        for i in range(6)
    ]
    return specs


def creation_order(specs: list[Spec]) -> list[Spec]:
    """Each record after the records it references (a reference to a record not yet written is dropped)."""
    done: list[Spec] = []
    while len(done) < len(specs):
        names = {d.name for d in done}
        ready = [s for s in specs if s not in done and all(t in names for _, t in s.refs)]
        assert ready, "the fixture's references form a cycle"
        done.append(ready[0])
    return done


class Fixture:
    """Writes a variant through the store with fixed ids and times; deletes it again."""

    def __init__(self, store: Neo4jStore, variant: str):
        self.store, self.variant = store, variant
        usage = Neo4jUsageStore(store, UsageLimits())
        self.memories = Neo4jMemoryStore(store, usage)
        self.records = Neo4jRecordStore(store, usage)
        self.grants = Neo4jGrantStore(store)
        self.rng = random.Random(variant)

    async def build(self) -> None:
        await self._memory("top", None, restricted=False)
        await self._memory("child", "top", restricted=False)
        await self._memory("cut", "top", restricted=True)
        await self._memory("granted", "cut", restricted=False)
        await self._memory("outside", None, restricted=False)
        if self.variant == "B":
            await self._memory("extra", "cut", restricted=False)
            await self.grants.put(mid("cut"), "group:hgrp_" + "1" * 32, ["read", "write"], "hgrt_b" + RUN, T0)
        for name in ("top", "granted"):
            await self.grants.put(mid(name), f"member:{CALLER_ID}", ["read"], f"hgrt_{name}{RUN}", T0)
        for i, spec in enumerate(creation_order(READABLE + unreadable(self.variant))):
            await self._record(spec, T0 + 1000 * (i + 1))

    async def _memory(self, name: str, parent: str | None, *, restricted: bool) -> None:
        description = f"{name} ({self.variant})" if name in ("cut", "outside", "extra") else f"{name} memory"
        await self.memories.create(NewMemory(
            id=mid(name), name=name if name not in ("cut", "outside") else f"{name}-{self.variant}",
            description=description, parent_id=mid(parent) if parent else None, restricted=restricted,
            provider=None, default_provider="neo4j", grant_id=f"hgrt_own{name}{RUN}", creator=OWNER, now=T0,
        ))  # fmt: skip

    async def _record(self, spec: Spec, at: int) -> None:
        located = {
            **{s.name: s.memory for s in READABLE},
            **{s.name: s.memory for s in unreadable(self.variant)},
        }
        references = [{"rel": rel, "memory_id": mid(located[t]), "record_id": rid(t)} for rel, t in spec.refs]
        version = RecordVersion(
            record_id=rid(spec.name), memory_id=mid(spec.memory), type=spec.kind, title=spec.title,
            content=[{"type": "text", "text": spec.text}], attributes=spec.attributes, references=references,
            version=1, status="active", supersedes=None, valid_from=None, valid_to=None, written_at=at,
            invalidated_at=None, superseded_at=None, forgotten_at=None,
            writer=Writer(kind="member", id="hmbr_" + "2" * 32, type="human"),
        )  # fmt: skip
        readable = spec in READABLE
        embedding = VECTOR if readable else [self.rng.uniform(-1, 1) for _ in range(DIMENSION)]
        assert await self.records.create(version, f"{spec.title}\n{spec.text}", {"embedding": embedding})
        if spec.forgotten:
            await self.records.forget(mid(spec.memory), rid(spec.name), at + 500)

    async def delete(self) -> None:
        for name in ("top", "outside"):
            await self.memories.delete(mid(name))

    async def stored_records(self) -> int:
        """How many records the fixture holds in the main database, readable or not."""
        ids = [mid(n) for n in ("top", "child", "cut", "granted", "outside", "extra")]
        rows = await self.store.read("projection_version", scope=ids)
        return sum(int(r["records"]) for r in rows)


def rendered(outcome: RecallAnswer | Any) -> dict[str, Any]:
    """The answer as sent, less `data`: its version names the copy's key and its instant the clock."""
    answer = query_answer(outcome).wire()
    answer.pop("data", None)
    return answer


async def answers(service: QueryService, caller: Caller) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = []
    for statement, params in STATEMENTS:
        try:
            found.append(rendered(await service.free(caller, mid("top"), FreeQuery(statement, params))))
        except ProviderError as e:
            found.append(envelope(e, "-"))
    return found


@dataclass
class Run:
    """What each fixture answered, with and without the gate, and what the pool did."""

    outputs: dict[tuple[str, bool], list[dict[str, Any]]] = field(default_factory=dict)
    versions: dict[str, tuple[Any, ...]] = field(default_factory=dict)
    stored: dict[str, int] = field(default_factory=dict)
    loads: dict[str, int] = field(default_factory=dict)


async def run_both(settings: Settings) -> Run:
    store = Neo4jStore.connect(
        settings.neo4j.uri, settings.neo4j.user, settings.neo4j.password.get_secret_value(), "neo4j"
    )
    assert settings.query.sandbox_url is not None, "the session's sandbox service"
    pool = SandboxPool(settings.query.sandbox_url, settings.query.sandbox_token.get_secret_value())
    usage = Neo4jUsageStore(store, UsageLimits())
    tree = TreeService(Neo4jMemoryStore(store, usage), "neo4j")
    stores = (Neo4jProjectionStore(store), Neo4jNamedQueryStore(store), Neo4jRecallStore(store))
    references = ReferenceResolver(tree, Neo4jRecordStore(store, usage))
    caller = Caller(member_id=CALLER_ID, member_type="human")
    run = Run()
    try:
        await Neo4jPrincipalStore(store).create_member(CALLER_ID, "human", "non-interference", T0)
        for variant in ("A", "B"):
            fixture = Fixture(store, variant)
            await fixture.build()
            # Fresh services per fixture: nothing one run remembered (a vetted plan) shapes the other.
            gated, open_ = (
                QueryService(
                    tree,
                    stores,
                    references,
                    pool,
                    limits=settings.query,
                    subtree_cap=settings.subtree_cap,
                    gate=gate,
                    prestart=False,
                )
                for gate in (True, False)
            )
            try:
                await pool.recycle_all()
                loads = pool.stats.loads
                run.stored[variant] = await fixture.stored_records()
                version = await stores[0].version(sorted([mid("top"), mid("child"), mid("granted")]))
                run.versions[variant] = (version.memory_ids, version.seqs, version.shape, version.records)
                run.outputs[(variant, True)] = await answers(gated, caller)
                run.outputs[(variant, False)] = await answers(open_, caller)
                run.loads[variant] = pool.stats.loads - loads
            finally:
                await fixture.delete()
    finally:
        await pool.close()
        await store.close()
    return run


@pytest.fixture(scope="module")
def both(settings: Settings) -> Iterator[Run]:
    yield asyncio.run(run_both(settings))


def test_there_are_enough_adversarial_statements() -> None:
    assert len(STATEMENTS) >= 40


def test_the_fixtures_differ_where_the_caller_cannot_read(both: Run) -> None:
    assert both.stored["A"] != both.stored["B"]
    assert both.versions["A"] == both.versions["B"]
    # At least one load each: B's copy came from the main database, not from A's (equal) cache key.
    assert both.loads["A"] >= 1 and both.loads["B"] >= 1


def test_the_answers_are_about_the_readable_data(both: Run) -> None:
    """Not two empty answers agreeing: the copy holds the readable scope, and the gate-off run reached it."""
    gated, opened = both.outputs[("A", True)], both.outputs[("A", False)]
    assert gated[0]["rows"] == [[3 + len(READABLE) + 2]]  # top, child, granted; the records; two stubs
    assert gated[1]["rows"] == [["Memory", 3], ["Record", len(READABLE)], ["Unavailable", 2]]
    refused = [i for i, o in enumerate(gated) if (o.get("error") or {}).get("detail") == {"cause": "gate"}]
    assert len(refused) >= 30
    assert all("error" not in opened[i] or opened[i]["error"]["detail"] != {"cause": "gate"} for i in refused)
    labels = STATEMENTS.index(("CALL db.labels() YIELD label RETURN label ORDER BY label", {}))
    assert opened[labels]["rows"] == [["Memory"], ["Record"], ["Unavailable"]]
    timed = [o for o in gated if o.get("degraded") == ["query:timeout_2000ms"]]
    assert len(timed) == 1


@pytest.mark.parametrize("gate", [True, False], ids=["gate", "no_gate"])
@pytest.mark.parametrize("index", range(len(STATEMENTS)), ids=[f"s{i:02d}" for i in range(len(STATEMENTS))])
def test_a_and_b_answer_alike(both: Run, index: int, gate: bool) -> None:
    statement = STATEMENTS[index][0]
    assert both.outputs[("A", gate)][index] == both.outputs[("B", gate)][index], statement
