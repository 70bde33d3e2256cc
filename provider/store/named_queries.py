"""Named queries in the main database: (:NamedQuery)-[:IN]->(:Memory), removed with their memory."""

from __future__ import annotations

from provider.store.driver import Neo4jStore, Row


class Neo4jNamedQueryStore:
    """Definitions by (memory, name); the service has judged the caller before each call."""

    def __init__(self, store: Neo4jStore):
        self.store = store

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
    ) -> Row | None:
        """Defines or replaces; None when the memory vanished."""
        rows = await self.store.write(
            "named_query_put",
            memory_id=memory_id,
            name=name,
            description=description,
            body=body,
            language="cypher",
            requires="read",
            params_json=params_json,
            written_by=written_by,
            now=now,
        )
        return rows[0]["query"] if rows else None

    async def list(self, memory_id: str) -> list[Row]:
        """A memory's named queries, by name."""
        return [r["query"] for r in await self.store.read("named_query_list", memory_id=memory_id)]

    async def get(self, memory_id: str, name: str) -> Row | None:
        """One named query, or None."""
        rows = await self.store.read("named_query_get", memory_id=memory_id, name=name)
        return rows[0]["query"] if rows else None
