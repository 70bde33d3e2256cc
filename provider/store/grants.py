"""Grants in Neo4j: one node per (principal, memory), ON the memory it sits on, unique by its slot."""

from __future__ import annotations

import contextlib
from typing import Any

from provider.models import Grant, GrantsOn
from provider.store.driver import ConflictingWriteError, Neo4jStore, Row

# Runs of a grant write that met the slot constraint (another write for the principal got there first).
PUT_ATTEMPTS = 3


def _grant(row: Row) -> Grant:
    return Grant(
        id=row["id"],
        memory_id=row["memory_id"],
        principal=row["principal"],
        privileges=frozenset(row["privileges"]),
        implicit=bool(row.get("implicit", False)),
    )


class Neo4jGrantStore:
    """Stores and lists grants."""

    def __init__(self, store: Neo4jStore):
        self.store = store

    async def bearing_on(self, memory_id: str) -> list[GrantsOn]:
        """The chain from the memory up, nearest first: (node id, restricted, grants sitting on it)."""
        rows = await self.store.read("grant_list", memory_id=memory_id)
        return [
            GrantsOn(
                r["memory_id"],
                r["restricted"],
                [
                    _grant({**g, "memory_id": r["memory_id"]})
                    for g in sorted(r["grants"], key=lambda g: (g["created_at"] or 0, g["id"]))
                ],
            )
            for r in rows
        ]

    async def put(
        self, memory_id: str, principal: str, privileges: list[str], grant_id: str, now: int
    ) -> Grant | None:
        """Creates or replaces the principal's grant on the memory; None when the memory is gone.

        A MERGE under the slot constraint does not break it, but should a racing write still trip it,
        the grant exists by then, and the next run finds it and replaces its privileges.
        """
        params: dict[str, Any] = {"memory_id": memory_id, "principal": principal, "privileges": privileges}
        params |= {"grant_id": grant_id, "now": now}
        for _ in range(PUT_ATTEMPTS - 1):
            with contextlib.suppress(ConflictingWriteError):
                return await self._put_once(params)
        return await self._put_once(params)

    async def _put_once(self, params: dict[str, Any]) -> Grant | None:
        rows = await self.store.write("grant_put", **params)
        return _grant(rows[0]) if rows else None

    async def get(self, memory_id: str, grant_id: str) -> Grant | None:
        """A grant sitting on the memory, or None (one on another memory, an ancestor's too, is None)."""
        rows = await self.store.read("grant_get", memory_id=memory_id, grant_id=grant_id)
        return _grant(rows[0]) if rows else None

    async def delete(self, memory_id: str, grant_id: str) -> None:
        """Removes a grant sitting on the memory."""
        await self.store.write("grant_delete", memory_id=memory_id, grant_id=grant_id)
