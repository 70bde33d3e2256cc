"""Every statement the provider runs plans on the real Neo4j (EXPLAIN: planned, never executed)."""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest
from neo4j import Driver, GraphDatabase
from neo4j.exceptions import Neo4jError

from provider.store.catalogue import names, statement
from provider.store.schema import schema_statements
from tests.neo4j_target import Neo4jTarget

# Schema commands (CREATE INDEX/CONSTRAINT) cannot be EXPLAINed; they run on every start-up instead.
PLANNED = [name for name in names() if name not in schema_statements()]
PARAMETER = re.compile(r"\$(\w+)")


@pytest.fixture(scope="module")
def driver(neo4j_target: Neo4jTarget) -> Iterator[Driver]:
    with GraphDatabase.driver(neo4j_target.uri, auth=(neo4j_target.user, neo4j_target.password)) as sync:
        yield sync


def test_there_are_statements_to_plan() -> None:
    assert len(PLANNED) > 10


@pytest.mark.parametrize("name", PLANNED)
def test_statement_plans(driver: Driver, name: str) -> None:
    text = statement(name)
    # EXPLAIN needs every parameter to exist, by name only: values are never read while planning.
    parameters = dict.fromkeys(PARAMETER.findall(text))
    try:
        result = driver.execute_query("EXPLAIN\n" + text, parameters)
    except Neo4jError as e:
        pytest.fail(f"{name}.cypher does not plan: {e.code}: {e.message}")
    assert result.summary.plan is not None, f"{name}.cypher produced no plan"
    assert result.records == [], f"{name}.cypher returned rows under EXPLAIN"
