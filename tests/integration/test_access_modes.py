"""Reads go in READ transactions, writes in WRITE ones: on a cluster, followers serve the reads.

Neo4j itself refuses a write inside a READ transaction (so every test that writes through `read`
would fail); what it does not refuse is a pure read sent as a WRITE, which on a cluster goes to
the leader for nothing. This scans the store for each statement it runs by name and the mode it runs
it in, and asks Neo4j (EXPLAIN's `query_type`) what each statement really is.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from neo4j import Driver, GraphDatabase

from provider.store.catalogue import statement
from tests.neo4j_target import Neo4jTarget

PROVIDER = Path(__file__).resolve().parents[2] / "provider"
PARAMETER = re.compile(r"\$(\w+)")
MODES = {"read": "read", "read_once": "read", "write": "write"}


def calls() -> set[tuple[str, str]]:
    """(statement, mode) for every `<store>.read|read_once|write("name", ...)` in the provider."""
    found: set[tuple[str, str]] = set()
    for path in PROVIDER.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)):
                continue
            owner = node.func.value
            named_store = isinstance(owner, ast.Attribute | ast.Name) and "store" in ast.unparse(owner)
            first = node.args[0] if node.args else None
            if node.func.attr in MODES and named_store and isinstance(first, ast.Constant):
                found.add((str(first.value), MODES[node.func.attr]))
    return found


CALLS = sorted(calls())


@pytest.fixture(scope="module")
def driver(neo4j_target: Neo4jTarget) -> Iterator[Driver]:
    with GraphDatabase.driver(neo4j_target.uri, auth=(neo4j_target.user, neo4j_target.password)) as sync:
        yield sync


def test_the_scan_finds_both_modes() -> None:
    modes = {mode for _, mode in CALLS}
    assert modes == {"read", "write"} and len(CALLS) > 50, CALLS


@pytest.mark.parametrize(("name", "mode"), CALLS)
def test_a_statement_runs_in_the_mode_it_needs(driver: Driver, name: str, mode: str) -> None:
    text = statement(name)
    if text.lstrip().upper().startswith(("CREATE INDEX", "CREATE CONSTRAINT", "DROP ", "CREATE VECTOR")):
        assert mode == "write", f"{name} changes the schema: a write"
        return
    summary = driver.execute_query("EXPLAIN\n" + text, dict.fromkeys(PARAMETER.findall(text))).summary
    if mode == "read":
        assert summary.query_type == "r", f"{name} is `{summary.query_type}` but runs in a READ transaction"
    else:
        assert summary.query_type != "r", f"{name} only reads but runs in a WRITE transaction (the leader)"
