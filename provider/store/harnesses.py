"""Harnesses in Neo4j: a configuration whose agent is a member, with its memory settings."""

from __future__ import annotations

from provider.store.driver import Neo4jStore, Row


class Neo4jHarnessStore:
    """Stores harnesses and their memory settings."""

    def __init__(self, store: Neo4jStore):
        self.store = store

    async def create(self, harness_id: str, name: str, member_id: str, now: int) -> Row | None:
        """None when the member is unknown."""
        rows = await self.store.write(
            "harness_create", id=harness_id, name=name, member_id=member_id, now=now
        )
        return rows[0] if rows else None

    async def get(self, harness_id: str) -> Row | None:
        """A harness, or None."""
        rows = await self.store.read("harness_get", id=harness_id)
        return rows[0] if rows else None

    async def update(self, harness_id: str, default_memory_id: str | None, observe: bool) -> None:
        """Stores the settings."""
        await self.store.write(
            "harness_update", id=harness_id, default_memory_id=default_memory_id, observe=observe
        )
