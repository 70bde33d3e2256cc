"""Fault tests: their own Neo4j (stopped, killed and started again) and their own service processes.

Nothing here touches the suite's shared Neo4j: the folder starts one Neo4j of its own (a local
server under the run's tmp_path, as provider/store/neo4j_server.py runs them) and `python -m
provider serve` processes on it, reached over real HTTP. Each test is marked `faults` and bounded:
past its `timeout` (seconds) SIGALRM fails it, and every process it started is killed at teardown.
"""

from __future__ import annotations

import contextlib
import os
import signal
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from devtools import neo4j_server
from tests.faults.service import Neo4jAccess, ServiceProcess
from tests.time_bound import time_bound

DEFAULT_TIMEOUT = 120.0
LEASE_MS = 2000


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers",
        "faults(timeout=seconds): a fault-injection test with its own Neo4j and service processes,"
        " failed when it runs past `timeout`",
    )


@pytest.fixture(autouse=True)
def bounded(request: pytest.FixtureRequest) -> Iterator[None]:
    """Fails the test (SIGALRM in the main thread) when it runs past its marker's timeout."""
    marker = request.node.get_closest_marker("faults")
    seconds = float(marker.kwargs.get("timeout", DEFAULT_TIMEOUT)) if marker else DEFAULT_TIMEOUT

    with time_bound(seconds):
        yield


@dataclass
class DedicatedNeo4j:
    """The folder's own Neo4j: stopped, killed and started again on the same home and port."""

    home: Path
    server: neo4j_server.LocalServer

    @property
    def port(self) -> int:
        return int(self.server.uri.rsplit(":", 1)[1])

    @property
    def access(self) -> Neo4jAccess:
        return Neo4jAccess(self.server.uri, self.server.user, self.server.password)

    def stop(self) -> None:
        """SIGTERM: Neo4j checkpoints and closes its store."""
        neo4j_server.stop(self.home, timeout=30)

    def kill(self) -> None:
        """SIGKILL: the next start recovers from the transaction log."""
        with contextlib.suppress(ProcessLookupError):
            os.kill(self.server.pid, signal.SIGKILL)
        neo4j_server.stop(self.home, timeout=10)  # reaps it

    def start(self) -> float:
        """Starts the home again on its port; seconds until it answered."""
        began = time.monotonic()
        self.server = neo4j_server.start(self.home, port=self.port, heap="512m", pagecache="128m")
        return time.monotonic() - began


@pytest.fixture(scope="package")
def neo4j(tmp_path_factory: pytest.TempPathFactory) -> Iterator[DedicatedNeo4j]:
    home = tmp_path_factory.mktemp("faults-neo4j")
    server = neo4j_server.start(home, heap="512m", pagecache="128m")
    dedicated = DedicatedNeo4j(home, server)
    yield dedicated
    neo4j_server.stop(dedicated.home, timeout=30)


ServiceFactory = Callable[..., ServiceProcess]


@pytest.fixture
def service(neo4j: DedicatedNeo4j, tmp_path: Path) -> Iterator[ServiceFactory]:
    """Makes (not starts) service processes on the folder's Neo4j; each is killed at teardown."""
    made: list[ServiceProcess] = []

    def make(**settings: str) -> ServiceProcess:
        defaults = {"UHP_LEASE_MS": str(LEASE_MS), "UHP_SWEEP_SECONDS": "300"}
        process = ServiceProcess(
            neo4j=neo4j.access,
            file_dir=tmp_path / "files",
            log_path=tmp_path / f"service-{len(made)}.log",
            settings=defaults | settings,
        )
        made.append(process)
        return process

    yield make
    for process in made:
        process.kill()
