"""The local Neo4j manager says what to install when the JDK or Maven is missing; no network needed."""

from __future__ import annotations

import stat
from pathlib import Path

import pytest

from devtools import neo4j_server


@pytest.fixture
def bare_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An empty PATH directory (tests add fake tools to it), no JAVA_HOME, and an empty cache."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    monkeypatch.setenv("PATH", str(bin_dir))
    monkeypatch.delenv("JAVA_HOME", raising=False)
    monkeypatch.setenv("UHP_CACHE_DIR", str(tmp_path / "cache"))
    return bin_dir


def _fake_java(bin_dir: Path, version: str) -> None:
    java = bin_dir / "java"
    java.write_text(f"#!/bin/sh\necho 'openjdk version \"{version}\" 2024-01-16' >&2\n")
    java.chmod(java.stat().st_mode | stat.S_IXUSR)


def test_start_without_java_names_the_jdk(bare_path: Path, tmp_path: Path) -> None:
    home = tmp_path / "home"
    with pytest.raises(neo4j_server.LocalNeo4jError, match=r"java was not found.*JDK 17"):
        neo4j_server.start(home)
    assert not home.exists()


def test_cli_reports_missing_java_on_stderr(
    bare_path: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert neo4j_server.main(["start", "--home", str(tmp_path / "home")]) == 1
    assert "java was not found" in capsys.readouterr().err


def test_old_java_is_refused(bare_path: Path) -> None:
    _fake_java(bare_path, "11.0.22")
    with pytest.raises(neo4j_server.LocalNeo4jError, match=r"Java 11; Neo4j 5\.26\.\d+ needs JDK 17"):
        neo4j_server.java_command()


def test_fetch_without_maven_names_maven(bare_path: Path) -> None:
    _fake_java(bare_path, "17.0.15")
    with pytest.raises(neo4j_server.LocalNeo4jError, match="Maven"):
        neo4j_server.fetch()


def test_fetch_is_skipped_once_complete(bare_path: Path) -> None:
    root = neo4j_server.cache_dir()
    root.mkdir(parents=True)
    (root / ".complete").write_text(neo4j_server.NEO4J_VERSION)
    assert neo4j_server.fetch() == root / "lib"  # no java, no mvn: nothing ran


def test_empty_home_has_no_server(tmp_path: Path) -> None:
    assert neo4j_server.status(tmp_path) is None
    assert neo4j_server.stop(tmp_path) is False


def test_cache_dir_follows_uhp_cache_dir(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("UHP_CACHE_DIR", str(tmp_path))
    assert neo4j_server.cache_dir("5.26.30") == tmp_path / "neo4j-5.26.30"
