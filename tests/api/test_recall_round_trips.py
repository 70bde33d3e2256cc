"""How many statements one recall sends to Neo4j: each costs ~10 ms as the driver sees it here, far
more than Neo4j's own work, so the count is a budget that a change must not quietly grow."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient
from prometheus_client.parser import text_string_to_metric_families

from tests.api.recall_support import Memories, recall
from tests.conftest import Member

STATEMENTS = "uhp_neo4j_statement_seconds_count"


@pytest.fixture
def mem(client: TestClient) -> Iterator[Memories]:
    memories = Memories(client)
    yield memories
    memories.cleanup()


def statements(client: TestClient) -> Counter[str]:
    text = client.get("/metrics").text
    counted: Counter[str] = Counter()
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            if sample.name == STATEMENTS:
                counted[sample.labels["statement"]] += int(sample.value)
    return counted


def sent(client: TestClient, who: Member, memory_id: str, **body: Any) -> Counter[str]:
    """The statements one recall sent, by name (asked once before, so caches are warm)."""
    recall(client, who, memory_id, **body)
    before = statements(client)
    recall(client, who, memory_id, **body)
    return statements(client) - before


def test_a_question_costs_one_statement_of_each_kind(mem: Memories, alice: Member) -> None:
    client = mem.client
    root = mem.make(alice)["id"]
    child = mem.make(alice, parent_id=root)["id"]
    for i in range(12):
        mem.remember(alice, child, f"Fact {i}: the cat sleeps on the sofa.", attributes={"n": i})
    asked = sent(client, alice, root, query="where does the cat sleep")
    assert asked and max(asked.values()) == 1, asked
    assert "recall_vector_exact" not in asked, "a small scope is scored from the cache"
    assert "memory_reach" in asked and "recall_scope_size" not in asked, "the reach reads the scope's size"


def test_words_that_match_nothing_under_a_filter_cost_one_full_text_statement(
    mem: Memories, alice: Member
) -> None:
    client = mem.client
    memory = mem.make(alice)["id"]
    for i in range(12):
        mem.remember(alice, memory, f"Fact {i}: the cat sleeps on the sofas.", attributes={"n": i})
    body = {
        "query": "where does the cat sleep",
        "text": "sofa",  # the records say "sofas": no hit at all
        "filters": {"field": "attributes.n", "op": "gte", "value": 3},
    }
    asked = sent(client, alice, memory, **body)
    assert asked["recall_text"] == 1, asked
    some = sent(client, alice, memory, **{**body, "text": "sofas"})
    assert some["recall_text"] == 1, "fewer than k pass, but the index had no more to give"
