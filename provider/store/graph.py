"""The graph read: records as nodes, REFERENCES as edges, within a scope."""

from __future__ import annotations

from provider.store.driver import Neo4jStore, Row


class Neo4jGraphStore:
    """Walks references without leaving the scope it is given."""

    def __init__(self, store: Neo4jStore):
        self.store = store

    async def nodes(
        self, scope: list[str], around: str | None, hops: int, types: list[str] | None, limit: int
    ) -> list[Row]:
        """Node ids (and their memories), nearest first."""
        if around is None:
            return await self.store.read("graph_all", scope=scope, types=types, limit=limit)
        return await self.store.read(
            "graph_around", around=around, hops=hops, scope=scope, types=types, limit=limit
        )

    async def edges(self, record_ids: list[str]) -> list[Row]:
        """The references these records hold."""
        return await self.store.read("graph_edges", ids=record_ids)
