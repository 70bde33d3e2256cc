"""Fair share through HTTP: each budget refuses past its limit with Retry-After, a refused request did
nothing, the RateLimit fields say where a caller stands, and batched questions answer as single ones.

The budget tests run on an app of their own with small budgets (the session's apps lift them); the
in-flight cap and the batching need requests at the same moment, so they run on a real server.
"""

from __future__ import annotations

import asyncio
import re
import socket
import threading
import time
from collections.abc import Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import httpx
import pytest
from fastapi.testclient import TestClient
from prometheus_client import REGISTRY

from provider.api.app import create_app
from provider.config import Settings
from provider.embeddings import BatchedEmbedder, OnnxEmbedder
from provider.fairness import current_principal
from tests.conftest import Admin, Member
from tests.serving import served_in_thread
from tests.support import bookmark_ahead_of

BUDGETS: dict[str, Any] = {
    "rate_reads": "4 per 30 seconds",
    "rate_writes": "3 per 30 seconds",
    "rate_queries": "2 per 30 seconds",
    "in_flight_per_principal": 2,
    "refusal_delay_ms": 0,
    "bookmark_wait_ms": 2_500,
}
FACTS = [
    "Acme renews its contract every March.",
    "The office moved from Berlin to Paris in 2024.",
    "Dana prefers tea over coffee in the morning.",
    "The backup job runs nightly at two o'clock.",
    "Invoices are sent on the first working day of the month.",
    "The staging cluster has three Neo4j servers.",
]
QUESTIONS = [
    "When does Acme renew?",
    "Where is the office now?",
    "What does Dana drink?",
    "When do backups run?",
    "When are invoices sent?",
    "How many servers does staging have?",
    "Who likes coffee?",
    "What moved to Paris?",
]


@pytest.fixture(scope="module")
def budgeted(settings: Settings, embedder: OnnxEmbedder) -> Iterator[TestClient]:
    with TestClient(create_app(settings.model_copy(update=BUDGETS), embedder=embedder)) as client:
        yield client


@pytest.fixture(scope="module")
def served(settings: Settings, embedder: OnnxEmbedder) -> Iterator[str]:
    yield from served_in_thread(create_app(settings.model_copy(update=BUDGETS), embedder=embedder))


def refused_for(answer: Any, budget: str) -> None:
    assert answer.status_code == 429, answer.text
    error = answer.json()["error"]
    assert (error["code"], error["type"]) == ("rate_limited", "rate_limit_error")
    assert error["detail"]["budget"] == budget
    assert int(answer.headers["Retry-After"]) >= 1
    assert error["detail"]["retry_after"] == int(answer.headers["Retry-After"])


def test_reads_past_their_budget_are_429_with_retry_after(budgeted: TestClient, admin: Admin) -> None:
    who = admin.member()
    answers = [budgeted.get("/v1/memories", headers=who.headers) for _ in range(5)]
    assert [a.status_code for a in answers[:4]] == [200] * 4
    refused_for(answers[4], "reads")
    assert "UHP_RATE_READS" in answers[4].json()["error"]["message"]
    # Each admitted answer said what was left of the budget, in the IETF draft's fields.
    assert answers[0].headers["RateLimit-Policy"] == '"reads";q=4;w=30'
    remaining = [int(re.search(r";r=(\d+)", a.headers["RateLimit"]).group(1)) for a in answers[:4]]  # type: ignore[union-attr]
    assert remaining == [3, 2, 1, 0]
    # Another member's budget is its own.
    assert budgeted.get("/v1/memories", headers=admin.member().headers).status_code == 200


def test_a_write_past_the_budget_is_refused_and_writes_nothing(budgeted: TestClient, admin: Admin) -> None:
    who = admin.member()
    memory = budgeted.post("/v1/memories", json={"name": "budget"}, headers=who.headers).json()["id"]
    path = f"/v1/memories/{memory}/records"
    kept = [budgeted.post(path, json={"content": f"fact {i}"}, headers=who.headers) for i in range(2)]
    assert [a.status_code for a in kept] == [200, 200]
    refused = budgeted.post(path, json={"content": "one too many"}, headers=who.headers)
    refused_for(refused, "writes")
    assert refused.headers["RateLimit-Policy"] == '"writes";q=3;w=30'
    listed = budgeted.get(path, headers=who.headers).json()["data"]
    assert sorted(r["content"][0]["text"] for r in listed) == ["fact 0", "fact 1"]


def test_queries_have_a_budget_of_their_own(budgeted: TestClient, admin: Admin) -> None:
    who = admin.member()
    memory = budgeted.post("/v1/memories", json={"name": "queries"}, headers=who.headers).json()["id"]
    path = f"/v1/memories/{memory}/query"
    answers = [
        budgeted.post(path, json={"statement": "RETURN 1 AS one"}, headers=who.headers) for _ in range(3)
    ]
    assert [a.status_code for a in answers[:2]] == [200, 200], answers[0].text
    refused_for(answers[2], "queries")
    # Reads are still within their own budget.
    assert budgeted.get(f"/v1/memories/{memory}", headers=who.headers).status_code == 200


def test_requests_in_flight_past_the_cap_are_429(served: str, admin: Admin) -> None:
    who = admin.member()
    with httpx.Client(base_url=served, timeout=30) as client:
        memory = client.post("/v1/memories", json={"name": "in flight"}, headers=who.headers)
        forged = bookmark_ahead_of(memory.headers["UHP-Bookmark"])
        slow = {**who.headers, "UHP-Bookmark": forged}  # each waits out UHP_BOOKMARK_WAIT_MS

        def held() -> int:
            with httpx.Client(base_url=served, timeout=30) as own:
                return own.get("/v1/memories", headers=slow).status_code

        with ThreadPoolExecutor(2) as pool:
            waiting = [pool.submit(held) for _ in range(2)]
            threading.Event().wait(0.8)  # both are in flight, waiting on the forged bookmark
            third = client.get("/v1/memories", headers=who.headers)
            assert [w.result() for w in waiting] == [422, 422]
        refused_for(third, "in_flight")
        assert "UHP_IN_FLIGHT_PER_PRINCIPAL" in third.json()["error"]["message"]
        # Once they were answered, the next is admitted.
        assert client.get(f"/v1/memories/{memory.json()['id']}", headers=who.headers).status_code == 200


def batches_above_one() -> float:
    total = 0.0
    for metric in REGISTRY.collect():
        if metric.name == "uhp_embedding_batch_texts":
            for sample in metric.samples:
                if sample.name.endswith("_bucket") and sample.labels["le"] == "1.0":
                    ones = sample.value
                elif sample.name.endswith("_count"):
                    total = sample.value
    return total - ones


@pytest.fixture(scope="module")
def batching(settings: Settings, embedder: OnnxEmbedder) -> Iterator[str]:
    """A served app whose questions wait 20 ms for company, with a work slot for each of eight.

    Every recall reranks all its candidates however many share the cross-encoder, with all the time it
    needs: what is left to differ between a question asked alone and asked with seven others is only
    what the rule forbids (a batch's neighbours changing a vector or a score), never the machine's speed.
    """
    roomy = settings.changed(
        embed_batch_wait_ms=20.0, read_slots=8, recall_rerank_shared_min=0, recall_rerank_budget_ms=120_000
    )
    yield from served_in_thread(create_app(roomy, embedder=embedder))


@pytest.fixture(scope="module")
def crowded(settings: Settings, embedder: OnnxEmbedder) -> Iterator[str]:
    """A served app at recall's defaults, with a work slot for each of eight questions."""
    yield from served_in_thread(create_app(settings.model_copy(update={"read_slots": 8}), embedder=embedder))


def answered(url: str, memory: str, who: Member, question: str) -> dict[str, Any]:
    with httpx.Client(base_url=url, timeout=180) as client:
        body = {"query": question, "limit": 4}
        answer = client.post(f"/v1/memories/{memory}/recall", json=body, headers=who.headers)
        assert answer.status_code == 200, answer.text
        reply: dict[str, Any] = answer.json()
        return reply


def ask(url: str, memory: str, who: Member, question: str) -> list[tuple[str, float]]:
    reply = answered(url, memory, who, question)
    assert reply["degraded"] == [], reply
    return [(r["record"]["id"], r["score"]) for r in reply["results"]]


def facts_memory(url: str, who: Member, name: str) -> str:
    """A memory of `who` holding FACTS."""
    with httpx.Client(base_url=url, timeout=60) as client:
        memory: str = client.post("/v1/memories", json={"name": name}, headers=who.headers).json()["id"]
        for fact in FACTS:
            made = client.post(f"/v1/memories/{memory}/records", json={"content": fact}, headers=who.headers)
            assert made.status_code == 200, made.text
    return memory


def test_questions_asked_together_share_a_model_call_and_answer_as_asked_alone(
    batching: str, admin: Admin
) -> None:
    who = admin.member()
    memory = facts_memory(batching, who, "batched")
    alone = [ask(batching, memory, who, q) for q in QUESTIONS]
    before = batches_above_one()
    with ThreadPoolExecutor(len(QUESTIONS)) as pool:
        together = list(pool.map(lambda q: ask(batching, memory, who, q), QUESTIONS))
    assert batches_above_one() > before, "no model call carried more than one text"
    for single, batched in zip(alone, together, strict=True):
        assert [i for i, _ in batched] == [i for i, _ in single]
        assert [s for _, s in batched] == pytest.approx([s for _, s in single], abs=1e-5)


def test_at_the_defaults_a_question_asked_with_others_answers_as_alone_or_says_why_not(
    crowded: str, admin: Admin
) -> None:
    """Under load a recall may rerank fewer candidates, or none, and then `degraded` says so; an answer
    that says nothing is the one the question gets alone."""
    who = admin.member()
    memory = facts_memory(crowded, who, "crowded")
    alone = {q: answered(crowded, memory, who, q) for q in QUESTIONS}
    with ThreadPoolExecutor(len(QUESTIONS)) as pool:
        together = list(pool.map(lambda q: answered(crowded, memory, who, q), QUESTIONS))
    for question, crowd in zip(QUESTIONS, together, strict=True):
        single = alone[question]
        assert single["degraded"] == []
        ids = [r["record"]["id"] for r in crowd["results"]]
        if crowd["degraded"] == []:
            assert ids == [r["record"]["id"] for r in single["results"]], question
        else:
            assert all(reason.startswith("rerank:") for reason in crowd["degraded"]), crowd["degraded"]


def test_metrics_count_each_principal_s_refusals_under_a_bounded_label(
    budgeted: TestClient, admin: Admin
) -> None:
    who = admin.member()
    for _ in range(5):
        budgeted.get("/v1/memories", headers=who.headers)
    exposed = budgeted.get("/metrics").text
    refused = re.search(
        r'uhp_budget_refused_total\{budget="reads",principal="(member:[^"]+|other)"\} (\d+)', exposed
    )
    assert refused is not None, "no refusal counted"
    named = re.findall(r'uhp_budget_admitted_total\{budget="[a-z]+",principal="([^"]+)"\}', exposed)
    # However many members the suite made, the label takes at most UHP_METRICS_PRINCIPALS values and `other`.
    assert len(set(named) - {"other"}) <= Settings.model_fields["metrics_principals"].default
    assert f'principal="{who.principal}"' in exposed or 'principal="other"' in exposed


def test_a_slow_sender_holds_a_connection_never_a_slot(served: str, admin: Admin) -> None:
    """A body sent by halves waits outside the queue: the same principal's next write, which would wait
    behind it for the one write slot a lone principal holds, is answered at once."""
    who = admin.member()
    with httpx.Client(base_url=served, timeout=30) as client:
        memory = client.post("/v1/memories", json={"name": "slow"}, headers=who.headers).json()["id"]
        host, port = served.removeprefix("http://").split(":")
        body = b'{"content": "sent slowly"}'
        with socket.create_connection((host, int(port))) as slow:
            slow.sendall(
                f"POST /v1/memories/{memory}/records HTTP/1.1\r\nHost: {host}\r\n"
                f"Authorization: Bearer {who.key}\r\nContent-Type: application/json\r\n"
                f"Content-Length: {len(body)}\r\n\r\n".encode()
                + body[:5]
            )
            threading.Event().wait(0.5)  # the slow request is in, its body still coming
            began = time.perf_counter()
            quick = client.post(
                f"/v1/memories/{memory}/records", json={"content": "sent at once"}, headers=who.headers
            )
            took = time.perf_counter() - began
            slow.sendall(body[5:])
            assert b" 200 " in slow.recv(65536).split(b"\r\n", 1)[0] + b" "
    assert quick.status_code == 200, quick.text
    assert took < 5.0, f"the quick write waited {took:.1f} s behind the slow sender"


class Recording:
    """The real model, noting the texts of each call it is given."""

    def __init__(self, model: OnnxEmbedder):
        self.model = model
        self.spec = model.spec
        self.calls: list[list[str]] = []

    @property
    def dimension(self) -> int:
        return self.model.dimension

    async def embed(self, texts: Sequence[str]) -> list[list[float]]:
        self.calls.append(list(texts))
        return await self.model.embed(texts)

    async def embed_questions(self, texts: Sequence[str]) -> list[list[float]]:
        return await self.embed([self.spec.question_prefix + t for t in texts])


def test_a_question_batched_with_a_huge_record_is_answered_before_the_record_is_embedded(
    embedder: OnnxEmbedder,
) -> None:
    """Another principal's 200,000-character record shares the batch, not the question's model call."""
    recording = Recording(embedder)
    batched = BatchedEmbedder(recording, max_batch=32, wait_ms=20.0)
    huge = "words of a long record " * 9_000
    order: list[str] = []

    async def asked() -> list[float]:
        current_principal.set("member:quiet")
        vector = (await batched.embed_questions(["where does the cat sleep?"]))[0]
        order.append("question")
        return vector

    async def written() -> None:
        current_principal.set("member:busy")
        await batched.embed([huge])
        order.append("record")

    async def both() -> list[float]:
        vector, _ = await asyncio.gather(asked(), written())
        return vector

    vector = asyncio.run(both())
    assert order == ["question", "record"]
    assert recording.calls == [["where does the cat sleep?"], [huge]], "one batch, two calls, short first"
    alone = asyncio.run(embedder.embed_questions(["where does the cat sleep?"]))[0]
    assert vector == pytest.approx(alone, abs=1e-5)
