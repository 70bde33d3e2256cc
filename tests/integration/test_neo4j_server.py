"""The tests' Neo4j answers and is the pinned 5.26 line; a managed local home restarts intact."""

from __future__ import annotations

import secrets
import shutil
from pathlib import Path

import pytest
from neo4j import GraphDatabase

from devtools import neo4j_server
from tests.neo4j_target import Neo4jTarget


def test_provisioned_server_answers_return_1(neo4j_target: Neo4jTarget) -> None:
    auth = (neo4j_target.user, neo4j_target.password)
    with GraphDatabase.driver(neo4j_target.uri, auth=auth) as driver:
        records, _, _ = driver.execute_query("RETURN 1 AS one")
    assert [r["one"] for r in records] == [1]


def test_provisioned_server_is_5_26(neo4j_target: Neo4jTarget) -> None:
    version = neo4j_server.server_version(neo4j_target.uri, neo4j_target.user, neo4j_target.password)
    assert version.startswith("5.26."), neo4j_target.describe()
    assert neo4j_target.version == version


def test_local_start_returns_the_running_server(neo4j_target: Neo4jTarget) -> None:
    if neo4j_target.home is None:
        pytest.skip(f"the tests' Neo4j is not a local server ({neo4j_target.describe()})")
    again = neo4j_server.start(neo4j_target.home)
    assert (again.pid, again.uri) == (neo4j_target.pid, neo4j_target.uri)
    assert neo4j_server.status(neo4j_target.home) == again


def test_local_home_keeps_data_and_password_across_restart(tmp_path: Path) -> None:
    _require_local_runtime()
    home = tmp_path / "neo4j"
    try:
        first = neo4j_server.start(home, heap="256m", pagecache="32m")
        _run(first, "CREATE (:LocalServerProbe {home: $home})", home=str(home))
        assert neo4j_server.stop(home) is True
        assert neo4j_server.status(home) is None
        second = neo4j_server.start(home, heap="256m", pagecache="32m")
        assert second.password == first.password
        assert second.pid != first.pid
        rows = _run(second, "MATCH (p:LocalServerProbe) RETURN p.home AS home")
        assert rows == [str(home)]
    finally:
        neo4j_server.stop(home)
    assert neo4j_server.stop(home) is False
    shutil.rmtree(home)  # a data directory is worth keeping only while a failure is investigated


def test_a_home_starts_whatever_random_password_it_draws(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A token starting with "-" once made the admin tool read the password as an option and fail."""
    _require_local_runtime()
    monkeypatch.setattr(secrets, "token_urlsafe", lambda n: "-looks-like-an-option")
    home = tmp_path / "neo4j"
    try:
        server = neo4j_server.start(home, heap="256m", pagecache="32m")
        assert server.password.endswith("-looks-like-an-option")
        assert _run(server, "RETURN 1 AS one") == [1]
    finally:
        neo4j_server.stop(home)
    shutil.rmtree(home)


def _require_local_runtime() -> None:
    """Skip only where the tests' Neo4j came from elsewhere and this machine cannot run a local one."""
    try:
        neo4j_server.fetch()
        neo4j_server.java_command()
    except neo4j_server.LocalNeo4jError as e:
        pytest.skip(f"no local Neo4j runtime on this machine: {e}")


def _run(server: neo4j_server.LocalServer, query: str, **params: str) -> list[object]:
    with GraphDatabase.driver(server.uri, auth=(server.user, server.password)) as driver:
        records, _, _ = driver.execute_query(query, params)
    return [r[0] for r in records]
