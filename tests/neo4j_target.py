"""The Neo4j the tests and benchmarks run against: NEO4J_URI, else a testcontainer, else a local server.

Tests never skip for want of a database: this either returns one that answered a probe or raises
an error naming the fix. Every step is bounded in time, so a run cannot hang here.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal, TypeVar

from devtools import neo4j_server

Source = Literal["env", "testcontainers", "local"]
IMAGE = "neo4j:5.26-community"
PROBE_SECONDS = 10.0
DOCKER_SECONDS = 5.0
CONTAINER_SECONDS = 180.0
T = TypeVar("T")

FIX = (
    "no Neo4j for the tests. Either set NEO4J_URI (with NEO4J_USER, NEO4J_PASSWORD) to a Neo4j 5.26,"
    " or install JDK 17+ and Maven so a local server can be fetched and started, or run `bash scripts/test`,"
    " which checks both before the tests"
)


@dataclass
class Neo4jTarget:
    """Where the tests' Neo4j is, what it is, and how to give it back."""

    uri: str
    user: str
    password: str = field(repr=False)
    version: str
    source: Source
    edition: str = "community"
    home: Path | None = None  # the local server's home, when source == "local"
    pid: int | None = None  # the local server's JVM, when source == "local"
    start_seconds: float | None = None  # from start() to answering, when source == "local"
    _close: Callable[[], None] | None = field(default=None, repr=False)

    def describe(self) -> str:
        """One line naming the server, e.g. "neo4j: 5.26.30 community (local, bolt://127.0.0.1:41234)"."""
        return f"neo4j: {self.version} {self.edition} ({self.source}, {self.uri})"

    def close(self) -> None:
        """Stop what provision() started (nothing for NEO4J_URI); safe to call twice."""
        close, self._close = self._close, None
        if close is not None:
            close()


def provision() -> Neo4jTarget:
    """A Neo4j that answered a probe, from the first source that applies; RuntimeError naming the fix."""
    target = _from_env() if os.environ.get("NEO4J_URI") else _from_docker_or_local()
    print(target.describe(), file=sys.stderr)
    return target


def prepare() -> str:
    """Check, before any test runs, that provision() will find a Neo4j; fetch the local runtime if needed.

    Returns the source provision() will use. A missing JDK or Maven fails here with one clear message,
    not as an error in the first test that touches the database.
    """
    if os.environ.get("NEO4J_URI"):
        return "env"
    if _docker_answers():
        return "testcontainers"
    try:
        lib = neo4j_server.fetch()
        neo4j_server.java_command()
    except neo4j_server.LocalNeo4jError as e:
        raise RuntimeError(f"{e}\n{FIX}") from e
    print(f"neo4j: local Neo4j {neo4j_server.NEO4J_VERSION} runtime ready in {lib}", file=sys.stderr)
    return "local"


def _from_env() -> Neo4jTarget:
    """The server NEO4J_URI names, probed for PROBE_SECONDS: a wrong URI fails now, not in every test."""
    uri = os.environ["NEO4J_URI"]
    user, password = os.environ.get("NEO4J_USER", "neo4j"), os.environ.get("NEO4J_PASSWORD", "")
    try:
        version, edition = _within(PROBE_SECONDS, lambda: neo4j_server.server_info(uri, user, password))
    except Exception as e:
        raise RuntimeError(
            f"NEO4J_URI={uri} did not answer RETURN 1 as {user} within {PROBE_SECONDS:.0f} s ({e});"
            " fix NEO4J_URI/NEO4J_USER/NEO4J_PASSWORD, or unset NEO4J_URI to use a local server"
        ) from e
    return Neo4jTarget(uri, user, password, version, "env", edition)


def _docker_answers() -> bool:
    """Whether a Docker engine answers `docker info` within DOCKER_SECONDS."""
    if shutil.which("docker") is None:
        return False
    if not os.environ.get("DOCKER_HOST") and not Path("/var/run/docker.sock").exists():
        return False  # no engine to ask: skip the CLI's own connection timeout
    try:
        done = subprocess.run(["docker", "info"], capture_output=True, timeout=DOCKER_SECONDS, check=False)
    except (OSError, subprocess.TimeoutExpired):
        return False
    return done.returncode == 0


def _from_docker_or_local() -> Neo4jTarget:
    """A testcontainer where a Docker engine answers, else (or when that fails) a local server."""
    if _docker_answers():
        try:
            return _from_testcontainers()
        except RuntimeError as e:  # e.g. the image cannot be pulled offline: a local server may still do
            print(f"neo4j: {e}; trying a local server", file=sys.stderr)
    return _from_local()


def _from_testcontainers() -> Neo4jTarget:
    """A throw-away container of the pinned image, removed by close()."""
    # Imported here: only Docker hosts need it, and it talks to the engine as soon as it is used.
    from testcontainers.community.neo4j import Neo4jContainer

    password = secrets.token_urlsafe(24)
    try:
        # A container that failed half-way is removed by testcontainers' reaper when this process ends.
        container = _within(CONTAINER_SECONDS, lambda: Neo4jContainer(IMAGE, password=password).start())
    except Exception as e:
        raise RuntimeError(f"the {IMAGE} testcontainer did not start ({e})") from e
    try:
        uri = container.get_connection_url()
        version, edition = _within(PROBE_SECONDS, lambda: neo4j_server.server_info(uri, "neo4j", password))
    except Exception as e:
        with contextlib.suppress(Exception):
            container.stop()
        raise RuntimeError(f"the {IMAGE} testcontainer did not answer ({e})") from e
    return Neo4jTarget(uri, "neo4j", password, version, "testcontainers", edition, _close=container.stop)


def _from_local() -> Neo4jTarget:
    """A local server in a fresh temporary home, stopped and deleted by close()."""
    home = Path(tempfile.mkdtemp(prefix="uhp-neo4j-"))
    began = time.monotonic()
    try:
        server = neo4j_server.start(home)
    except neo4j_server.LocalNeo4jError as e:
        shutil.rmtree(home, ignore_errors=True)
        raise RuntimeError(f"{e}\n{FIX}") from e
    seconds = time.monotonic() - began

    def close() -> None:
        neo4j_server.stop(home)
        shutil.rmtree(home, ignore_errors=True)

    return Neo4jTarget(
        server.uri, server.user, server.password, server.version, "local",
        home=home, pid=server.pid, start_seconds=seconds, _close=close,
    )  # fmt: skip


def _within(seconds: float, call: Callable[[], T]) -> T:
    """`call()`, or TimeoutError after `seconds`: a blocked driver or Docker call must not hang the run."""
    outcome: list[T] = []
    failure: list[BaseException] = []

    def run() -> None:
        try:
            outcome.append(call())
        except BaseException as e:
            failure.append(e)

    worker = threading.Thread(target=run, daemon=True)  # a stuck worker must not keep the process alive
    worker.start()
    worker.join(seconds)
    if failure:
        raise failure[0]
    if not outcome:
        raise TimeoutError(f"no answer within {seconds:.0f} s")
    return outcome[0]


if __name__ == "__main__":  # `python -m tests.neo4j_target prepare`, run by scripts/test
    if sys.argv[1:] != ["prepare"]:
        sys.exit("usage: python -m tests.neo4j_target prepare")
    try:
        print(f"neo4j: the tests will use source={prepare()}")
    except RuntimeError as e:
        sys.exit(f"neo4j: {e}")
