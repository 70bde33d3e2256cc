"""The ports of recall: what its services need of storage.

That is scoped retrieval and the graph read.
The Neo4j stores in provider/store implement them; the composition root passes those in, and the fast
tests pass the fakes in tests/fakes/recall.py, which tests/contract/test_recall_storage.py holds to them.
"""

from __future__ import annotations

from typing import Protocol

from provider.models import (
    Contradiction,
    Dnf,
    HeldReference,
    HistoryRanking,
    Hit,
    Located,
    RecordVersion,
    RerankText,
    ScopeSize,
    Searched,
    Subject,
    WordMatches,
)


class GraphStorage(Protocol):
    """What the recall services need of the graph store."""

    async def nodes(
        self, scope: list[str], around: str | None, hops: int, types: list[str] | None, limit: int
    ) -> list[Located]:
        """Active records of the scope: newest first, or near `around` by distance, then id."""
        ...

    async def edges(self, record_ids: list[str]) -> list[HeldReference]:
        """The references these records hold, each with its target's memory, in the order they name them."""
        ...


class RecallStorage(Protocol):
    """What the recall services need of the recall store."""

    async def vector(
        self,
        scope: list[str],
        vector: list[float],
        dnf: Dnf,
        k: int,
        size: ScopeSize | None = None,
        slot: str = "embedding",
    ) -> Searched:
        """Cosine over the scope's active records passing `dnf`, best first, ties by id; and how."""
        ...

    async def words(self, scope: list[str], text: str, dnf: Dnf, fetch: int) -> WordMatches:
        """Per word, how many active records of the scope hold it; the holders passing `dnf`, by id."""
        ...

    async def text(self, scope: list[str], text: str, dnf: Dnf, k: int) -> list[Hit]:
        """Holders of the words in scope, scored with the whole index's statistics (a very large scope)."""
        ...

    async def fields(self, scope: list[str], dnf: Dnf, k: int, size: ScopeSize | None = None) -> Searched:
        """Active records of the scope passing `dnf`, newest first, and how they were found."""
        ...

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
        """Each signal's top `k` among the newest `window` versions current at `as_of`."""
        ...

    async def versions_at(self, record_ids: list[str], at: int) -> list[RecordVersion]:
        """The version of each record current at `at`, for the records that had one."""
        ...

    async def times(self, record_ids: list[str]) -> dict[str, int]:
        """When each record holds: its valid_from, else when written (ms)."""
        ...

    async def contradictions(self, record_ids: list[str]) -> list[Contradiction]:
        """(result, other side, its memory) for each active record joined to a result by `contradicts`."""
        ...

    async def rerank_texts(self, record_ids: list[str], chars: int, now_ms: int) -> dict[str, RerankText]:
        """Each record's title and words cut at `chars`, and whether its valid time has ended."""
        ...

    async def subjects(self, record_ids: list[str], slot: str = "embedding") -> dict[str, Subject]:
        """Type, speaker, time and vector of each record with a time and a searchable vector."""
        ...

    async def current(self, record_ids: list[str]) -> dict[str, RecordVersion]:
        """Current versions by id, for the ids that exist."""
        ...
