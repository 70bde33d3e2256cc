"""Harnesses in Neo4j: a configuration whose agent is a member, with its memory settings."""

from __future__ import annotations

from provider.models import HarnessSettings
from provider.store.driver import Neo4jStore, Row


def _settings(row: Row) -> HarnessSettings:
    return HarnessSettings(
        id=row["id"],
        name=row["name"],
        member_id=row["member_id"],
        default_memory_id=row["default_memory_id"],
        observe=bool(row["observe"]),
    )


class Neo4jHarnessStore:
    """Stores harnesses and their memory settings."""

    def __init__(self, store: Neo4jStore):
        self.store = store

    async def create(self, harness_id: str, name: str, member_id: str, now: int) -> HarnessSettings | None:
        """The new harness with its first settings; None when the member is unknown."""
        rows = await self.store.write(
            "harness_create", id=harness_id, name=name, member_id=member_id, now=now
        )
        return _settings(rows[0]) if rows else None

    async def get(self, harness_id: str) -> HarnessSettings | None:
        """A harness, or None."""
        rows = await self.store.read("harness_get", id=harness_id)
        return _settings(rows[0]) if rows else None

    async def update(self, harness_id: str, default_memory_id: str | None, observe: bool) -> None:
        """Stores the settings."""
        await self.store.write(
            "harness_update", id=harness_id, default_memory_id=default_memory_id, observe=observe
        )
