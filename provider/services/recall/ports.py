"""The ports of recall: what its services need of storage.

That is scoped retrieval and the graph read.
The Neo4j stores in provider/store implement them; the composition root passes those in, and the fast
tests pass in-memory fakes.
"""

from __future__ import annotations

from typing import Any, Protocol

from provider.models import (
    HeldReference,
    HistoryRanking,
    Hit,
    Located,
    RecordVersion,
    ScopeSize,
    Subject,
    WordMatches,
)


class GraphStorage(Protocol):
    """What the recall services need of the graph store."""

    async def nodes(
        self, scope: list[str], around: str | None, hops: int, types: list[str] | None, limit: int
    ) -> list[Located]: ...

    async def edges(self, record_ids: list[str]) -> list[HeldReference]: ...


class RecallStorage(Protocol):
    """What the recall services need of the recall store."""

    async def vector(
        self,
        scope: list[str],
        vector: list[float],
        dnf: Any,
        k: int,
        size: ScopeSize | None = None,
        slot: str = "embedding",
    ) -> tuple[list[Hit], str]: ...

    async def words(self, scope: list[str], text: str, dnf: Any, fetch: int) -> WordMatches: ...

    async def text(self, scope: list[str], text: str, dnf: Any, k: int) -> list[Hit]: ...

    async def fields(
        self, scope: list[str], dnf: Any, k: int, size: ScopeSize | None = None
    ) -> tuple[list[Hit], str]: ...

    async def history(
        self,
        scope: list[str],
        as_of: int,
        include_all: bool,
        dnf: Any,
        *,
        vector: list[float] | None,
        words: list[str],
        k: int,
        window: int,
        slot: str = "embedding",
    ) -> HistoryRanking: ...

    async def versions_at(self, record_ids: list[str], at: int) -> list[RecordVersion]: ...

    async def times(self, record_ids: list[str]) -> dict[str, int]: ...

    async def contradictions(self, record_ids: list[str]) -> list[tuple[str, str, str]]: ...

    async def rerank_texts(
        self, record_ids: list[str], chars: int, now_ms: int
    ) -> dict[str, tuple[str, bool]]: ...

    async def subjects(self, record_ids: list[str], slot: str = "embedding") -> dict[str, Subject]: ...

    async def current(self, record_ids: list[str]) -> dict[str, RecordVersion]: ...
