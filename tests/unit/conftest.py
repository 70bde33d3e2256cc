"""The fast tier (`bash scripts/test --unit`): no Neo4j, no Java, no Docker.

Rules are tested here on the in-memory fakes in tests/fakes, whose behaviour tests/contract pins to the
real stores. A test here that asks for a Neo4j, the query sandbox or S3 fails at once, saying where it
belongs, rather than quietly starting one.
"""

from __future__ import annotations

import pytest


def _not_here(what: str) -> None:
    pytest.fail(f"tests/unit is the fast tier and has no {what}: move this test to tests/integration")


@pytest.fixture(scope="session")
def neo4j_target() -> None:
    _not_here("Neo4j")


@pytest.fixture(scope="session")
def sandbox() -> None:
    _not_here("query sandbox (a JVM)")


@pytest.fixture(scope="session")
def s3_target() -> None:
    _not_here("S3 server (a JVM)")
