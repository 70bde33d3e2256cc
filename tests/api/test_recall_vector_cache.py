"""Recall's vector cache answers exactly what Cypher's exact scan answers, and never a stale vector.

Two apps share one Neo4j: `client` with the cache (the default), `uncached` with it off. After every
kind of write (remember, revise, forget, erase, re-embed, a memory's records deleted) the same
question must get the same ranking and similarities from both.
"""

from __future__ import annotations

from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest
from fastapi.testclient import TestClient

from provider.api.app import create_app
from provider.config import Settings
from provider.embeddings import Embedder
from provider.services.records.reembed import Reembedder
from provider.store.recall import Neo4jRecallStore
from provider.store.vector_cache import VectorCache
from tests.api.lifecycle_support import erase
from tests.api.recall_support import Memories, recall
from tests.api.records_support import Lab, caller_of
from tests.conftest import Member

QUESTION = "where does the cat like to sleep"
FACTS = [
    "The cat sleeps on the blue sofa every afternoon.",
    "Quarterly revenue grew five percent in the spring.",
    "The office coffee machine is cleaned on Fridays.",
    "Our cat naps in a cardboard box by the window.",
    "The invoice for the printer is due next Monday.",
    "Dogs are walked twice a day in the park.",
]


@pytest.fixture(scope="module")
def uncached(settings: Settings, embedder: Embedder) -> Iterator[TestClient]:
    """The same database through an app whose recall scans in Cypher."""
    plain = settings.changed(recall_vector_cache_mb=0)
    with TestClient(create_app(plain, embedder=embedder)) as other:
        yield other


@pytest.fixture
def mem(client: TestClient) -> Iterator[Memories]:
    memories = Memories(client)
    yield memories
    memories.cleanup()


@pytest.fixture
def lab(client: TestClient) -> Iterator[Lab]:
    tracker = Lab(client)
    yield tracker
    tracker.cleanup()


def cache_of(client: TestClient) -> VectorCache:
    store: Neo4jRecallStore = client.app.state.services.recall.store  # type: ignore[attr-defined]
    assert store.vectors is not None
    return store.vectors


def memory_of_facts(mem: Memories, who: Member) -> str:
    """A new memory holding FACTS."""
    memory: str = mem.make(who)["id"]
    for fact in FACTS:
        mem.remember(who, memory, fact)
    return memory


def ranking(client: TestClient, who: Member, memory_id: str, **body: Any) -> list[tuple[str, float]]:
    answer = recall(client, who, memory_id, query=QUESTION, limit=10, **body)
    return [(r["record"]["id"], r["score"]) for r in answer["results"]]


def assert_same(cached: list[tuple[str, float]], scanned: list[tuple[str, float]]) -> None:
    assert [i for i, _ in cached] == [i for i, _ in scanned], (cached, scanned)
    for (_, a), (_, b) in zip(cached, scanned, strict=True):
        assert a == pytest.approx(b, abs=1e-5)


def test_the_uncached_app_has_no_cache(uncached: TestClient) -> None:
    store: Neo4jRecallStore = uncached.app.state.services.recall.store  # type: ignore[attr-defined]
    assert store.vectors is None


def test_cached_scores_equal_cypher_scores_and_the_cache_is_used(
    client: TestClient, uncached: TestClient, mem: Memories, alice: Member
) -> None:
    root = mem.make(alice)["id"]
    child = mem.make(alice, parent_id=root)["id"]
    for i, fact in enumerate(FACTS):
        mem.remember(alice, root if i % 2 else child, fact)
    cache = cache_of(client)
    loads, deferred = cache.stats.loads, cache.stats.deferred
    first = ranking(client, alice, root)
    assert cache.stats.loads == loads and cache.stats.deferred == deferred + 1, (
        "the first question at a version is scanned in Cypher"
    )
    assert_same(ranking(client, alice, root), first)
    assert cache.stats.loads == loads + 2, "the second loads both memories of the scope"
    assert_same(first, ranking(uncached, alice, root))
    hits = cache.stats.hits
    assert_same(ranking(client, alice, root), first)
    assert cache.stats.hits == hits + 2 and cache.stats.loads == loads + 2, "the third loads nothing"


def test_a_memory_written_between_questions_is_scanned_not_loaded_again(
    client: TestClient, uncached: TestClient, mem: Memories, alice: Member
) -> None:
    memory = memory_of_facts(mem, alice)
    cache = cache_of(client)
    ranking(client, alice, memory)
    ranking(client, alice, memory)
    assert memory in cache.held, "two questions at one version load the memory"
    loads, deferred = cache.stats.loads, cache.stats.deferred
    for i in range(3):
        mem.remember(alice, memory, f"The cat found a new spot to sleep, number {i}.")
        assert_same(ranking(client, alice, memory), ranking(uncached, alice, memory))
    assert cache.stats.loads == loads and cache.stats.deferred == deferred + 3


def test_loading_on_the_first_question_is_a_setting(
    settings: Settings, embedder: Embedder, mem: Memories, alice: Member, uncached: TestClient
) -> None:
    memory = memory_of_facts(mem, alice)
    eager = settings.changed(recall_vector_cache_load_after=1)
    with TestClient(create_app(eager, embedder=embedder)) as app:
        cache = cache_of(app)
        assert_same(ranking(app, alice, memory), ranking(uncached, alice, memory))
        assert cache.stats.loads == 1 and cache.stats.deferred == 0


def test_every_write_is_seen_by_the_next_question(
    lab: Lab, client: TestClient, uncached: TestClient, mem: Memories, alice: Member
) -> None:
    memory = mem.make(alice)["id"]
    made = [mem.remember(alice, memory, fact) for fact in FACTS]

    def agree() -> list[tuple[str, float]]:
        cached = ranking(client, alice, memory)
        assert_same(cached, ranking(uncached, alice, memory))
        return cached

    assert agree()[0][0] in {made[0]["id"], made[3]["id"]}
    # A revision changes the meaning: the old vector would keep the cat fact on top.
    mem.revise(alice, made[0], content="The boiler was serviced in November.")
    mem.revise(alice, made[3], content="The parking permit expires at the end of the year.")
    top = agree()[0]
    assert top[0] not in {made[0]["id"], made[3]["id"]}
    newest = mem.remember(alice, memory, "The kitten curls up on the warm sofa cushion to sleep.")
    assert agree()[0][0] == newest["id"]
    mem.forget(alice, newest)
    assert newest["id"] not in [i for i, _ in agree()]
    erase(lab, alice, memory, made[5]["id"])
    assert made[5]["id"] not in [i for i, _ in agree()]


def test_a_re_embedding_is_seen_by_the_next_question(
    lab: Lab, client: TestClient, uncached: TestClient, mem: Memories, alice: Member
) -> None:
    memory = memory_of_facts(mem, alice)
    ranking(client, alice, memory)  # the first question at a version is scanned; the second loads
    before = ranking(client, alice, memory)
    services = client.app.state.services  # type: ignore[attr-defined]
    reembedder = Reembedder(services.tree, services.records.records, services.vectors, batch_size=256)
    held = cache_of(client).held[memory].version
    assert client.portal is not None
    assert client.portal.call(reembedder.run, caller_of(alice), memory) == len(FACTS)
    after = ranking(client, alice, memory)
    assert_same(ranking(client, alice, memory), after)
    assert cache_of(client).held[memory].version > held, "re-embedding bumped the memory's records_version"
    assert_same(after, ranking(uncached, alice, memory))
    assert [i for i, _ in after] == [i for i, _ in before]


def test_a_scope_past_the_budget_is_scanned_in_cypher(
    settings: Settings, embedder: Embedder, mem: Memories, alice: Member, uncached: TestClient
) -> None:
    memory = memory_of_facts(mem, alice)
    tiny = settings.changed(recall_vector_cache_mb=1)
    with TestClient(create_app(tiny, embedder=embedder)) as small:
        cache = cache_of(small)
        cache.budget = 3 * (4 * 384 + 64)  # fewer records than the memory holds
        assert_same(ranking(small, alice, memory), ranking(uncached, alice, memory))
        assert cache.stats.too_big == 1 and cache.stats.loads == 0


@pytest.mark.parametrize(
    "filters",
    [
        {"field": "attributes.kind", "op": "eq", "value": "pet"},
        {"field": "attributes.kind", "op": "ne", "value": "pet"},
        {"field": "attributes.rank", "op": "gte", "value": 4},
        {
            "or": [
                {"field": "attributes.rank", "op": "lt", "value": 2},
                {"field": "type", "op": "eq", "value": "note"},
            ]
        },
    ],
)
def test_filtered_questions_rank_the_cache_and_ask_neo4j_only_for_the_filter(
    client: TestClient, uncached: TestClient, mem: Memories, alice: Member, filters: dict[str, Any]
) -> None:
    memory = mem.make(alice)["id"]
    for rank, fact in enumerate(FACTS):
        kind = "pet" if "cat" in fact or "Dogs" in fact else "office"
        kind_of = "note" if rank % 3 == 0 else "fact"
        mem.remember(alice, memory, fact, type=kind_of, attributes={"kind": kind, "rank": rank})
    cache = cache_of(client)
    ranking(client, alice, memory, filters=filters)  # scanned in Cypher: new at its version
    loads = cache.stats.loads
    cached = ranking(client, alice, memory, filters=filters)
    assert cache.stats.loads == loads + 1, "the filtered question was ranked over the cache"
    assert cached, "the filter keeps some records"
    assert_same(cached, ranking(uncached, alice, memory, filters=filters))


def test_a_filter_that_keeps_few_is_answered_from_the_cache(
    client: TestClient, uncached: TestClient, mem: Memories, alice: Member
) -> None:
    """Many records, and the few that pass rank far below the rest: the filter's ids, then the cache."""
    memory = mem.make(alice)["id"]
    # More than the cache's first window (200) of pets outrank the bills, so the filter's ids are
    # asked for. Written four at a time: one by one they were most of this test's 41 s.
    with ThreadPoolExecutor(4) as pool:
        texts = [f"Cat number {i} sleeps on the sofa after lunch." for i in range(225)]
        list(pool.map(lambda text: mem.remember(alice, memory, text, attributes={"kind": "pet"}), texts))
    rare = [
        mem.remember(alice, memory, text, attributes={"kind": "bill"})["id"]
        for text in ("The invoice is due on Friday.", "Tax forms go to the accountant.")
    ]
    only_bills = {"field": "attributes.kind", "op": "eq", "value": "bill"}
    cache = cache_of(client)
    ranking(client, alice, memory, filters=only_bills)  # scanned in Cypher: new at its version
    loads = cache.stats.loads
    cached = ranking(client, alice, memory, filters=only_bills)
    assert sorted(i for i, _ in cached) == sorted(rare)
    assert cache.stats.loads == loads + 1
    assert_same(cached, ranking(uncached, alice, memory, filters=only_bills))
    unfiltered = recall(client, alice, memory, query=QUESTION, limit=100)["results"]
    assert not {r["record"]["id"] for r in unfiltered} & set(rare), "the bills rank below a hundred others"


def test_what_one_caller_cached_never_reaches_a_caller_who_may_not_read_it(
    client: TestClient, uncached: TestClient, mem: Memories, alice: Member, bob: Member
) -> None:
    """The cache is shared by every caller; the scope is still computed per caller before it is asked."""
    root = mem.make(alice)["id"]
    cut = mem.make(alice, parent_id=root, restricted=True)["id"]
    secret = mem.remember(alice, cut, "The cat sleeps in the locked server room.")["id"]
    mem.remember(alice, root, "The cat sleeps on the blue sofa.")
    mem.grant(alice, root, bob.principal, "read")
    ranking(client, alice, root)  # the first question at a version is scanned; the second loads
    assert secret in [i for i, _ in ranking(client, alice, root)], "alice's question cached the cut branch"
    assert cut in cache_of(client).held
    seen = ranking(client, bob, root)
    assert secret not in [i for i, _ in seen]
    assert_same(seen, ranking(uncached, bob, root))
