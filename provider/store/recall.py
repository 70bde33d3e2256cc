"""Scoped retrieval in Neo4j: vectors (exact or indexed), full text, fields, and history scans."""

from __future__ import annotations

import re

from provider.models import (
    VECTOR_INDEXES,
    Contradiction,
    Dnf,
    HistoryRanking,
    Hit,
    RecordVersion,
    RerankText,
    ScopeSize,
    Searched,
    Subject,
    WordHolder,
    WordMatches,
)
from provider.models.words import searched_words
from provider.store.driver import Neo4jStore
from provider.store.records import version_from
from provider.store.vector_cache import VectorCache

LUCENE_SPECIAL = re.compile(r'([+\-&|!(){}\[\]^"~*?:\\/])')
SCOPE_CLAUSE_MAX = 400
# Measured (bench/filtered_ann.py, 100,000 records, 2 cores): an exact scan costs ~15-30 us a record
# (4,000: ~60 ms; 15,000: ~250 ms), an index search with exact re-ranking 20-40 ms at recall@10 1.0.
EXACT_MAX_RECORDS = 5_000
INDEX_FETCH_MAX = 10_000
# A round trip costs more than a larger fetch (20,000 records: fetch 80 ~26 ms, 1,280 ~29 ms, 10,000
# ~41 ms), so an over-fetch that came back short grows steeply: 80, 1,280, then the cap.
FETCH_GROWTH = 16


def lucene_terms(text: str) -> list[str]:
    """The user's words, each quoted and escaped, so no Lucene syntax in input can change the query.

    AND, *, quotes and brackets become plain words; a word with no letter or digit is dropped.
    """
    return ['"' + LUCENE_SPECIAL.sub(r"\\\1", word) + '"' for word in searched_words(text)]


def cosine_from_neo4j(score: float) -> float:
    """Neo4j reports cosine similarity rescaled to [0, 1]; back to the usual [-1, 1]."""
    return 2.0 * score - 1.0


def lucene_query(terms: list[str], scope: list[str]) -> str:
    """Words against title and text; the scope as a required clause when it is small enough."""
    words = " ".join(terms)
    query = f"+(search_title:({words}) search_text:({words}))"
    if len(scope) <= SCOPE_CLAUSE_MAX:
        ids = " ".join(f'"{memory_id}"' for memory_id in scope)
        query += f" +search_memory:({ids})"
    return query


class Neo4jRecallStore:
    """Every statement here takes the scope the access module computed; none runs without it."""

    def __init__(self, store: Neo4jStore, vectors: VectorCache | None = None):
        self.store = store
        self.vectors = vectors

    async def scope_size(self, scope: list[str]) -> ScopeSize:
        """Records in the scope (from degrees, no record read), in the whole database, and versions."""
        row = (await self.store.read("recall_scope_size", scope=scope))[0]
        versions = {str(memory_id): int(version) for memory_id, version in row["versions"]}
        return ScopeSize(int(row["in_scope"]), int(row["total"]), versions)

    async def vector(
        self,
        scope: list[str],
        vector: list[float],
        dnf: Dnf,
        k: int,
        size: ScopeSize | None = None,
        slot: str = "embedding",
    ) -> Searched:
        """Exact over a small scope; index with growing over-fetch, then exact, over a large one.

        `slot` is the vector property the question's model matches (docs/MODELS.md).
        """
        size = size or await self.scope_size(scope)
        if size.in_scope <= EXACT_MAX_RECORDS:
            cache = self.vectors
            if (
                cache is not None
                and cache.fits(size.in_scope, len(vector))
                and cache.worth_loading(size.versions, slot)
            ):
                # The cached matrices of the scope's memories, scored outside Cypher; with filters,
                # Neo4j only says which records pass them (one round trip, no vector read).
                passing = None if dnf == [[]] else await self._passing(scope, dnf)
                hits = await cache.exact(size.versions, vector, k, passing, slot)
                if hits is not None:
                    return Searched(hits, "exact")
            return Searched(await self._exact(scope, vector, dnf, k, slot), "exact")
        fetch = min(INDEX_FETCH_MAX, max(k * 4, k * 2 * size.total // max(size.in_scope, 1)))
        while True:
            rows = await self.store.read(
                "recall_vector_index",
                scope=scope,
                vector=vector,
                dnf=dnf,
                fetch=fetch,
                k=k,
                slot=slot,
                index=VECTOR_INDEXES[slot],
            )
            seen = rows[0]["seen"] if rows else fetch
            if len(rows) >= k or seen < fetch:
                return Searched(
                    [Hit(r["id"], r["memory_id"], cosine_from_neo4j(r["score"])) for r in rows], "index"
                )
            if fetch >= INDEX_FETCH_MAX:
                return Searched(await self._exact(scope, vector, dnf, k, slot), "exact_fallback")
            fetch = min(INDEX_FETCH_MAX, fetch * FETCH_GROWTH)

    async def _passing(self, scope: list[str], dnf: Dnf) -> set[str]:
        rows = await self.store.read("recall_filter_scope_ids", scope=scope, dnf=dnf)
        return {str(r["id"]) for r in rows}

    async def _exact(self, scope: list[str], vector: list[float], dnf: Dnf, k: int, slot: str) -> list[Hit]:
        rows = await self.store.read(
            "recall_vector_exact", scope=scope, vector=vector, dnf=dnf, k=k, slot=slot
        )
        return [Hit(r["id"], r["memory_id"], cosine_from_neo4j(r["score"])) for r in rows]

    async def words(self, scope: list[str], text: str, dnf: Dnf, fetch: int) -> WordMatches:
        """For each of the words, the records in scope holding it; the holders passing the filters.

        Raw counts only: recall scores them over the scope (no index-wide statistic reaches a ranking).
        `fetch` is shared among the words; a word with more holders than its share is `capped`. Words
        that are all punctuation find nothing rather than fail.
        """
        terms = list(dict.fromkeys(term.lower() for term in lucene_terms(text)))
        if not terms:
            return WordMatches(holding=[], found=[], capped=False)
        share = max(1, fetch // len(terms))
        lucenes = [lucene_query([term], scope) for term in terms]
        row = (await self.store.read("recall_text", lucenes=lucenes, scope=scope, dnf=dnf, fetch=share))[0]
        found = [
            WordHolder(
                record_id=str(hit["id"]),
                memory_id=str(hit["memory_id"]),
                length=int(hit["length"]),
                words=tuple(sorted(int(w) for w in hit["words"])),
            )
            for hit in row["found"]
        ]
        return WordMatches(
            holding=[int(n) for n in row["holding"]],
            found=found,
            capped=any(int(seen) >= share for seen in row["seen"]),
        )

    async def text(self, scope: list[str], text: str, dnf: Dnf, k: int) -> list[Hit]:
        """Full-text hits in scope scored by Lucene, whose statistics span the whole index.

        For a scope past `UHP_RECALL_WORDS_CANDIDATES` records only, where counting every holder would
        cost too much; recall says so in `degraded`. Words that are all punctuation find nothing.
        """
        terms = lucene_terms(text)
        if not terms:
            return []
        lucene = lucene_query(terms, scope)
        # Filters (and a scope too large for the Lucene clause) apply after the index's top $fetch:
        # over-fetch until k pass or the index has nothing more, so a filter never starves words.
        filtered_after = dnf != [[]] or len(scope) > SCOPE_CLAUSE_MAX
        fetch = k if len(scope) <= SCOPE_CLAUSE_MAX else min(INDEX_FETCH_MAX, k * 20)
        while True:
            row = (
                await self.store.read(
                    "recall_text_index", lucene=lucene, scope=scope, dnf=dnf, fetch=fetch, k=k
                )
            )[0]
            found = row["found"]
            if not filtered_after or len(found) >= k or row["seen"] < fetch or fetch >= INDEX_FETCH_MAX:
                return [Hit(hit["id"], hit["memory_id"], hit["score"]) for hit in found]
            fetch = min(INDEX_FETCH_MAX, fetch * FETCH_GROWTH)

    async def fields(self, scope: list[str], dnf: Dnf, k: int, size: ScopeSize | None = None) -> Searched:
        """Records passing the filters, newest first, and how they were found.

        A scope holding most of the database walks the written_at index newest first and stops at k
        (100,000 records: ~140 ms for the sort became a few ms); a smaller one seeks its memories.
        """
        size = size or await self.scope_size(scope)
        newest_first = size.in_scope * 2 >= size.total > 0
        name = "recall_filter_newest" if newest_first else "recall_filter"
        rows = await self.store.read(name, scope=scope, dnf=dnf, k=k)
        hits = [Hit(r["id"], r["memory_id"], None) for r in rows]
        return Searched(hits, "fields_newest" if newest_first else "fields")

    async def history(
        self,
        scope: list[str],
        as_of: int,
        include_all: bool,
        dnf: Dnf,
        *,
        vector: list[float] | None,
        words: list[str],
        k: int,
        window: int,
        slot: str = "embedding",
    ) -> HistoryRanking:
        """The versions current at the instant, the newest `window` of them ranked per signal in Neo4j."""
        row = (
            await self.store.read(
                "recall_history",
                scope=scope,
                as_of=as_of,
                include_all=include_all,
                dnf=dnf,
                vector=vector,
                words=words,
                k=k,
                window=window,
                slot=slot,
            )
        )[0]
        return HistoryRanking(
            meaning=[Hit(h["id"], h["memory_id"], cosine_from_neo4j(h["score"])) for h in row["meaning"]],
            words=[Hit(h["id"], h["memory_id"], h["score"]) for h in row["words"]],
            newest=[Hit(h["id"], h["memory_id"], None) for h in row["newest"]],
            cut=bool(row["cut"]),
        )

    async def versions_at(self, record_ids: list[str], at: int) -> list[RecordVersion]:
        """The version of each record current at an instant (only that one, without its embedding)."""
        rows = await self.store.read("recall_versions_at", ids=record_ids, at=at)
        return [version_from(r["version"]) for r in rows]

    async def times(self, record_ids: list[str]) -> dict[str, int]:
        """When each record holds (its valid_from, else when written), in ms; absent when unknown."""
        rows = await self.store.read("recall_times", ids=record_ids)
        return {str(r["id"]): int(r["at"]) for r in rows if r["at"] is not None}

    async def contradictions(self, record_ids: list[str]) -> list[Contradiction]:
        """(result, other side, its memory) for each active record a result disagrees with, either way."""
        rows = await self.store.read("recall_contradictions", ids=record_ids)
        return [Contradiction(str(r["of"]), str(r["id"]), str(r["memory_id"])) for r in rows]

    async def rerank_texts(self, record_ids: list[str], chars: int, now_ms: int) -> dict[str, RerankText]:
        """Each record's title and first `chars` of words, and whether its valid time has ended."""
        rows = await self.store.read("recall_rerank_texts", ids=record_ids, chars=chars, now=now_ms)
        return {str(r["id"]): RerankText(str(r["words"]), bool(r["ended"])) for r in rows}

    async def subjects(self, record_ids: list[str], slot: str = "embedding") -> dict[str, Subject]:
        """Type, speaker, time and vector (in `slot`) of each record that has a time and a vector."""
        rows = await self.store.read("recall_subjects", ids=record_ids, slot=slot)
        return {
            str(r["id"]): Subject(
                type=str(r["type"]),
                speaker=r["speaker"] if isinstance(r["speaker"], str) else None,
                at=int(r["at"]),
                vector=list(r["embedding"]),
            )
            for r in rows
            if r["at"] is not None and r["embedding"] is not None
        }

    async def current(self, record_ids: list[str]) -> dict[str, RecordVersion]:
        """Current versions by id."""
        rows = await self.store.read("record_current_many", ids=record_ids)
        versions = [version_from(r["version"]) for r in rows]
        return {v.record_id: v for v in versions}
