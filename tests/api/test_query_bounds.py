"""The query sandbox bounds what a statement builds, survives what passes the bounds, and comes back.

Each test is one member attacking through the REST edge (or the pool itself, for what the gate
would otherwise stop first) while another member's queries on its own memory keep answering.
"""

from __future__ import annotations

import asyncio
import http.server
import threading
import time
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass
from typing import Any

import pytest
from fastapi.testclient import TestClient

from devtools.sandbox_service import LocalSandbox
from provider.api.app import create_app
from provider.config import Settings
from provider.embeddings import Embedder
from provider.errors import MemoryInvalidError
from provider.sandbox import load as sandbox_load
from provider.sandbox.pool import SandboxPool
from tests import sandboxes
from tests.api.records_support import Lab, assert_error, ok
from tests.conftest import Admin, Member

ANSWER_BYTES = 64 * 1024
DOUBLING = "RETURN size(reduce(s = 'xy', i IN range(1, 30) | s + s)) AS n"
BACK_WITHIN_S = 60.0  # the bench measures the real time; a loaded CI machine must not fail on it


@dataclass
class Pair:
    """An attacker and a victim, each with a memory of its own and one record in it."""

    client: TestClient
    sandbox: LocalSandbox
    attacker: Member
    victim: Member
    attacker_memory: str
    victim_memory: str

    def query(self, who: Member, memory: str, statement: str) -> Any:
        return self.client.post(
            f"/v1/memories/{memory}/query", json={"statement": statement}, headers=who.headers
        )

    def victim_reads(self) -> dict[str, Any]:
        answer: dict[str, Any] = ok(
            self.query(self.victim, self.victim_memory, "MATCH (r:Record) RETURN r.title AS t")
        )
        return answer

    def pool(self) -> SandboxPool:
        pool: SandboxPool = self.client.app.state.services.queries.pool  # type: ignore[attr-defined]
        return pool


@pytest.fixture(scope="module")
def own_sandbox(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LocalSandbox]:
    """A sandbox service of this module's own: its tests fill its heap and kill it."""
    with sandboxes.start(work=tmp_path_factory.mktemp("bounds-sandbox")) as service:
        yield service


@pytest.fixture(scope="module")
def bounded_client(settings: Settings, embedder: Embedder, own_sandbox: LocalSandbox) -> Iterator[TestClient]:
    """An app on that sandbox, with a small answer bound."""
    tuned = sandboxes.wired(settings, own_sandbox).changed(query_answer_bytes=ANSWER_BYTES)
    with TestClient(create_app(tuned, embedder=embedder)) as client:
        yield client


@pytest.fixture(scope="module")
def pair(bounded_client: TestClient, own_sandbox: LocalSandbox, admin: Admin) -> Iterator[Pair]:
    lab = Lab(bounded_client)
    attacker, victim = admin.member("agent"), admin.member()
    made = Pair(bounded_client, own_sandbox, attacker, victim, lab.memory(attacker), lab.memory(victim))
    lab.remember(victim, made.victim_memory, type="fact", title="victim fact", content="kept")
    lab.remember(attacker, made.attacker_memory, type="fact", title="attacker fact", content="x")
    made.victim_reads()  # the victim's copy is loaded, and the local service started
    yield made
    lab.cleanup()


def test_a_statement_that_outgrows_the_heap_fails_alone(pair: Pair) -> None:
    process = pair.sandbox.process
    refused = assert_error(pair.query(pair.attacker, pair.attacker_memory, DOUBLING), 422, "memory_invalid")
    assert refused["detail"] == {"cause": "memory"}
    assert pair.victim_reads()["rows"] == [["victim fact"]]
    assert pair.sandbox.process is process and process.poll() is None, "the service survived"
    assert pair.sandbox.restarts == 0


def test_a_huge_value_is_cut_at_the_answer_bound_while_it_is_converted(pair: Pair) -> None:
    response = pair.query(pair.attacker, pair.attacker_memory, "RETURN range(1, 5000000) AS r")
    answer = ok(response)
    assert answer["rows"] == []
    assert f"query:answer_capped_at_{ANSWER_BYTES}_bytes" in answer["degraded"]
    assert len(response.content) < ANSWER_BYTES
    assert pair.victim_reads()["rows"] == [["victim fact"]]


def test_rows_before_the_bound_are_kept_and_the_cut_is_named(pair: Pair) -> None:
    statement = "UNWIND range(1, 100) AS i RETURN i, range(1, 1000) AS r"
    answer = ok(pair.query(pair.attacker, pair.attacker_memory, statement))
    kept = [row[0] for row in answer["rows"]]
    assert 0 < len(kept) < 100 and kept == list(range(1, len(kept) + 1))
    assert f"query:answer_capped_at_{ANSWER_BYTES}_bytes" in answer["degraded"]


def test_a_killed_sandbox_is_started_again_and_answers_other_members(pair: Pair) -> None:
    """Its supervisor starts it again behind the same URL; the API's pool reconnects by itself."""
    killed = pair.sandbox.process
    pair.sandbox.kill()
    killed.wait(10)
    began = time.monotonic()
    answer: dict[str, Any] | None = None
    while answer is None and time.monotonic() - began < BACK_WITHIN_S:
        response = pair.query(pair.victim, pair.victim_memory, "MATCH (r:Record) RETURN r.title AS t")
        if response.status_code == 200:
            answer = response.json()
        else:
            assert_error(response, 503, "memory_unavailable")
            time.sleep(0.2)
    assert answer is not None and answer["rows"] == [["victim fact"]]
    assert pair.sandbox.restarts == 1 and pair.sandbox.process is not killed
    ready = pair.client.get("/readyz")
    assert ready.status_code == 200, ready.text


class Listener(http.server.BaseHTTPRequestHandler):
    """Counts every request that reaches it: none may, from a statement."""

    hits = 0

    def do_GET(self) -> None:
        Listener.hits += 1
        self.send_response(200)
        self.end_headers()
        self.wfile.write(b"a,b\n1,2\n")

    def log_message(self, *args: Any) -> None:
        return


def test_cypher_reaches_no_address_even_past_the_gate(pair: Pair) -> None:
    """The gate refuses LOAD CSV by name; beneath it the engine's blocklist refuses every address."""
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Listener)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{server.server_address[1]}/data.csv"
    gated = assert_error(
        pair.query(pair.attacker, pair.attacker_memory, f"LOAD CSV FROM '{url}' AS r RETURN r"),
        422,
        "memory_invalid",
    )
    assert gated["detail"] == {"cause": "gate"}

    service = pair.sandbox

    async def past_the_gate() -> MemoryInvalidError:
        # A pool of this loop's own on the same service: the app's belongs to the app's loop.
        pool = SandboxPool(service.url, service.token)

        def load() -> AsyncIterator[sandbox_load.Step]:
            return sandbox_load.replayed(sandbox_load.steps(sandbox_load.warm_up_projection(10)))

        scope = ("bounds-blocklist",)
        async with pool.lease(scope, sandboxes.still(scope), load, sandboxes.no_changes) as sandbox:
            with pytest.raises(MemoryInvalidError) as refused:
                await sandbox.run(f"LOAD CSV FROM '{url}' AS r RETURN r", {}, timeout_ms=5000, row_cap=10)
        await pool.close()
        return refused.value

    try:
        refused = asyncio.run(past_the_gate())
    finally:
        server.shutdown()
    assert refused.detail == {"cause": "external"}
    assert Listener.hits == 0


@pytest.mark.parametrize("environment", ["production", "development"])
def test_without_a_sandbox_url_queries_are_declared_off(
    settings: Settings, embedder: Embedder, environment: str
) -> None:
    """No JVM inside the web process: the sandbox is a service of its own, or queries are off."""
    tuned = settings.changed(environment=environment, query_sandbox_url=None)
    with TestClient(create_app(tuned, embedder=embedder)) as client:
        services = client.app.state.services  # type: ignore[attr-defined]
        assert services.queries.pool is None
        assert services.queries.capabilities() == {"queries": {"named": False}}
