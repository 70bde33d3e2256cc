"""Members, groups, membership and API keys in Neo4j."""

from __future__ import annotations

from typing import Any

from provider.store.driver import Neo4jStore


class Neo4jPrincipalStore:
    """Who may call, as stored; keys are kept as hashes only."""

    def __init__(self, store: Neo4jStore):
        self.store = store

    async def create_member(self, member_id: str, member_type: str, name: str, now: int) -> dict[str, Any]:
        """Stores a new member."""
        rows = await self.store.write("member_create", id=member_id, type=member_type, name=name, now=now)
        return rows[0]

    async def get_member(self, member_id: str) -> dict[str, Any] | None:
        """A member by id, or None."""
        rows = await self.store.read("member_get", id=member_id)
        return rows[0] if rows else None

    async def add_key(self, member_id: str, key_hash: str, *, server: bool, now: int) -> bool:
        """Stores a key's hash for a member; False when the member is unknown."""
        rows = await self.store.write(
            "api_key_create", member_id=member_id, hash=key_hash, server=server, now=now
        )
        return bool(rows)

    async def resolve_key(self, key_hash: str) -> dict[str, Any] | None:
        """The member and kind of a key, or None."""
        rows = await self.store.read("api_key_resolve", hash=key_hash)
        return rows[0] if rows else None

    async def create_group(self, group_id: str, name: str, now: int) -> dict[str, Any]:
        """Stores a new group."""
        return (await self.store.write("group_create", id=group_id, name=name, now=now))[0]

    async def add_to_group(self, group_id: str, member_id: str) -> bool:
        """Adds a member or group to a group; False when either is unknown."""
        return bool(await self.store.write("group_member_add", group_id=group_id, member_id=member_id))

    async def remove_from_group(self, group_id: str, member_id: str) -> tuple[bool, int]:
        """(group found, memberships removed)."""
        row = (await self.store.write("group_member_remove", group_id=group_id, member_id=member_id))[0]
        return bool(row["group_found"]), int(row["removed"])
