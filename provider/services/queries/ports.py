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
    ) -> NamedQuery | None: ...

    async def list(self, memory_id: str) -> list[NamedQuery]: ...

    async def get(self, memory_id: str, name: str) -> NamedQuery | None: ...


class ProjectionStorage(Protocol):
    """What the queries services need of the projection store."""

    async def version(self, scope: list[str]) -> ScopeVersion: ...

    async def memories(self, scope: list[str]) -> list[dict[str, Any]]: ...

    async def records_page(
        self, memory_id: str, inside: frozenset[str], after: int, limit: int
    ) -> ProjectionPage: ...

    async def changed(self, since: dict[str, int]) -> Projection: ...


class RecordReads(Protocol):
    """What the queries services need of the recall store."""

    async def current(self, record_ids: list[str]) -> dict[str, RecordVersion]: ...
