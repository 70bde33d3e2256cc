"""A copy brought up to date answers exactly as a fresh copy of the same data (issue 49).

Random write sequences (remember with attributes and references, revise, forget, erase, a grant
revoked and given again) run over HTTP while bob asks; after each write bob's answer, from the copy
the service brought up to date (or loaded anew, for what a copy is never brought past), is compared
with a fresh copy loaded from the main database under a key of the test's own, statement by
statement. Seeded, so a failure names the sequence that shows it.
"""

from __future__ import annotations

import random
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import pytest
from fastapi.testclient import TestClient

from provider import access
from provider.api.app import create_app
from provider.config import Settings
from provider.embeddings import Embedder
from provider.sandbox import load as sandbox_load
from tests.api.lifecycle_support import erase
from tests.api.records_support import Lab, caller_of, ok
from tests.conftest import Admin, Member

STATEMENTS = (
    "MATCH (r:Record) "
    "RETURN r.id AS id, r.status AS s, r.version AS v, r.title AS t, r.text AS x, r.type AS k ORDER BY id",
    # keys() comes in the store's order, which a copy brought up to date need not share with a fresh one.
    "MATCH (r:Record) UNWIND keys(r) AS k WITH r.id AS id, k, r[k] AS v ORDER BY id, k "
    "RETURN id, collect([k, v]) AS props ORDER BY id",
    "MATCH (r:Record)-[e:REFERENCES]->(t) "
    "RETURN r.id AS f, e.rel AS rel, e.position AS p, labels(t) AS l, t.id AS to ORDER BY f, p, to",
    "MATCH (u:Unavailable) RETURN u.id AS id ORDER BY id",
    "MATCH (r:Record)-[:IN]->(m:Memory) RETURN m.id AS m, r.status AS s, count(r) AS n ORDER BY m, s",
    "MATCH (n) RETURN labels(n) AS l, count(*) AS n ORDER BY l",
    "CALL db.index.fulltext.queryNodes('record_words', 'alpha OR bravo OR charlie') YIELD node "
    "RETURN node.id AS id ORDER BY id",
)
WORDS = ("alpha", "bravo", "charlie", "delta", "echo")
SEQUENCES = 3
STEPS = 10


@dataclass
class Scene:
    client: TestClient
    lab: Lab
    alice: Member
    bob: Member
    root: str
    child: str
    hidden: str
    hidden_records: list[str] = field(default_factory=list)


@pytest.fixture(scope="module")
def live_client(settings: Settings, embedder: Embedder) -> Iterator[TestClient]:
    with TestClient(create_app(settings, embedder=embedder)) as client:
        yield client


@pytest.fixture
def scene(live_client: TestClient, admin: Admin) -> Iterator[Scene]:
    lab = Lab(live_client)
    alice, bob = admin.member(), admin.member("agent")
    root = lab.memory(alice)
    found = Scene(live_client, lab, alice, bob, root, lab.memory(alice, parent_id=root), lab.memory(alice))
    lab.grant(alice, root, bob, "read")
    found.hidden_records.append(
        lab.remember(alice, found.hidden, title="hidden", content="alpha hidden")["id"]
    )
    yield found
    lab.cleanup()


def fresh_answers(scene: Scene) -> list[list[Any]]:
    """Each statement's rows on a copy loaded now from the main database, under a key of our own."""
    services = scene.client.app.state.services  # type: ignore[attr-defined]
    queries = services.queries

    async def run() -> list[list[Any]]:
        reach = await services.tree.readable_scope(caller_of(scene.bob), scene.root, None)
        scope = sorted(access.scope_for(reach, None, 5000).memory_ids)
        projection = await queries.projections.read(scope)
        client = await queries.pool.client()
        key = "fresh-" + uuid.uuid4().hex
        await client.put(key, sandbox_load.schema_statements(), sandbox_load.steps(projection))
        try:
            found = []
            for statement in STATEMENTS:
                found.append((await client.run(key, statement, {}, timeout_ms=10_000, row_cap=10_000)).rows)
            return found
        finally:
            await client.delete(key)

    assert scene.client.portal is not None
    return scene.client.portal.call(run)


def live_answers(scene: Scene) -> list[list[Any]]:
    found = []
    for statement in STATEMENTS:
        reply = scene.client.post(
            f"/v1/memories/{scene.root}/query", json={"statement": statement}, headers=scene.bob.headers
        )
        found.append(ok(reply)["rows"])
    return found


class Writer:
    """Random writes into the scene: what exists, and one step at a time."""

    def __init__(self, scene: Scene, rng: random.Random):
        self.scene, self.rng = scene, rng
        self.records: dict[str, str] = {}  # id → memory, in the order written (ids are random)
        self.forgotten: set[str] = set()
        self.grant: str | None = None
        self.cut = False  # whether the child is cut off (restricted): bob's scope is the root alone

    def text(self) -> str:
        return " ".join(self.rng.choice(WORDS) for _ in range(3))

    def references(self) -> list[dict[str, Any]]:
        pool = [*self.records, *self.scene.hidden_records]  # in the order written: the seed decides
        picked = self.rng.sample(pool, k=min(len(pool), self.rng.randint(0, 2)))
        return [{"rel": self.rng.choice(("derived_from", "about")), "record_id": r} for r in picked]

    def step(self) -> str:
        s, rng = self.scene, self.rng
        choices = (
            ["remember"] * 3 + (["revise", "forget", "erase"] if self.records else []) + ["grant", "cutoff"]
        )
        what = rng.choice(choices)
        if what == "remember":
            memory = rng.choice((s.root, s.child))
            body: dict[str, Any] = {
                "title": self.text(),
                "content": self.text(),
                "references": self.references(),
            }
            if rng.random() < 0.5:
                body["attributes"] = {"stage": rng.randint(1, 3), rng.choice(("a", "b")): self.text()}
            self.records[s.lab.remember(s.alice, memory, **body)["id"]] = memory
        elif what == "revise":
            record, memory = rng.choice(list(self.records.items()))
            changes: dict[str, Any] = {"content": self.text(), "references": self.references()}
            if rng.random() < 0.5:
                changes["attributes"] = {"stage": rng.randint(1, 3)}
            reply = s.lab.patch(s.alice, memory, record, changes)
            forgotten = record in self.forgotten and reply.status_code == 422
            assert reply.status_code in (200, 409) or forgotten, reply.text
        elif what == "forget":
            record, memory = rng.choice(list(self.records.items()))
            s.lab.delete(s.alice, memory, record)
            self.forgotten.add(record)
        elif what == "erase":
            record, memory = rng.choice(list(self.records.items()))
            erased = erase(s.lab, s.alice, memory, record)["erased"]
            for gone in erased:
                self.records.pop(gone, None)
        elif what == "cutoff":
            self.cut = not self.cut
            changed = {"restricted": self.cut}
            ok(s.client.put(f"/v1/memories/{s.child}", json=changed, headers=s.alice.headers))
        else:
            self.toggle_grant()
        return what

    def toggle_grant(self) -> None:
        """Bob's grant on the root revoked (he has no copy to ask), or given again."""
        s = self.scene
        grants = f"/v1/memories/{s.root}/grants"
        if self.grant is None:
            listed = ok(s.client.get(grants, headers=s.alice.headers))["data"]
            mine = [g for g in listed if g["principal"] == s.bob.principal]
            ok(s.client.delete(f"{grants}/{mine[0]['id']}", headers=s.alice.headers))
            self.grant = "revoked"
        else:
            ok(
                s.client.post(
                    grants,
                    json={"principal": s.bob.principal, "privileges": ["read"]},
                    headers=s.alice.headers,
                )
            )
            self.grant = None


@pytest.mark.parametrize("seed", range(SEQUENCES))
def test_a_copy_brought_up_to_date_answers_as_a_fresh_one(scene: Scene, seed: int) -> None:
    writer = Writer(scene, random.Random(seed))
    pool = scene.client.app.state.services.queries.pool  # type: ignore[attr-defined]
    applies = pool.stats.applies
    done: list[str] = []
    for _ in range(STEPS):
        done.append(writer.step())
        if writer.grant == "revoked":
            reply = scene.client.post(
                f"/v1/memories/{scene.root}/query", json={"statement": "RETURN 1"}, headers=scene.bob.headers
            )
            assert reply.status_code == 404, "a revoked reader has no copy to ask"
            continue
        assert live_answers(scene) == fresh_answers(scene), f"after {done}"
    assert pool.stats.applies > applies or "remember" not in done, "the held copy was brought up to date"


def test_a_scope_past_the_cap_is_refused_before_anything_is_loaded(
    settings: Settings, embedder: Embedder, admin: Admin
) -> None:
    capped = settings.changed(query_max_records=2)
    with TestClient(create_app(capped, embedder=embedder)) as client:
        lab = Lab(client)
        alice = admin.member()
        memory = lab.memory(alice)
        try:
            for n in range(3):
                lab.remember(alice, memory, content=f"note {n}")
            pool = client.app.state.services.queries.pool  # type: ignore[attr-defined]
            loads = pool.stats.loads
            reply = client.post(
                f"/v1/memories/{memory}/query", json={"statement": "RETURN 1"}, headers=alice.headers
            )
            assert reply.status_code == 422 and reply.json()["error"]["code"] == "memory_unsupported"
            assert reply.json()["error"]["detail"] == {"records": 3, "max_records": 2}
            assert "UHP_QUERY_MAX_RECORDS" in reply.json()["error"]["message"]
            assert pool.stats.loads == loads
        finally:
            lab.cleanup()
