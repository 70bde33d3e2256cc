"""Two service processes on one Neo4j and one S3-compatible store, as several instances run in production.

Both are `python -m provider serve` (tests/faults/service.py starts and kills them), reach the
suite's Neo4j through the routing driver (`neo4j://`, as on Aura or a cluster) and keep file bytes in
the suite's S3 store (S3Proxy) under a prefix of their own. B alone calls the session's query sandbox
service (its copy of a scope is the cache under test); both have a short lease, so a dead owner's is
taken over soon.
Each test is bounded: past `scaleout(timeout=...)` SIGALRM fails it, and both processes are killed at
the end of the module.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import pytest

from devtools.sandbox_service import LocalSandbox
from tests.faults.service import Api, Neo4jAccess, ServiceProcess
from tests.neo4j_target import Neo4jTarget
from tests.s3proxy import S3Target
from tests.time_bound import time_bound

LEASE_MS = 3000
DEFAULT_TIMEOUT = 240.0


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", "scaleout(timeout=seconds): a two-instance test, failed when it runs past `timeout`"
    )


@pytest.fixture(autouse=True)
def bounded(request: pytest.FixtureRequest) -> Iterator[None]:
    """Fails the test (SIGALRM in the main thread) when it runs past its marker's timeout."""
    marker = request.node.get_closest_marker("scaleout")
    seconds = float(marker.kwargs.get("timeout", DEFAULT_TIMEOUT)) if marker else DEFAULT_TIMEOUT

    with time_bound(seconds):
        yield


def routing(uri: str) -> str:
    """The routing scheme for the same server: what a cluster or Aura is reached with."""
    for direct, routed in (
        ("bolt+ssc://", "neo4j+ssc://"),
        ("bolt+s://", "neo4j+s://"),
        ("bolt://", "neo4j://"),
    ):
        if uri.startswith(direct):
            return routed + uri[len(direct) :]
    return uri


@dataclass
class Pair:
    """Instance A and instance B, and the store they share."""

    a: ServiceProcess
    b: ServiceProcess
    s3: S3Target
    prefix: str

    @property
    def admin_key(self) -> str:
        return self.a.admin_key

    def api(self, which: ServiceProcess) -> Api:
        return Api(which.url, self.admin_key, timeout=180.0)


@pytest.fixture(scope="module")
def pair(
    neo4j_target: Neo4jTarget,
    s3_target: S3Target,
    sandbox: LocalSandbox,
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[Pair]:
    home = tmp_path_factory.mktemp("scaleout")
    access = Neo4jAccess(routing(neo4j_target.uri), neo4j_target.user, neo4j_target.password)
    prefix = "scaleout/"
    shared = s3_target.settings(prefix) | {"UHP_LEASE_MS": str(LEASE_MS), "UHP_SWEEP_SECONDS": "300"}
    a = ServiceProcess(neo4j=access, file_dir=home / "a-files", log_path=home / "a.log", settings=shared)
    queries_on = {"UHP_QUERY_SANDBOX": "true", "UHP_QUERY_SANDBOX_URL": sandbox.url}
    queries_on["UHP_QUERY_SANDBOX_TOKEN"] = sandbox.token
    b = ServiceProcess(
        neo4j=access,
        file_dir=home / "b-files",
        log_path=home / "b.log",
        settings=shared
        | {
            "UHP_QUERY_SANDBOX": "true",
            "UHP_QUERY_SANDBOX_URL": sandbox.url,
            "UHP_QUERY_SANDBOX_TOKEN": sandbox.token,
        },
        admin_key=a.admin_key,
    )
    try:
        a.start()
        b.start()
        yield Pair(a, b, s3_target, prefix)
    finally:
        a.kill()
        b.kill()
