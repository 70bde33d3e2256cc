"""A question naming a date lifts what holds then (UHP_RECALL_DATE_BOOST), against a real Neo4j."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from fastapi.testclient import TestClient

from provider.api.app import create_app
from provider.config import Settings
from provider.embeddings import OnnxEmbedder
from tests.api.recall_support import found, recall
from tests.api.records_support import Lab, lab_on
from tests.conftest import Member


@pytest.fixture(scope="module")
def lifting(settings: Settings, embedder: OnnxEmbedder) -> Iterator[TestClient]:
    """An app on the suite's Neo4j that lifts dated candidates by the whole best score."""
    own = settings.changed(recall_date_boost=1.0)
    with TestClient(create_app(own, embedder=embedder)) as app:
        yield app


DATED = "What did the team talk about at the harbour dinner"


def dinners(lab: Lab, alice: Member) -> tuple[str, str, str]:
    """Two dinners at the harbour, in May and in July, the May one told in the question's own words."""
    memory = lab.memory(alice)
    may = lab.remember(
        alice,
        memory,
        content="The team dinner at the harbour: everyone talked about the new boat.",
        time={"valid_from": "2023-05-03T19:00:00Z"},
    )
    july = lab.remember(
        alice,
        memory,
        content="Dinner by the water with the crew, lots of laughing.",
        time={"valid_from": "2023-07-07T19:00:00Z"},
    )
    # Far from every question, so min-max scaling gives it, not the July dinner, the bottom score.
    lab.remember(alice, memory, content="The printer on floor two is out of toner.")
    return memory, may["id"], july["id"]


def test_a_named_date_lifts_what_holds_then(lifting: TestClient, alice: Member) -> None:
    with lab_on(lifting) as lab:
        memory, may, july = dinners(lab, alice)
        undated = recall(lifting, alice, memory, query="What did the team talk about at the harbour dinner?")
        assert found(undated)[0] == may and all("time" not in r["why"] for r in undated["results"])
        dated = recall(lifting, alice, memory, query=f"{DATED} on 7 July, 2023?")
        assert found(dated)[0] == july
        assert "time" in dated["results"][0]["why"] and "time" not in dated["results"][1]["why"]


def test_zero_turns_it_off(settings: Settings, embedder: OnnxEmbedder, alice: Member) -> None:
    own = settings.changed(recall_date_boost=0.0)
    with TestClient(create_app(own, embedder=embedder)) as plain, lab_on(plain) as lab:
        memory, may, _ = dinners(lab, alice)
        dated = recall(plain, alice, memory, query=f"{DATED} on 7 July, 2023?")
        assert found(dated)[0] == may and all("time" not in r["why"] for r in dated["results"])


def test_only_the_head_of_a_long_query_is_read(lifting: TestClient, alice: Member) -> None:
    """Dates and content words past UHP_RECALL_QUERY_SCAN_CHARS are not looked for (the bound on the
    work a hostile 200,000-character question makes); blank padding leaves the meaning alone."""
    with lab_on(lifting) as lab:
        memory, may, july = dinners(lab, alice)
        padding = " " * 2_500
        near = recall(lifting, alice, memory, query=f"{DATED} on 7 July, 2023?{padding}")
        assert found(near)[0] == july and "time" in near["results"][0]["why"]
        far = recall(lifting, alice, memory, query=f"{DATED}{padding} on 7 July, 2023?")
        assert found(far)[0] == may and all("time" not in r["why"] for r in far["results"])
        words_near = recall(lifting, alice, memory, query=f"harbour boat{padding}")
        assert any("query_words" in r["why"] for r in words_near["results"])
        words_far = recall(lifting, alice, memory, query=f"{padding}harbour boat")
        assert all("query_words" not in r["why"] for r in words_far["results"])
