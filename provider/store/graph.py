"""The graph read: records as nodes, REFERENCES as edges, within a scope."""

from __future__ import annotations

from provider.models import HeldReference, Located
from provider.store.driver import Neo4jStore


class Neo4jGraphStore:
    """Walks references without leaving the scope it is given."""

    def __init__(self, store: Neo4jStore):
        self.store = store

    async def nodes(
        self, scope: list[str], around: str | None, hops: int, types: list[str] | None, limit: int
    ) -> list[Located]:
        """Node ids (and their memories), nearest first."""
        if around is None:
            rows = await self.store.read("graph_all", scope=scope, types=types, limit=limit)
        else:
            rows = await self.store.read(
                "graph_around", around=around, hops=hops, scope=scope, types=types, limit=limit
            )
        return [Located(row["id"], row["memory_id"]) for row in rows]

    async def edges(self, record_ids: list[str]) -> list[HeldReference]:
        """The references these records hold."""
        rows = await self.store.read("graph_edges", ids=record_ids)
        return [
            HeldReference(row["from_id"], row["from_memory"], row["to_id"], row["to_memory"], row["rel"])
            for row in rows
        ]
