"""The ports of queries: what its services need of storage.

That is query projections, named queries and the records a query answers with.
The Neo4j stores in provider/store implement them and the composition root passes those in. These
ports have no fakes yet: their services are tested against Neo4j (tests/api, tests/integration).
"""

from __future__ import annotations

from typing import Any, Protocol

from provider.models import NamedQuery, Projection, ProjectionPage, RecordVersion, ScopeVersion


class NamedQueryStorage(Protocol):
    """What the queries services need of the namedquery store."""

    async def put(
        self,
        *,
        memory_id: str,
        name: str,
        description: str,
        body: str,
        params_json: str,
        written_by: str,
        now: int,
    ) -> NamedQuery | None:
        """Defines or replaces; None when the memory vanished."""
        ...

    async def list(self, memory_id: str) -> list[NamedQuery]:
        """A memory's named queries, by name."""
        ...

    async def get(self, memory_id: str, name: str) -> NamedQuery | None:
        """One named query, or None."""
        ...


class ProjectionStorage(Protocol):
    """What the queries services need of the projection store."""

    async def version(self, scope: list[str]) -> ScopeVersion:
        """The scope's data version, memory by memory: O(memories), whatever the scope holds."""
        ...

    async def memories(self, scope: list[str]) -> list[dict[str, Any]]:
        """The scope's memories as the copy holds them, by id; a parent outside the scope is left out."""
        ...

    async def records_page(
        self, memory_id: str, inside: frozenset[str], after: int, limit: int
    ) -> ProjectionPage:
        """About `limit` of the memory's records made after `after`, and where the next page starts.

        With their references and a stub for each target outside `inside`. Records sharing the page's
        last instant go to the next page whole; a page that is all one instant is read whole. The
        next key is None after the last page.
        """
        ...

    async def changed(self, since: dict[str, int]) -> Projection:
        """The records of the memories in `since` stamped past the change_seq given for each.

        With their references (a target outside those memories is a stub); no memories.
        """
        ...


class RecordReads(Protocol):
    """What the queries services need of the recall store."""

    async def current(self, record_ids: list[str]) -> dict[str, RecordVersion]:
        """Current versions by id."""
        ...
