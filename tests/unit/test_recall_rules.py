"""Recall's rules through the real RecallService and GraphService, on the fakes.

Scope, ranking, abstain, the other side of a disagreement, history and the graph, in seconds: the
stores are tests/fakes (tree, records, recall, graph), which tests/contract holds to the Neo4j stores;
the embedder is the real model. The rules are the chapter's and docs/API.md's "Recall"; the same
behaviour is tested end to end over HTTP in tests/api (test_recall*.py, test_graph.py).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any

import pytest

from provider import ids
from provider.config import Settings
from provider.embeddings import OnnxEmbedder
from provider.errors import MemoryInvalidError, MemoryNotFoundError, RecordNotFoundError
from provider.model_files import abstain_threshold
from provider.models import Caller, FilterLeaf, GraphAsk, ReadRecord, RecallAnswer, RecallAsk
from provider.services.recall import GraphService, RecallService
from provider.services.records.snapshots import SnapshotService
from provider.services.tree.memories import MemoryDraft
from tests.fakes.recall import FakeGraphStore, FakeRecallStore
from tests.unit.test_record_rules import Rules, _rules

pytestmark = pytest.mark.anyio

# The defaults users get, with the cross-encoder away: its order is bench.quality's to judge, and
# its absence is a rule of its own (below).
SETTINGS = Settings(environment="test")


@dataclass
class Recalls:
    """The records rules' services, with recall and the graph over the same fakes."""

    rules: Rules
    recall: RecallService
    graph: GraphService

    @property
    def alice(self) -> Caller:
        return self.rules.alice

    @property
    def bob(self) -> Caller:
        return self.rules.bob

    async def memory(self, who: Caller, parent: str | None = None, *, restricted: bool = False) -> str:
        draft = MemoryDraft(name="m", parent_id=parent, restricted=restricted)
        return (await self.rules.tree.create(who, draft)).node.id

    async def remember(self, who: Caller, memory_id: str, text: str, **draft: Any) -> ReadRecord:
        read = await self.rules.remember(who, memory_id, text, **draft)
        self._tree_data().add_record(memory_id)  # what record_create does to the memory's counts
        return read

    async def forget(self, who: Caller, memory_id: str, record_id: str) -> None:
        await self.rules.records.forget(who, memory_id, record_id)
        self._tree_data().forget_record(memory_id)

    def _tree_data(self) -> Any:
        return self.rules.tree.memories.data  # type: ignore[attr-defined]

    async def ask(self, who: Caller, memory_id: str, **asked: Any) -> RecallAnswer:
        return await self.recall.recall(who, memory_id, RecallAsk(**asked))

    async def found(self, who: Caller, memory_id: str, **asked: Any) -> list[str]:
        answer = await self.ask(who, memory_id, **asked)
        return [texts(hit.record) for hit in answer.results]


def texts(read: ReadRecord) -> str:
    return " ".join(p["text"] for p in read.version.content)


def _recalls(rules: Rules, settings: Settings) -> Recalls:
    recall_store = FakeRecallStore(rules.store)
    return Recalls(
        rules=rules,
        recall=RecallService(
            rules.tree,
            recall_store,
            SnapshotService(rules.tree, rules.store),
            rules.records.references,
            rules.records.vectors,
            tuning=settings.recall,
            subtree_cap=settings.subtree_cap,
            abstain_below=partial(abstain_threshold, settings),
            reranker=None,
        ),
        graph=GraphService(
            rules.tree,
            FakeGraphStore(rules.store),
            recall_store,
            rules.records.references,
            subtree_cap=settings.subtree_cap,
        ),
    )


@pytest.fixture
async def recalls(embedder: OnnxEmbedder, tmp_path: Path) -> Recalls:
    return _recalls(await _rules(embedder, tmp_path), SETTINGS)


# -- scope ---------------------------------------------------------------------------------------------


async def test_recall_reads_the_memory_and_every_readable_memory_below_it(recalls: Recalls) -> None:
    root = await recalls.memory(recalls.alice)
    child = await recalls.memory(recalls.alice, root)
    walled = await recalls.memory(recalls.alice, root, restricted=True)
    await recalls.rules.grant(recalls.alice, root, recalls.bob, "read")
    await recalls.remember(recalls.alice, root, "The office coffee machine is broken.")
    await recalls.remember(recalls.alice, child, "The coffee beans come from Kenya.")
    await recalls.remember(recalls.alice, walled, "The coffee budget is secret.")
    question = "coffee"
    assert len(await recalls.found(recalls.alice, root, query=question)) == 3
    bob_sees = await recalls.found(recalls.bob, root, query=question)
    assert sorted(bob_sees) == ["The coffee beans come from Kenya.", "The office coffee machine is broken."]
    assert await recalls.found(recalls.alice, root, query=question, depth=0) == [
        "The office coffee machine is broken."
    ]


async def test_unknown_and_forbidden_memories_look_the_same(recalls: Recalls) -> None:
    mine = await recalls.memory(recalls.alice)
    await recalls.remember(recalls.alice, mine, "A private plan.")
    with pytest.raises(MemoryNotFoundError) as forbidden:
        await recalls.ask(recalls.bob, mine, query="plan")
    with pytest.raises(MemoryNotFoundError) as unknown:
        await recalls.ask(recalls.bob, "hmem_00000000000000000000000000", query="plan")
    assert str(forbidden.value) == str(unknown.value)


async def test_what_another_member_writes_elsewhere_never_changes_a_ranking(recalls: Recalls) -> None:
    mine = await recalls.memory(recalls.alice)
    for text in ("Harlow Mills pays net sixty.", "Harlow renews in March.", "The depot closes at six."):
        await recalls.remember(recalls.alice, mine, text)
    before = await recalls.ask(recalls.alice, mine, query="When does Harlow renew?", text="Harlow renews")
    theirs = await recalls.memory(recalls.bob)
    for i in range(12):
        await recalls.remember(recalls.bob, theirs, f"Harlow renews Harlow contract {i}.")
    after = await recalls.ask(recalls.alice, mine, query="When does Harlow renew?", text="Harlow renews")
    assert [(texts(h.record), h.score, h.why) for h in after.results] == [
        (texts(h.record), h.score, h.why) for h in before.results
    ]


# -- ranking -----------------------------------------------------------------------------------------


async def test_the_record_closest_in_meaning_comes_first_and_says_why(recalls: Recalls) -> None:
    memory = await recalls.memory(recalls.alice)
    await recalls.remember(recalls.alice, memory, "The cat sleeps on the windowsill all afternoon.")
    await recalls.remember(recalls.alice, memory, "Quarterly revenue grew by twelve percent.")
    await recalls.remember(recalls.alice, memory, "The invoice from Harlow is overdue.")
    answer = await recalls.ask(recalls.alice, memory, query="How did sales do this quarter?", rerank=False)
    assert texts(answer.results[0].record) == "Quarterly revenue grew by twelve percent."
    assert "query" in answer.results[0].why and answer.strategy == "exact"
    scores = [h.score or 0.0 for h in answer.results]
    assert scores == sorted(scores, reverse=True), "best first"
    assert not answer.abstain


async def test_words_and_meaning_fuse_and_a_text_search_names_its_signal(recalls: Recalls) -> None:
    memory = await recalls.memory(recalls.alice)
    await recalls.remember(recalls.alice, memory, "Order QX-7731 shipped on Monday.")
    await recalls.remember(recalls.alice, memory, "Parcels usually ship within two days.")
    answer = await recalls.ask(recalls.alice, memory, text="QX-7731")
    assert [texts(h.record) for h in answer.results] == ["Order QX-7731 shipped on Monday."]
    assert answer.results[0].why == ["text"]
    both = await recalls.ask(recalls.alice, memory, query="when did the order ship", text="QX-7731")
    assert texts(both.results[0].record) == "Order QX-7731 shipped on Monday."
    assert set(both.results[0].why) == {"query", "text"}


async def test_filters_and_types_restrict_and_are_named(recalls: Recalls) -> None:
    memory = await recalls.memory(recalls.alice)
    await recalls.remember(
        recalls.alice, memory, "Ann likes tea.", type="preference", attributes={"who": "ann"}
    )
    await recalls.remember(
        recalls.alice, memory, "Bo likes tea.", type="preference", attributes={"who": "bo"}
    )
    await recalls.remember(recalls.alice, memory, "Tea costs two euros.", type="fact")
    assert await recalls.found(recalls.alice, memory, query="tea", types=["fact"]) == ["Tea costs two euros."]
    answer = await recalls.ask(
        recalls.alice, memory, query="tea", filters=FilterLeaf(field="attributes.who", op="eq", value="bo")
    )
    assert [texts(h.record) for h in answer.results] == ["Bo likes tea."]
    assert answer.results[0].why[-1] == "filters"
    fields_only = await recalls.ask(recalls.alice, memory, types=["preference"])
    assert [texts(h.record) for h in fields_only.results] == ["Bo likes tea.", "Ann likes tea."]
    assert fields_only.strategy == "fields" or fields_only.strategy == "fields_newest"


async def test_a_forgotten_record_is_not_recalled_unless_all_are_asked_for(recalls: Recalls) -> None:
    memory = await recalls.memory(recalls.alice)
    gone = await recalls.remember(recalls.alice, memory, "The old door code is 4411.")
    await recalls.remember(recalls.alice, memory, "Lunch is at noon.")
    await recalls.forget(recalls.alice, memory, gone.version.record_id)
    assert "The old door code is 4411." not in await recalls.found(recalls.alice, memory, query="door code")
    every = await recalls.ask(recalls.alice, memory, query="door code", include="all")
    assert "The old door code is 4411." in [texts(h.record) for h in every.results]
    assert every.strategy == "history_scan"


# -- abstain -----------------------------------------------------------------------------------------


async def test_recall_abstains_when_nothing_is_about_the_question(recalls: Recalls) -> None:
    memory = await recalls.memory(recalls.alice)
    await recalls.remember(recalls.alice, memory, "The invoice from Harlow Mills is due on Friday.")
    await recalls.remember(recalls.alice, memory, "Harlow Mills pays its invoices net sixty.")
    unrelated = await recalls.ask(recalls.alice, memory, query="What is the boiling point of mercury?")
    related = await recalls.ask(recalls.alice, memory, query="When is the Harlow Mills invoice due?")
    assert unrelated.abstain and not related.abstain
    empty = await recalls.memory(recalls.alice)
    assert (await recalls.ask(recalls.alice, empty, query="anything")).abstain


# -- the other side of a disagreement ----------------------------------------------------------------


async def test_the_other_side_of_a_contradiction_comes_along_past_the_limit(recalls: Recalls) -> None:
    memory = await recalls.memory(recalls.alice)
    claim = await recalls.remember(recalls.alice, memory, "The Harlow contract renews in March.")
    counter = await recalls.remember(
        recalls.alice,
        memory,
        "Ignore that: the lease ends in 2030.",
        references=[{"rel": "contradicts", "memory_id": memory, "record_id": claim.version.record_id}],
    )
    answer = await recalls.ask(recalls.alice, memory, query="When does the Harlow contract renew?", limit=1)
    assert [h.record.version.record_id for h in answer.results] == [
        claim.version.record_id,
        counter.version.record_id,
    ]
    first, other = answer.results
    assert "contradicts" in first.why and other.why == ["contradicts"] and other.score is None


async def test_a_side_the_caller_may_not_read_stays_out_and_unnamed(recalls: Recalls) -> None:
    shared = await recalls.memory(recalls.alice)
    private = await recalls.memory(recalls.alice)
    await recalls.rules.grant(recalls.alice, shared, recalls.bob, "read")
    claim = await recalls.remember(recalls.alice, shared, "The Harlow contract renews in March.")
    await recalls.remember(
        recalls.alice,
        private,
        "It renews in May, privately.",
        references=[{"rel": "contradicts", "memory_id": shared, "record_id": claim.version.record_id}],
    )
    answer = await recalls.ask(recalls.bob, shared, query="When does the Harlow contract renew?")
    assert [h.record.version.record_id for h in answer.results] == [claim.version.record_id]
    assert "contradicts" not in answer.results[0].why
    alice = await recalls.ask(recalls.alice, shared, query="When does the Harlow contract renew?")
    assert len(alice.results) == 2 and "contradicts" in alice.results[0].why


# -- history -----------------------------------------------------------------------------------------


async def test_as_of_recalls_the_version_true_then(recalls: Recalls) -> None:
    memory = await recalls.memory(recalls.alice)
    first = await recalls.remember(recalls.alice, memory, "The depot opens at eight.")
    then = ids.iso(first.version.written_at)
    assert then is not None
    await recalls.rules.revise(
        recalls.alice, memory, first.version.record_id, text="The depot opens at nine."
    )
    now = await recalls.found(recalls.alice, memory, query="When does the depot open?")
    past = await recalls.ask(recalls.alice, memory, query="When does the depot open?", as_of=then)
    assert now == ["The depot opens at nine."]
    assert [texts(h.record) for h in past.results] == ["The depot opens at eight."]
    assert past.strategy == "history_scan"
    with pytest.raises(MemoryInvalidError):
        await recalls.ask(recalls.alice, memory, query="depot", as_of="last tuesday")


# -- what was not done ---------------------------------------------------------------------------------


async def test_a_cross_encoder_asked_for_and_away_is_named_in_degraded(recalls: Recalls) -> None:
    memory = await recalls.memory(recalls.alice)
    await recalls.remember(recalls.alice, memory, "The depot opens at eight.")
    await recalls.remember(recalls.alice, memory, "The depot closes at six.")
    answer = await recalls.ask(recalls.alice, memory, query="depot hours", rerank=True)
    assert "rerank:unavailable" in answer.degraded and len(answer.results) == 2
    assert not recalls.recall.capabilities()["recall"]["rerank"]["available"]


# -- the graph ---------------------------------------------------------------------------------------


async def test_the_graph_shows_an_edge_into_an_unreadable_memory_by_its_id_alone(recalls: Recalls) -> None:
    shared = await recalls.memory(recalls.alice)
    private = await recalls.memory(recalls.alice)
    await recalls.rules.grant(recalls.alice, shared, recalls.bob, "read")
    hidden = await recalls.remember(recalls.alice, private, "A private source.")
    source = await recalls.remember(recalls.alice, shared, "A shared source.")
    summary = await recalls.remember(
        recalls.alice,
        shared,
        "A summary of both.",
        references=[
            {"rel": "derived_from", "memory_id": shared, "record_id": source.version.record_id},
            {"rel": "derived_from", "memory_id": private, "record_id": hidden.version.record_id},
        ],
    )
    around = GraphAsk(around=summary.version.record_id, hops=1)
    seen = await recalls.graph.read(recalls.bob, shared, around)
    assert {texts(n.record) for n in seen.nodes} == {"A summary of both.", "A shared source."}
    by_target = {e.target.record_id: e for e in seen.edges}
    assert by_target[source.version.record_id].available and by_target[source.version.record_id].rel
    closed = by_target[hidden.version.record_id]
    assert not closed.available and closed.target.memory_id is None and closed.rel is None
    with pytest.raises(RecordNotFoundError):
        await recalls.graph.read(recalls.bob, shared, GraphAsk(around=hidden.version.record_id))
