"""Named queries in the main database: (:NamedQuery)-[:IN]->(:Memory), removed with their memory."""

from __future__ import annotations

import json

from provider.models import LANGUAGE, NamedQuery
from provider.store.driver import Neo4jStore, Row


def from_row(row: Row) -> NamedQuery:
    """Back from the stored node."""
    return NamedQuery(
        memory_id=row["memory_id"],
        name=row["name"],
        description=row.get("description") or "",
        body=row["body"],
        params=json.loads(row.get("params_json") or "{}"),
        requires=row.get("requires") or "read",
        language=row.get("language") or LANGUAGE,
        created_at=row.get("created_at"),
        updated_at=row.get("updated_at"),
        written_by=row.get("written_by"),
    )


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
    ) -> NamedQuery | None:
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
        return from_row(rows[0]["query"]) if rows else None

    async def list(self, memory_id: str) -> list[NamedQuery]:
        """A memory's named queries, by name."""
        return [from_row(r["query"]) for r in await self.store.read("named_query_list", memory_id=memory_id)]

    async def get(self, memory_id: str, name: str) -> NamedQuery | None:
        """One named query, or None."""
        rows = await self.store.read("named_query_get", memory_id=memory_id, name=name)
        return from_row(rows[0]["query"]) if rows else None
