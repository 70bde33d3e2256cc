"""A member's recall depends only on what it may read: another member's words change no order and no score.

Lucene's own BM25 counts every record in the index, so before this another member writing 600 records
full of the same words changed the order and the scores of your results. Recall now counts a word's
rarity among the records the caller may read (real Neo4j, real model, real cross-encoder).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient

from provider.api.app import create_app
from provider.config import Settings
from provider.embeddings import OnnxEmbedder
from provider.models import WordHolder, WordMatches
from provider.services.recall.bm25 import scoped_bm25
from tests.api.lifecycle_support import observe
from tests.api.recall_support import recall
from tests.api.records_support import lab_on
from tests.conftest import Member

ALICE_SAYS = (
    "The harbour crane lifts containers at dawn.",
    "Our harbour pilot boards ships near the breakwater.",
    "Containers of coffee wait on the quay for customs.",
    "The breakwater lighthouse was painted red last spring.",
    "Customs officers inspect the coffee containers twice.",
    "A pilot boat takes the harbour pilot out to sea.",
    "Dawn shifts start with a crane safety check.",
    "The quay floods when the spring tide is high.",
)
QUESTIONS: tuple[dict[str, Any], ...] = (
    {"text": "harbour pilot breakwater"},
    {"text": "coffee containers customs", "rerank": False},
    {"query": "Who takes the harbour pilot out to the ships?"},
    {"query": "When are the coffee containers inspected by customs?", "rerank": False},
)


def answers(client: TestClient, who: Member, memory_id: str) -> list[list[tuple[str, float, list[str]]]]:
    """Each question's results: record, score and reasons, in order."""
    return [
        [
            (r["record"]["id"], r["score"], r["why"])
            for r in recall(client, who, memory_id, limit=8, **question)["results"]
        ]
        for question in QUESTIONS
    ]


def test_another_members_records_change_neither_order_nor_score(
    client: TestClient, alice: Member, bob: Member
) -> None:
    with lab_on(client) as lab:
        mine = lab.memory(alice)
        for text in ALICE_SAYS:
            lab.remember(alice, mine, content=text)
        before = answers(client, alice, mine)
        assert all(before), "every question finds something"
        # Bob writes 600 records full of the same words, in a memory Alice cannot read.
        theirs = lab.memory(bob)
        for batch in range(6):
            observe(
                lab,
                bob,
                theirs,
                *(
                    {"content": f"harbour pilot coffee containers customs breakwater {batch}-{n}"}
                    for n in range(100)
                ),
            )
        after = answers(client, alice, mine)
        assert after == before
        # The same words in Alice's own scope do move her results: the statistics are live, not frozen.
        lab.remember(alice, mine, content="harbour harbour pilot pilot breakwater notes")
        assert answers(client, alice, mine) != before


def holder(name: str, length: int, *words: int) -> WordHolder:
    return WordHolder(record_id=name, memory_id="m", length=length, words=words)


def test_a_rare_word_outweighs_a_common_one_and_ties_go_by_id() -> None:
    matches = WordMatches(
        holding=[2, 90],
        found=[holder("c", 40, 1), holder("b", 40, 0), holder("a", 40, 1), holder("d", 40, 0, 1)],
        capped=False,
    )
    ranked = scoped_bm25(matches, records_in_scope=100, k=10)
    assert [hit[0] for hit in ranked] == ["d", "b", "a", "c"]
    assert ranked[2][2] == ranked[3][2]
    assert scoped_bm25(matches, records_in_scope=100, k=2) == ranked[:2]


def test_a_longer_record_holding_the_same_words_ranks_lower() -> None:
    matches = WordMatches(holding=[3], found=[holder("long", 400, 0), holder("short", 40, 0)], capped=False)
    assert [hit[0] for hit in scoped_bm25(matches, records_in_scope=50, k=5)] == ["short", "long"]


@pytest.fixture(scope="module")
def small_count(settings: Settings, embedder: OnnxEmbedder) -> Iterator[TestClient]:
    """An app that counts words over scopes of up to 100 records only."""
    own = settings.changed(recall_words_candidates=100)
    with TestClient(create_app(own, embedder=embedder)) as app:
        yield app


def test_a_scope_past_the_count_says_it_was_scored_by_the_index(
    small_count: TestClient, client: TestClient, alice: Member
) -> None:
    with lab_on(client) as lab:
        memory = lab.memory(alice)
        observe(lab, alice, memory, *({"content": f"harbour log entry {n}"} for n in range(60)))
        counted = recall(small_count, alice, memory, text="harbour", limit=5)
        assert counted["degraded"] == [] and len(counted["results"]) == 5
        observe(lab, alice, memory, *({"content": f"harbour log entry {n}"} for n in range(60, 120)))
        past = recall(small_count, alice, memory, text="harbour", limit=5)
        assert past["degraded"] == ["text:index_statistics_past_100_records"]
        assert len(past["results"]) == 5
