"""Neo4j away and back: every route answers 503 within a bound, liveness holds, and the service recovers.

A Neo4j of its own (the shared one is never stopped), started in a pytest home and stopped, started
again on the same home, and frozen (SIGSTOP: a server that accepts connections and answers nothing).
The bounds asserted are the ones docs/OPERATIONS.md "When Neo4j is away" documents for the default settings.
"""

from __future__ import annotations

import os
import secrets
import signal
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from pydantic import SecretStr

from devtools import neo4j_server
from provider.api.app import create_app
from provider.config import Settings
from provider.embeddings import OnnxEmbedder
from tests.conftest import Admin, Member, make_memory
from tests.support import Reply, assert_error, ok

# Neo4j refusing connections: the unreachable retry budget (2 s by default) and one last attempt.
DOWN_BOUND_S = 3.0
# Back: the pool reconnects on the first request; a just-started server runs each statement slowly the
# first time (a cold JVM, an empty plan cache: seconds each on a loaded 2-core machine), and one past
# its statement timeout answers 503 "took too long", so recovery of all the routes gets this long.
UP_BOUND_S = 30.0
# Frozen: an attempt on a connection that stops answering is given up after its transaction timeout
# (10 s), the acquisition timeout (5 s) and 3 s of grace; a new connection waits at most the
# acquisition timeout. Plus a second of slack for a loaded machine.
FROZEN_BOUND_S = 10.0 + 5.0 + 3.0 + 1.0


@dataclass
class Away:
    """The dedicated server, an app on it, and what was written before anything went away."""

    home: Path
    client: TestClient
    alice: Member
    memory_id: str
    record_id: str

    def routes(self) -> dict[str, Callable[[], Reply]]:
        """One call per route the test watches, by name."""
        c, h, m = self.client, self.alice.headers, self.memory_id
        return {
            "get memory": lambda: c.get(f"/v1/memories/{m}", headers=h),
            "list records": lambda: c.get(f"/v1/memories/{m}/records", headers=h),
            "remember": lambda: c.post(f"/v1/memories/{m}/records", json={"content": "later"}, headers=h),
            "recall": lambda: c.post(f"/v1/memories/{m}/recall", json={"query": "the lighthouse"}, headers=h),
            "graph": lambda: c.post(f"/v1/memories/{m}/graph", json={}, headers=h),
            "grants": lambda: c.get(f"/v1/memories/{m}/grants", headers=h),
            "readyz": lambda: c.get("/readyz"),
        }


@pytest.fixture(scope="module")
def away(tmp_path_factory: pytest.TempPathFactory, embedder: OnnxEmbedder) -> Iterator[Away]:
    home = tmp_path_factory.mktemp("away") / "neo4j"
    server = neo4j_server.start(home, heap="256m", pagecache="32m")
    try:
        settings = Settings(
            environment="test",
            admin_key=SecretStr("adm_" + secrets.token_urlsafe(24)),
            neo4j_uri=server.uri,
            neo4j_user=server.user,
            neo4j_password=SecretStr(server.password),
            file_dir=tmp_path_factory.mktemp("away-files"),
            query_sandbox=False,
        )
        with TestClient(create_app(settings, embedder=embedder)) as client:
            alice = Admin(client=client, key=settings.admin_key.get_secret_value()).member()
            memory_id = make_memory(client, alice, "kept while away")["id"]
            body = {"content": "The lighthouse keeper logs every ship."}
            record = ok(client.post(f"/v1/memories/{memory_id}/records", json=body, headers=alice.headers))
            yield Away(home, client, alice, memory_id, record["id"])
    finally:
        neo4j_server.stop(home)


def timed(call: Callable[[], Reply]) -> tuple[Reply, float]:
    started = time.perf_counter()
    reply = call()
    return reply, time.perf_counter() - started


def assert_unavailable(away: Away, what: str, bound_s: float) -> None:
    """503 on every route within `bound_s`, 200 on /healthz at once; never a 500.

    On /v1 the envelope says memory_unavailable; /readyz says not ready, naming neo4j.
    """
    # All routes at once, each timed on its own: the bound is per route, and a frozen server would
    # otherwise cost the sum of the routes' waits (~45 s) instead of the longest one.
    routes = away.routes()
    with ThreadPoolExecutor(len(routes)) as pool:
        answers = dict(zip(routes, pool.map(timed, routes.values()), strict=True))
    took = {name: seconds for name, (_, seconds) in answers.items()}
    for name, (reply, _) in answers.items():
        if name == "readyz":
            assert reply.status_code == 503, reply.text
            assert reply.json()["status"] == "not_ready" and reply.json()["checks"]["neo4j"] is False
            assert "Neo4j does not answer" in reply.json()["not_ready"]["neo4j"]
        else:
            assert_error(reply, 503, "memory_unavailable")
    print(f"\nneo4j {what}: 503 after {fmt(took)}")
    assert max(took.values()) < bound_s, took
    healthz, seconds = timed(lambda: away.client.get("/healthz"))
    assert healthz.status_code == 200 and seconds < 1.0


def assert_answers_again(away: Away, bound_s: float) -> dict[str, float]:
    """Every route answers 200 within `bound_s` of the server answering, and the record is still there."""
    began, took = time.perf_counter(), {}
    for name, call in away.routes().items():
        while (reply := call()).status_code != 200:
            assert reply.status_code == 503, (name, reply.text)
            assert time.perf_counter() - began < bound_s, (name, reply.text)
            time.sleep(0.1)
        took[name] = time.perf_counter() - began
    kept = ok(
        away.client.get(f"/v1/memories/{away.memory_id}/records/{away.record_id}", headers=away.alice.headers)
    )
    assert kept["id"] == away.record_id
    return took


def test_neo4j_stopped_every_route_answers_503_in_bound_and_recovers(away: Away) -> None:
    assert_answers_again(away, UP_BOUND_S)  # all well before
    assert neo4j_server.stop(away.home) is True
    try:
        assert_unavailable(away, "stopped", DOWN_BOUND_S)
    finally:
        neo4j_server.start(away.home, heap="256m", pagecache="32m")
    up = assert_answers_again(away, UP_BOUND_S)
    print(f"neo4j back: 200 after {fmt(up)}")


def test_neo4j_frozen_every_route_answers_503_in_bound_and_recovers(away: Away) -> None:
    assert_answers_again(away, UP_BOUND_S)
    server = neo4j_server.status(away.home)
    assert server is not None
    os.kill(server.pid, signal.SIGSTOP)  # the server this module started, by its pid
    try:
        assert_unavailable(away, "frozen", FROZEN_BOUND_S)
    finally:
        os.kill(server.pid, signal.SIGCONT)
    up = assert_answers_again(away, UP_BOUND_S)
    print(f"neo4j thawed: 200 after {fmt(up)}")


def fmt(times: dict[str, float]) -> str:
    return ", ".join(f"{name} {seconds:.2f} s" for name, seconds in times.items())
