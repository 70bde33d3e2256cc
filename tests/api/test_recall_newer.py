"""A later record on the same subject outranks an earlier one (UHP_RECALL_NEWER_WINS), on a real Neo4j."""

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

QUESTION = "Where does Ana live?"


@pytest.fixture(scope="module")
def newer(settings: Settings, embedder: OnnxEmbedder) -> Iterator[TestClient]:
    """An app on the suite's Neo4j with the rule on."""
    own = settings.changed(recall_newer_wins=True)
    with TestClient(create_app(own, embedder=embedder)) as app:
        yield app


def moves(lab: Lab, alice: Member, later_speaker: str) -> tuple[str, str, str]:
    """Ana lived in Lisbon; a year later someone says they moved to Oslo."""
    memory = lab.memory(alice)
    lisbon = lab.remember(
        alice,
        memory,
        type="episode",
        content="I live in Lisbon, in a flat near the river.",
        attributes={"speaker": "Ana"},
        time={"valid_from": "2024-01-10T10:00:00Z"},
    )
    oslo = lab.remember(
        alice,
        memory,
        type="episode",
        content="I moved to Oslo last month, the flat is tiny.",
        attributes={"speaker": later_speaker},
        time={"valid_from": "2025-06-01T10:00:00Z"},
    )
    lab.remember(
        alice,
        memory,
        type="episode",
        content="The printer on floor two is out of toner again.",
        attributes={"speaker": "Ana"},
        time={"valid_from": "2025-07-01T10:00:00Z"},
    )
    return memory, lisbon["id"], oslo["id"]


def test_the_later_move_outranks_the_earlier_home(
    newer: TestClient, client: TestClient, alice: Member
) -> None:
    with lab_on(newer) as lab:
        memory, lisbon, oslo = moves(lab, alice, "Ana")
        plain = recall(client, alice, memory, query=QUESTION)
        assert found(plain)[:2] == [lisbon, oslo], "without the rule the older home is first"
        ranked = recall(newer, alice, memory, query=QUESTION)
        assert found(ranked)[:2] == [oslo, lisbon]
        assert "newer" in ranked["results"][0]["why"]
        assert all("newer" not in r["why"] for r in ranked["results"][1:])


def test_another_speakers_move_is_not_an_update(newer: TestClient, alice: Member) -> None:
    with lab_on(newer) as lab:
        memory, lisbon, _ = moves(lab, alice, "Ben")
        ranked = recall(newer, alice, memory, query=QUESTION)
        assert found(ranked)[0] == lisbon
        assert all("newer" not in r["why"] for r in ranked["results"])
