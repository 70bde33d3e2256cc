"""The recall and graph ports on both of their implementations: each scenario runs on the fake and on Neo4j.

The fast tier tests recall's rules on tests/fakes/recall.py (tests/unit/test_recall_rules.py); these
scenarios pin that fake to Neo4jRecallStore, Neo4jGraphStore and their Cypher. Records are written
through the records port with hand-made vectors (no model: what is pinned is the store, not the
embedder), each test in its own memories.
"""

from __future__ import annotations

import math
from collections.abc import AsyncIterator
from dataclasses import dataclass, replace
from typing import Any

import pytest

from provider.models import Dnf, RecordVersion
from provider.services.recall.filters import compile_filters
from provider.services.recall.ports import GraphStorage, RecallStorage
from provider.store.graph import Neo4jGraphStore
from provider.store.recall import Neo4jRecallStore
from provider.store.records import Neo4jRecordStore
from tests.contract.records_sides import DIMENSION, T0, Side, SideMaker, first_version, sides
from tests.fakes.recall import FakeGraphStore, FakeRecallStore
from tests.fakes.records import FakeRecordStore

pytestmark = pytest.mark.anyio

NO_FILTER: Dnf = [[]]


@dataclass
class Stores:
    """One side's records port, and the recall and graph ports over the same data."""

    side: Side
    recall: RecallStorage
    graph: GraphStorage

    async def write(
        self,
        memory_id: str,
        text: str,
        *,
        at: int,
        axis: int | None = None,
        kind: str = "fact",
        attributes: dict[str, Any] | None = None,
        references: list[dict[str, Any]] | None = None,
        title: str | None = None,
        valid_from: str | None = None,
    ) -> RecordVersion:
        version = replace(
            first_version(self.side, memory_id, at=at, text=text, kind=kind, references=references),
            attributes=attributes if attributes is not None else {},
            title=title,
            valid_from=valid_from,
        )
        words = f"{title}\n{text}" if title else text
        vectors = {"embedding": toward(axis)} if axis is not None else None
        assert await self.side.records.create(version, words, vectors) is True
        return version


def toward(axis: int, lean: int | None = None) -> list[float]:
    """A unit vector along one axis, leaning a little toward another (cosine 0.98 with the axis)."""
    vector = [0.0] * DIMENSION
    vector[axis] = 1.0
    if lean is not None:
        vector[lean] = 0.2
    norm = math.sqrt(sum(v * v for v in vector))
    return [v / norm for v in vector]


@pytest.fixture(params=["fake", "neo4j"])
async def stores(request: pytest.FixtureRequest) -> AsyncIterator[Stores]:
    async with sides(request.param, lambda: request.getfixturevalue("neo4j_target")) as build:
        side: Side = await build()
        yield _stores(side, build)


def _stores(side: Side, _build: SideMaker) -> Stores:
    if isinstance(side.records, FakeRecordStore):
        return Stores(side, FakeRecallStore(side.records), FakeGraphStore(side.records))
    assert isinstance(side.records, Neo4jRecordStore)
    return Stores(side, Neo4jRecallStore(side.records.store), Neo4jGraphStore(side.records.store))


def ids(hits: Any) -> list[str]:
    return [hit.record_id for hit in hits]


# -- meaning -----------------------------------------------------------------------------------------


async def test_meaning_ranks_the_scope_by_cosine_and_leaves_forgotten_and_unscoped_records_out(
    stores: Stores,
) -> None:
    home, other = await stores.side.memory(), await stores.side.memory()
    near = await stores.write(home, "the near one", at=T0, axis=1)
    far = await stores.write(home, "the far one", at=T0 + 1, axis=2)
    gone = await stores.write(home, "forgotten", at=T0 + 2, axis=1)
    await stores.write(other, "out of scope", at=T0 + 3, axis=1)
    await stores.side.records.forget(home, gone.record_id, T0 + 4)
    hits, strategy = await stores.recall.vector([home], toward(1, lean=2), NO_FILTER, 10)
    assert ids(hits) == [near.record_id, far.record_id] and strategy == "exact"
    assert hits[0].score == pytest.approx(1 / math.sqrt(1.04), abs=1e-4)
    assert hits[1].memory_id == home


async def test_equal_scores_are_ordered_by_record_id(stores: Stores) -> None:
    home = await stores.side.memory()
    written = [await stores.write(home, f"twin {i}", at=T0 + i, axis=3) for i in range(3)]
    hits, _ = await stores.recall.vector([home], toward(3), NO_FILTER, 10)
    assert ids(hits) == sorted(v.record_id for v in written)


async def test_filters_hold_on_type_attributes_and_times(stores: Stores) -> None:
    home = await stores.side.memory()
    a = await stores.write(home, "a", at=T0, axis=1, attributes={"tier": {"level": 2}, "who": "ann"})
    b = await stores.write(home, "b", at=T0 + 1, axis=1, kind="preference", attributes={"who": "bo"})
    c = await stores.write(home, "c", at=T0 + 2, axis=1, valid_from="2026-03-01T00:00:00Z")

    async def passing(dnf: Any) -> set[str]:
        hits, _ = await stores.recall.vector([home], toward(1), dnf, 10)
        return set(ids(hits))

    leaf = {"key": "attr.tier.level", "op": "gte", "value": 2}
    assert await passing([[leaf]]) == {a.record_id}
    assert await passing(compile_filters(None, ["preference"])) == {b.record_id}
    assert await passing([[{"key": "attr.who", "op": "ne", "value": "ann"}]]) == {b.record_id, c.record_id}
    assert await passing([[{"key": "attr.who", "op": "exists", "value": False}]]) == {c.record_id}
    after = {"key": "valid_from_ms", "op": "gt", "value": T0}
    assert await passing([[after], [{"key": "attr.who", "op": "eq", "value": "bo"}]]) == {
        b.record_id,
        c.record_id,
    }
    assert await passing([[{"key": "attr.who", "op": "in", "value": ["ann", "zed"]}]]) == {a.record_id}


# -- words -------------------------------------------------------------------------------------------


async def test_words_are_counted_in_the_scope_only(stores: Stores) -> None:
    home, other = await stores.side.memory(), await stores.side.memory()
    one = await stores.write(home, "Harlow pays net sixty", at=T0)
    two = await stores.write(home, "Harlow renews in March", at=T0 + 1, title="Renewal")
    await stores.write(other, "Harlow again, elsewhere", at=T0 + 2)
    gone = await stores.write(home, "Harlow forgotten", at=T0 + 3)
    await stores.side.records.forget(home, gone.record_id, T0 + 4)
    matches = await stores.recall.words([home], "harlow March", NO_FILTER, 100)
    assert matches.holding == [2, 1] and not matches.capped
    by_id = {h.record_id: h for h in matches.found}
    assert list(by_id) == sorted([one.record_id, two.record_id])
    assert by_id[one.record_id].words == (0,) and by_id[two.record_id].words == (0, 1)
    assert by_id[one.record_id].length == len("Harlow pays net sixty")
    assert by_id[two.record_id].length == len("Renewal") + len("Renewal\nHarlow renews in March")


async def test_a_word_with_more_holders_than_its_share_is_capped(stores: Stores) -> None:
    home = await stores.side.memory()
    for i in range(4):
        await stores.write(home, f"invoice number {i}", at=T0 + i)
    matches = await stores.recall.words([home], "invoice", NO_FILTER, 3)
    assert matches.capped and matches.holding == [3]


async def test_punctuation_finds_nothing_and_lucene_syntax_is_a_word(stores: Stores) -> None:
    home = await stores.side.memory()
    await stores.write(home, "AND then OR not", at=T0)
    assert (await stores.recall.words([home], "*** ???", NO_FILTER, 10)).found == []
    assert await stores.recall.text([home], "*** ???", NO_FILTER, 10) == []
    found = await stores.recall.words([home], "AND", NO_FILTER, 10)
    assert len(found.found) == 1


async def test_index_scored_words_find_the_holders_in_scope_best_first(stores: Stores) -> None:
    home, other = await stores.side.memory(), await stores.side.memory()
    both = await stores.write(home, "granite quarry north", at=T0)
    one = await stores.write(home, "granite counter", at=T0 + 1)
    await stores.write(home, "nothing here", at=T0 + 2)
    await stores.write(other, "granite quarry elsewhere", at=T0 + 3)
    hits = await stores.recall.text([home], "granite quarry", NO_FILTER, 10)
    assert ids(hits) == [both.record_id, one.record_id]
    kept = await stores.recall.text([home], "granite", [[{"key": "type", "op": "eq", "value": "x"}]], 10)
    assert kept == []


# -- fields, times, texts, subjects ------------------------------------------------------------------


async def test_fields_alone_are_newest_first(stores: Stores) -> None:
    home = await stores.side.memory()
    old = await stores.write(home, "old", at=T0)
    new = await stores.write(home, "new", at=T0 + 5)
    mid = await stores.write(home, "mid", at=T0 + 2)
    hits, _ = await stores.recall.fields([home], NO_FILTER, 2)
    assert ids(hits) == [new.record_id, mid.record_id] and hits[0].score is None
    assert old.record_id not in ids(hits)


async def test_times_texts_and_subjects_read_the_current_version(stores: Stores) -> None:
    home = await stores.side.memory()
    dated = await stores.write(home, "x" * 50, at=T0, axis=1, title="T", valid_from="2026-02-01T00:00:00Z")
    plain = await stores.write(home, "spoken", at=T0 + 1, axis=2, attributes={"speaker": "Ann"})
    bare = await stores.write(home, "no vector", at=T0 + 2)
    times = await stores.recall.times([dated.record_id, plain.record_id, "hrec_missing"])
    assert times == {dated.record_id: 1_769_904_000_000, plain.record_id: T0 + 1}
    texts = await stores.recall.rerank_texts([dated.record_id, plain.record_id], 10, T0)
    assert texts == {dated.record_id: ("T\nT\n" + "x" * 6, False), plain.record_id: ("spoken", False)}
    subjects = await stores.recall.subjects([dated.record_id, plain.record_id, bare.record_id])
    assert set(subjects) == {dated.record_id, plain.record_id}
    assert subjects[plain.record_id].speaker == "Ann" and subjects[plain.record_id].type == "fact"
    assert subjects[dated.record_id].at == 1_769_904_000_000
    current = await stores.recall.current([plain.record_id, "hrec_missing"])
    assert list(current) == [plain.record_id] and current[plain.record_id].version == 1


# -- contradicts -------------------------------------------------------------------------------------


async def test_contradictions_come_from_either_side_and_only_active(stores: Stores) -> None:
    home = await stores.side.memory()
    claim = await stores.write(home, "pays net sixty", at=T0)
    counter = await stores.write(
        home,
        "pays net thirty",
        at=T0 + 1,
        references=[{"rel": "contradicts", "memory_id": None, "record_id": claim.record_id}],
    )
    stale = await stores.write(
        home,
        "pays net ninety",
        at=T0 + 2,
        references=[{"rel": "contradicts", "memory_id": None, "record_id": claim.record_id}],
    )
    await stores.side.records.forget(home, stale.record_id, T0 + 3)
    assert await stores.recall.contradictions([claim.record_id]) == [
        (claim.record_id, counter.record_id, home)
    ]
    assert await stores.recall.contradictions([counter.record_id]) == [
        (counter.record_id, claim.record_id, home)
    ]


# -- history -----------------------------------------------------------------------------------------


async def test_history_ranks_the_versions_true_at_an_instant(stores: Stores) -> None:
    home = await stores.side.memory()
    first = await stores.write(home, "Renews in March", at=T0, axis=1)
    revised = replace(
        first,
        content=[{"type": "text", "text": "Renews in April"}],
        version=2,
        supersedes=1,
        written_at=T0 + 10,
    )
    assert await stores.side.records.revise(revised, "Renews in April", {"embedding": toward(2)}, T0)
    other = await stores.write(home, "Unrelated note", at=T0 + 5, axis=3)
    before = await stores.recall.history(
        [home], T0 + 6, False, NO_FILTER, vector=toward(1), words=["march"], k=5, window=10
    )
    assert ids(before.meaning)[0] == first.record_id and ids(before.words) == [first.record_id]
    assert before.words[0].score == 1.0 and ids(before.newest) == [other.record_id, first.record_id]
    after = await stores.recall.history(
        [home], T0 + 20, False, NO_FILTER, vector=toward(2), words=["march", "april"], k=5, window=1
    )
    assert after.cut and ids(after.newest) == [first.record_id] and after.words[0].score == 0.5
    at = await stores.recall.versions_at([first.record_id, other.record_id], T0 + 6)
    assert sorted((v.record_id, v.version) for v in at) == sorted(
        [(first.record_id, 1), (other.record_id, 1)]
    )


async def test_history_shows_forgotten_versions_only_when_all_are_asked_for(stores: Stores) -> None:
    home = await stores.side.memory()
    kept = await stores.write(home, "kept", at=T0, axis=1)
    gone = await stores.write(home, "gone", at=T0 + 1, axis=1)
    await stores.side.records.forget(home, gone.record_id, T0 + 2)
    now = T0 + 3
    active = await stores.recall.history([home], now, False, NO_FILTER, vector=None, words=[], k=5, window=10)
    every = await stores.recall.history([home], now, True, NO_FILTER, vector=None, words=[], k=5, window=10)
    assert ids(active.newest) == [kept.record_id] and active.meaning == []
    assert ids(every.newest) == [gone.record_id, kept.record_id]


# -- graph -------------------------------------------------------------------------------------------


async def test_the_graph_walks_references_both_ways_inside_the_scope(stores: Stores) -> None:
    home, other = await stores.side.memory(), await stores.side.memory()
    hub = await stores.write(home, "hub", at=T0)
    outside = await stores.write(other, "outside", at=T0 + 1)

    def ref(target: RecordVersion, rel: str = "derived_from") -> list[dict[str, Any]]:
        return [{"rel": rel, "memory_id": None, "record_id": target.record_id}]

    spoke = await stores.write(home, "spoke", at=T0 + 2, references=ref(hub) + ref(outside, "mentions"))
    rim = await stores.write(home, "rim", at=T0 + 3, kind="episode", references=ref(spoke))
    behind = await stores.write(home, "behind outside", at=T0 + 4, references=ref(outside))
    near = await stores.graph.nodes([home], hub.record_id, 1, None, 10)
    assert ids(near) == [hub.record_id, spoke.record_id]
    far = await stores.graph.nodes([home], hub.record_id, 3, None, 10)
    assert ids(far) == [hub.record_id, spoke.record_id, rim.record_id]
    assert behind.record_id not in ids(far), "no path steps outside the scope"
    typed = await stores.graph.nodes([home], hub.record_id, 3, ["episode"], 10)
    assert ids(typed) == [hub.record_id, rim.record_id]
    assert await stores.graph.nodes([other], hub.record_id, 1, None, 10) == []
    every = await stores.graph.nodes([home], None, 0, None, 2)
    assert ids(every) == [behind.record_id, rim.record_id]
    edges = await stores.graph.edges([spoke.record_id])
    assert [(e.rel, e.target, e.target_memory) for e in edges] == [
        ("derived_from", hub.record_id, home),
        ("mentions", outside.record_id, other),
    ]
