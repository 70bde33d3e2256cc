"""Every transaction on the main database is bounded: a statement past its timeout answers, never hangs."""

from __future__ import annotations

import asyncio
import secrets
import time
from collections.abc import Iterator

import pytest
from fastapi.testclient import TestClient
from neo4j import GraphDatabase

from provider.api.app import create_app
from provider.config import Settings
from provider.embeddings import OnnxEmbedder
from provider.errors import UnavailableError
from provider.store.catalogue import names
from provider.store.driver import BULK_STATEMENTS, Neo4jStore
from provider.store.files import Neo4jFileStore
from tests.conftest import Member, make_memory
from tests.support import assert_error

# Neo4j checks running transactions against their deadline every db.transaction.monitor.check.interval
# (2 s by default), so a stopped statement answers within about that much past its bound.
MONITOR_SLACK_S = 6.0


def store_with(settings: Settings, timeout_ms: int) -> Neo4jStore:
    return Neo4jStore.connect(
        settings.neo4j.uri,
        settings.neo4j.user,
        settings.neo4j.password.get_secret_value(),
        settings.neo4j.database,
        timeout_ms=timeout_ms,
        bulk_timeout_ms=timeout_ms,
    )


def test_a_slow_statement_is_stopped_at_the_timeout_with_a_clear_error(settings: Settings) -> None:
    # 100,000 digests, each looked up by a label scan (sha256 has no index): ~5 s unbounded here.
    digests = [secrets.token_hex(32) for _ in range(100_000)]

    async def main() -> tuple[UnavailableError, float]:
        store = store_with(settings, timeout_ms=1)
        try:
            started = time.perf_counter()
            with pytest.raises(UnavailableError) as raised:
                await Neo4jFileStore(store).unused_digests(digests, [])
            return raised.value, time.perf_counter() - started
        finally:
            await store.close()

    error, elapsed = asyncio.run(main())
    assert error.code == "memory_unavailable"
    assert "took too long" in error.message
    assert error.detail == {"timeout_ms": 1, "bulk_timeout_ms": 1}
    assert elapsed < MONITOR_SLACK_S, elapsed


def test_every_bulk_statement_exists_and_gets_the_longer_bound(settings: Settings) -> None:
    assert set(names()) >= BULK_STATEMENTS
    store = Neo4jStore.connect(settings.neo4j.uri, "u", "p", "neo4j", timeout_ms=10, bulk_timeout_ms=2000)
    assert {store.timeout_s(name) for name in BULK_STATEMENTS} == {2.0}
    assert store.timeout_s("memory_update") == 0.01
    assert Neo4jStore(store.driver, "neo4j").timeout_s("memory_update") is None, "the sandbox's store"
    asyncio.run(store.close())


def test_the_settings_reach_the_main_store(settings: Settings) -> None:
    tuned = settings.model_copy(update={"statement_timeout_ms": 1234, "bulk_statement_timeout_ms": 56789})
    store = Neo4jStore.from_settings(tuned)
    assert (store.timeout_ms, store.bulk_timeout_ms) == (1234, 56789)
    asyncio.run(store.close())


@pytest.fixture
def impatient(settings: Settings, embedder: OnnxEmbedder) -> Iterator[TestClient]:
    """The app with a half-second statement timeout (no query sandbox: none is needed here)."""
    tuned = settings.changed(statement_timeout_ms=500, query_sandbox=False)
    with TestClient(create_app(tuned, embedder=embedder)) as client:
        yield client


def test_a_request_stuck_behind_a_lock_answers_503_instead_of_hanging(
    client: TestClient, impatient: TestClient, settings: Settings, alice: Member
) -> None:
    memory = make_memory(client, alice, "locked")
    path, rename = f"/v1/memories/{memory['id']}", {"name": "renamed"}
    auth = (settings.neo4j.user, settings.neo4j.password.get_secret_value())
    with GraphDatabase.driver(settings.neo4j.uri, auth=auth) as driver, driver.session() as session:
        holder = session.begin_transaction()
        holder.run("MATCH (m:Memory {id: $id}) SET m.held = true", id=memory["id"]).consume()
        try:
            started = time.perf_counter()
            stuck = impatient.put(path, json=rename, headers=alice.headers)
            elapsed = time.perf_counter() - started
        finally:
            holder.rollback()
    error = assert_error(stuck, 503, "memory_unavailable")
    assert "took too long" in error["message"] and error["detail"]["timeout_ms"] == 500
    assert elapsed < MONITOR_SLACK_S, elapsed
    renamed = impatient.put(path, json=rename, headers=alice.headers)
    assert renamed.status_code == 200, renamed.text
    assert client.delete(path, headers=alice.headers).status_code == 200
