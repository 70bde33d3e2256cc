"""Recall: scope first, then meaning, words and fields, fused into one ranking that can abstain."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from provider import access, ids, tracing
from provider.config import RecallSettings
from provider.errors import RerankerUnavailableError
from provider.models import (
    Caller,
    Dnf,
    Explanation,
    Hit,
    MemoryView,
    Place,
    RecallAnswer,
    RecallAsk,
    RecallHit,
    RecordVersion,
    RerankRun,
    RerankText,
    ScopeSize,
)
from provider.models.words import TEXT_WORDS, history_words, query_words, words_cut
from provider.services.recall.abstain import abstains
from provider.services.recall.bm25 import scoped_bm25
from provider.services.recall.dates import named_period
from provider.services.recall.filters import compile_filters
from provider.services.recall.fusion import Fused, fuse, fuse_scores
from provider.services.recall.ports import RecallStorage
from provider.services.recall.recency import newer_first
from provider.services.recall.rerank import Reranker, head_size, reorder
from provider.services.records.references import ReferenceResolver
from provider.services.records.snapshots import SnapshotService
from provider.services.tree.memories import TreeService
from provider.services.vectors import VectorModels

SIGNALS = ("query", "text", "filters")
# The question's vector, being computed since the request was authenticated.
Embedding = asyncio.Task[tuple[str, list[list[float]]]]  # the slot read, the question's vector


@dataclass
class Ranking:
    """A recall's fused ranking before hydration: how it was found, and what it had to leave out."""

    hits: list[Fused]
    best: float | None  # the best similarity to the question (abstain judges it); None when unasked
    strategy: str  # how meaning (or fields) was searched, as the answer reports it
    instant: int | None = None  # the instant a history recall is true at; None for now
    degraded: list[str] = field(default_factory=list)


class RecallService:
    """The access module decides the scope before any record is touched."""

    def __init__(
        self,
        tree: TreeService,
        recall: RecallStorage,
        snapshots: SnapshotService,
        references: ReferenceResolver,
        vectors: VectorModels,
        *,
        tuning: RecallSettings,
        subtree_cap: int,
        abstain_below: Callable[[str], float],
        reranker: Reranker | None,
    ):
        self.tree = tree
        self.store = recall
        self.snapshots = snapshots
        self.references = references
        self.vectors = vectors
        self.tuning = tuning
        self.subtree_cap = subtree_cap
        self.abstain_below = abstain_below  # of the model that embeds the question
        self.reranker = reranker
        self.rerank_budget_s = tuning.rerank_budget_ms / 1000

    def capabilities(self) -> dict[str, Any]:
        """Every signal is served; abstain is a calibrated judgement."""
        return {
            "recall": {
                "signals": list(SIGNALS),
                "abstain": True,
                "fusion": "rrf" if self.tuning.words_weight is None else "scores",
                "subtree_cap": self.subtree_cap,
                "rerank": {"available": self.reranker is not None, "default": self._rerank_default},
                "explain": True,
            }
        }

    async def recall(self, caller: Caller, memory_id: str, request: RecallAsk) -> RecallAnswer:
        """Scope, retrieve per signal, fuse, hydrate, judge."""
        # The caller is authenticated: the model embeds the question while access computes the scope
        # (no record is touched before the scope is known; a refused question's vector is dropped).
        embedding = asyncio.create_task(self.vectors.questions([request.query])) if request.query else None
        try:
            return await self._answer(caller, memory_id, request, embedding)
        finally:
            if embedding is not None:
                if not embedding.done():
                    embedding.cancel()
                elif not embedding.cancelled():
                    embedding.exception()  # a failure unused because the question failed first

    async def _answer(
        self, caller: Caller, memory_id: str, request: RecallAsk, embedding: Embedding | None
    ) -> RecallAnswer:
        # Depth 0 still fetches one level down: the answer names the children to walk to next.
        # The reach statement also reads each memory's size, so the search needs no statement for it.
        reach, sizes = await self.tree.sized_scope(
            caller, memory_id, max(request.depth, 1) if request.depth is not None else None
        )
        reach.require("read")
        scoped = access.scope_for(reach, request.depth, self.subtree_cap)
        scope, degraded = scoped.memory_ids, list(scoped.degraded)
        size = ScopeSize(
            in_scope=sum(sizes.records.get(m, 0) for m in scope),
            total=sizes.total,
            versions={m: sizes.versions.get(m, 0) for m in scope},
        )
        if request.text and words_cut(request.text):
            degraded.append(f"text:words_capped_at_{TEXT_WORDS}")
        dnf = compile_filters(request.filters, request.types)
        parent_id = reach.chain[-1] if reach.chain else None
        children_ids = reach.visible_children()
        # The memories the answer names (the parent, the children, and where results live: mostly the
        # asked memory or a child) are read while the signals run; a result deeper down is read after.
        named = ([parent_id] if parent_id else []) + children_ids
        ranking, early_views = await asyncio.gather(
            self._ranked(caller, request, scope, dnf, embedding, size),
            self.tree.views(caller, sorted({*named, memory_id})),
        )
        degraded += ranking.degraded
        instant = ranking.instant
        views = {v.node.id: v for v in early_views}
        ranked = ranking.hits[: request.limit]
        if instant is None and request.include != "all":
            ranked += await self._other_sides(caller, ranked, frozenset(reach.readable_scope()))
        deeper = sorted({h.memory_id for h in ranked} - views.keys())
        if deeper:
            views.update({v.node.id: v for v in await self.tree.views(caller, deeper)})
        results = await self._hydrate(caller, ranked, instant, views, frozenset(reach.readable_scope()))
        parent, children = self._neighbours(parent_id, children_ids, views)
        found = {hit.record.version.record_id for hit in results}
        explained = (self._explained(h) for h in ranked if h.record_id in found)
        # Built once: the answer's list when asked; else the trace reads the generator, only if recording.
        explanations = list(explained) if request.explain else []
        tracing.recall_ranks(explanations or explained, explained=request.explain)
        return RecallAnswer(
            results=results,
            parent=parent,
            children=children,
            degraded=degraded,
            abstain=abstains(request, len(results), ranking.best, await self._threshold(embedding)),
            strategy=ranking.strategy,
            explanations=explanations,
        )

    @staticmethod
    def _explained(hit: Fused) -> Explanation:
        return Explanation(
            signals=dict(hit.parts),
            date_lift=round(hit.lift, 6),
            fused_rank=hit.fused_rank or None,
            rerank=hit.rerank,
            rerank_run=hit.rerank_run,
            contradicts=hit.other_side_of,
        )

    async def _other_sides(
        self, caller: Caller, ranked: list[Fused], readable: frozenset[str]
    ) -> list[Fused]:
        """Each disagreement comes whole: the other side of a `contradicts` reference comes too.

        The readable records a result contradicts (or that contradict it) come after the results, past
        `limit`, at most `limit` of them; `why` names `contradicts` on both sides. A side the caller
        may not read stays out, and nothing says it exists.
        """
        if not ranked:
            return []
        pairs = await self.store.contradictions([h.record_id for h in ranked])
        if not pairs:
            return []
        outside: set[str | None] = {memory_id for _, _, memory_id in pairs if memory_id not in readable}
        allowed = readable | await self.references.readable(caller, outside) if outside else readable
        present = {h.record_id: h for h in ranked}
        added: dict[str, Fused] = {}
        for of, other, memory_id in pairs:
            if memory_id not in allowed:
                continue
            for hit in (present[of], present.get(other) or added.get(other)):
                if hit is not None and "contradicts" not in hit.why:
                    hit.why = [*hit.why, "contradicts"]
            if other not in present and other not in added and len(added) < len(ranked):
                added[other] = Fused(
                    record_id=other, memory_id=memory_id, why=["contradicts"], other_side_of=of
                )
        return list(added.values())

    async def _ranked(
        self,
        caller: Caller,
        request: RecallAsk,
        scope: list[str],
        dnf: Dnf,
        embedding: Embedding | None,
        size: ScopeSize,
    ) -> Ranking:
        """The fused ranking of the current records, or of the versions true at `as_of`."""
        instant = await self.snapshots.instant(caller, request.as_of)
        if instant is not None or request.include == "all":
            ranking = await self._history(request, scope, dnf, instant, embedding)
            if request.rerank:
                ranking.degraded.append("rerank:not_for_history")  # the cross-encoder reads current words
            return ranking
        return await self._current(request, scope, dnf, embedding, size)

    @property
    def _rerank_default(self) -> bool:
        return self.tuning.rerank and self.reranker is not None

    async def _current(
        self, request: RecallAsk, scope: list[str], dnf: Dnf, embedding: Embedding | None, size: ScopeSize
    ) -> Ranking:
        rankings, strategy, cut = await self._signals(request, scope, dnf, embedding, size)
        fused = self._fuse(rankings)
        wants = request.rerank if request.rerank is not None else self.tuning.rerank
        if request.query and wants:
            fused, late = await self._reranked(request.query[: self.tuning.query_scan_chars], fused)
            cut += late
        # After the cross-encoder, which reads words, not dates: a named period still lifts its records.
        if self.tuning.date_boost and request.query:
            fused = await self._dated(fused, named_period(request.query[: self.tuning.query_scan_chars]))
        if self.tuning.newer_wins:
            fused = await self._newer(fused, request.limit * 2)
        if request.filters is not None:
            for hit in fused:
                hit.why = [*hit.why, "filters"] if "filters" not in hit.why else hit.why
        return Ranking(fused, _best(fused), strategy, degraded=cut)

    async def _signals(
        self, request: RecallAsk, scope: list[str], dnf: Dnf, embedding: Embedding | None, size: ScopeSize
    ) -> tuple[dict[str, list[Hit]], str, list[str]]:
        """Each signal's ranking of the scope, how meaning was searched, and what was cut."""
        k = max(request.limit * 2, self.tuning.candidates)
        rankings: dict[str, list[Hit]] = {}
        strategy = "fields"
        words, words_signal = self._words(request)
        # The signals are independent: the model embeds the question while Neo4j searches the words,
        # so a fused question costs about its slowest signal, not their sum.
        text_search = asyncio.create_task(self._word_hits(scope, words, dnf, k, size)) if words else None
        cut: list[str] = []
        try:
            if embedding is not None:
                slot, embedded = await embedding
                rankings["query"], strategy = await self.store.vector(scope, embedded[0], dnf, k, size, slot)
            if text_search is not None:
                rankings[words_signal], words_cut = await text_search
                cut += words_cut
        finally:
            if text_search is not None and not text_search.done():
                text_search.cancel()
        if not rankings:
            rankings["filters"], strategy = await self.store.fields(scope, dnf, k, size)
        return rankings, strategy, cut

    async def _word_hits(
        self, scope: list[str], words: str, dnf: Dnf, k: int, size: ScopeSize
    ) -> tuple[list[Hit], list[str]]:
        """BM25 counted over the scope; past `words_candidates` records in it, Lucene's own scores.

        Counting every holder of a word in a scope of 100,000 records costs more than the rest of the
        recall; such a scope is scored with the index's statistics and `degraded` says so.
        """
        if size.in_scope > self.tuning.words_candidates:
            hits = await self.store.text(scope, words, dnf, k)
            return hits, [
                f"text:index_statistics_past_{self.tuning.words_candidates}_records"
            ] if hits else []
        matches = await self.store.words(scope, words, dnf, self.tuning.words_candidates)
        cut = [f"text:statistics_capped_at_{self.tuning.words_candidates}"] if matches.capped else []
        return scoped_bm25(matches, size.in_scope, k), cut

    async def _reranked(self, question: str, fused: list[Fused]) -> tuple[list[Fused], list[str]]:
        """The cross-encoder's order for the head of `fused`; the fused order when it is late or away.

        The head is `rerank_candidates` long, or a recall's share of it while other recalls use the
        model (`degraded` says so); with a cascade, its first part is read first and
        the rest only when none of the first answers surely. Each reranked hit's `rerank_run` says
        what was read.
        """
        if self.reranker is None:
            return fused, ["rerank:unavailable"]
        size, cut = self._head_size()
        if size < 2:
            return fused, cut
        head, rest = fused[:size], fused[size:]
        if len(head) < 2 or self._decisive(head):
            return fused, cut
        texts = await self.store.rerank_texts(
            [h.record_id for h in head], self.tuning.rerank_chars, ids.now_ms()
        )
        # A record gone since the search keeps its place below (hydration leaves it out).
        rest = [h for h in head if h.record_id not in texts] + rest
        head = [h for h in head if h.record_id in texts]
        if len(head) < 2:
            return fused, cut
        first = self.tuning.rerank_first if 0 < self.tuning.rerank_first < len(head) else len(head)
        deadline = asyncio.get_running_loop().time() + self.rerank_budget_s
        try:
            scores = await self._scores(question, head[:first], texts, deadline)
            stopped = "all"
            if scores is not None and first < len(head):
                if max(scores) >= self.tuning.rerank_sure:
                    head, rest, stopped = head[:first], head[first:] + rest, "sure"
                else:
                    more = await self._scores(question, head[first:], texts, deadline)
                    scores = None if more is None else scores + more
        except RerankerUnavailableError:
            return fused, [*cut, "rerank:unavailable"]
        if scores is None:
            return fused, [*cut, "rerank:over_budget"]
        tracing.recall_reranked(len(head))
        run = RerankRun(read=len(head), candidates=size, stopped=stopped)
        ordered = reorder(head, scores, [texts[h.record_id].ended for h in head])
        for hit in ordered:
            hit.rerank_run = run
        return ordered + rest, cut

    def _head_size(self) -> tuple[int, list[str]]:
        """All the candidates, or this recall's share while other recalls use the model."""
        if self.reranker is None:
            return self.tuning.rerank_candidates, []
        sharing = self.reranker.sharing() if self.tuning.rerank_shared_min else 0
        return head_size(self.tuning.rerank_candidates, sharing, self.tuning.rerank_shared_min)

    async def _scores(
        self, question: str, hits: list[Fused], texts: dict[str, RerankText], deadline: float
    ) -> list[float] | None:
        left = deadline - asyncio.get_running_loop().time()
        if left <= 0 or self.reranker is None:
            return None
        return await self.reranker.score(question, [texts[h.record_id].words for h in hits], left)

    def _decisive(self, head: list[Fused]) -> bool:
        """The first candidate leads the second by the share the settings call decisive."""
        first, second = head[0].score, head[1].score
        return (
            self.tuning.rerank_skip_lead > 0
            and first > 0
            and (first - second) >= self.tuning.rerank_skip_lead * first
        )

    async def _dated(self, fused: list[Fused], period: tuple[int, int] | None) -> list[Fused]:
        """Lifts the hits whose time falls in the period the question names, by a share of the best score.

        A share, not a constant, so it means the same under rank and score fusion; `why` says `time`.
        """
        if period is None or not fused:
            return fused
        lift = self.tuning.date_boost * max(h.score for h in fused)
        times = await self.store.times([h.record_id for h in fused])
        for hit in fused:
            at = times.get(hit.record_id)
            if at is not None and period[0] <= at < period[1]:
                hit.score += lift
                hit.lift = lift
                hit.why = [*hit.why, "time"]
        return sorted(fused, key=lambda h: (-h.score, h.record_id))

    async def _newer(self, fused: list[Fused], head: int) -> list[Fused]:
        """Among the first `head` candidates, a later record on the same subject moves above an earlier one.

        One statement fetches their types, speakers, times and vectors; the rest of the list keeps its
        order below them.
        """
        top, rest = fused[:head], fused[head:]
        if len(top) < 2:
            return fused
        slot = await self.vectors.reading()
        subjects = await self.store.subjects([h.record_id for h in top], slot)
        return newer_first(top, subjects, self.tuning.same_subject_cosine) + rest

    def _words(self, request: RecallAsk) -> tuple[str | None, str]:
        """The words to search and the signal they count as: `text`, else the query's own words."""
        if request.text:
            return request.text, "text"
        if request.query and self.tuning.query_words:
            return query_words(request.query[: self.tuning.query_scan_chars]) or None, "query_words"
        return None, "text"

    def _fuse(self, rankings: dict[str, list[Hit]]) -> list[Fused]:
        """By score when meaning and words both ran and a weight is set; by rank otherwise (main's)."""
        if self.tuning.words_weight is not None and "query" in rankings and len(rankings) > 1:
            return fuse_scores(rankings, self.tuning.words_weight)
        return fuse(rankings)

    async def _history(
        self, request: RecallAsk, scope: list[str], dnf: Dnf, instant: int | None, embedding: Embedding | None
    ) -> Ranking:
        """Neo4j ranks the newest `history_window` versions; only each signal's top rows come back."""
        at = instant if instant is not None else ids.now_ms() + 1
        slot, vectors = (await embedding) if embedding is not None else ("embedding", [None])
        vector = vectors[0]
        words = history_words(request.text) if request.text else []
        ranked = await self.store.history(
            scope,
            at,
            request.include == "all",
            dnf,
            vector=vector,
            words=words,
            k=request.limit * 2,
            window=self.tuning.history_window,
            slot=slot,
        )
        cut = [f"history:capped_at_{self.tuning.history_window}_versions"] if ranked.cut else []
        rankings: dict[str, list[Hit]] = {}
        if vector is not None:
            rankings["query"] = ranked.meaning
        if request.text:
            rankings["text"] = ranked.words
        if not rankings:
            rankings["filters"] = ranked.newest
        fused = fuse(rankings)
        return Ranking(fused, _best(fused), "history_scan", instant, cut)

    async def _hydrate(
        self,
        caller: Caller,
        ranked: list[Fused],
        instant: int | None,
        views: dict[str, MemoryView],
        readable: frozenset[str],
    ) -> list[RecallHit]:
        versions = await self._versions([h.record_id for h in ranked], instant)
        reads = await self.references.for_reads(
            caller, [versions[h.record_id] for h in ranked if h.record_id in versions], readable
        )
        by_id = {r.version.record_id: r for r in reads}
        names = {memory_id: view.node.name for memory_id, view in views.items()}
        return [
            RecallHit(
                by_id[h.record_id],
                Place(h.memory_id, names.get(h.memory_id, "")),
                round(h.score, 6) if h.other_side_of is None else None,
                h.why,
            )
            for h in ranked
            if h.record_id in by_id
        ]

    async def _versions(self, record_ids: list[str], instant: int | None) -> dict[str, RecordVersion]:
        if instant is None:
            return await self.store.current(record_ids)
        found = await self.store.versions_at(record_ids, instant)
        return {version.record_id: version.state_at(instant) for version in found}

    @staticmethod
    def _neighbours(
        parent_id: str | None, children: list[str], views: dict[str, MemoryView]
    ) -> tuple[MemoryView | None, list[MemoryView]]:
        readable = {memory_id: v for memory_id, v in views.items() if "read" in v.privileges}
        parent = readable.get(parent_id) if parent_id else None
        return parent, [readable[c] for c in children if c in readable]

    async def _threshold(self, embedding: Embedding | None) -> float:
        """The abstain threshold of the model that embedded the question (none asked: unused)."""
        if embedding is None:
            return 0.0
        slot, _ = await embedding
        state = await self.vectors.state()
        return self.abstain_below(state.models.get(slot, state.active_model))


def _best(fused: list[Fused]) -> float | None:
    """The best similarity to the question among the hits; None when meaning was not searched."""
    return max((h.similarity for h in fused if h.similarity is not None), default=None)
