"""Members, groups, membership and API keys in Neo4j."""

from __future__ import annotations

from typing import Any

from provider.store.driver import Neo4jStore


class Neo4jPrincipalStore:
    """Who may call, as stored; keys are kept as hashes only and never read back."""

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

    async def add_key(
        self, member_id: str, key_id: str, key_hash: str, *, server: bool, now: int, expires_at: int | None
    ) -> dict[str, Any] | None:
        """Stores a key's hash for a member; the key's fields, or None when the member is unknown."""
        rows = await self.store.write(
            "api_key_create",
            member_id=member_id,
            id=key_id,
            hash=key_hash,
            server=server,
            now=now,
            expires_at=expires_at,
        )
        return dict(rows[0]["key"]) if rows else None

    async def resolve_key(self, key_hash: str, now: int) -> dict[str, Any] | None:
        """The member and kind of a key in force at `now`, or None (unknown, revoked or expired)."""
        rows = await self.store.read("api_key_resolve", hash=key_hash, now=now)
        return rows[0] if rows else None

    async def touch_key(self, key_id: str, now: int, every_ms: int) -> None:
        """Stamps `last_used_at`, unless it was stamped less than `every_ms` ago."""
        await self.store.write("api_key_touch", id=key_id, now=now, every=every_ms)

    async def list_keys(self, member_id: str) -> list[dict[str, Any]] | None:
        """A member's keys, newest first; None when the member is unknown."""
        rows = await self.store.read("api_key_list", member_id=member_id)
        return [dict(key) for key in rows[0]["keys"]] if rows else None

    async def revoke_key(self, member_id: str, key_id: str, at: int) -> dict[str, Any] | None:
        """Ends a member's key at `at` (an earlier end stays); None when either is unknown."""
        rows = await self.store.write("api_key_revoke", member_id=member_id, id=key_id, at=at)
        return dict(rows[0]["key"]) if rows else None

    async def rotate_key(
        self,
        member_id: str,
        old_id: str,
        new: tuple[str, str],
        *,
        now: int,
        old_ends: int,
        expires_at: int | None,
    ) -> tuple[dict[str, Any], dict[str, Any]] | None:
        """A new key `(id, hash)` in the old one's place; (new, old) fields, or None when unknown."""
        key_id, key_hash = new
        rows = await self.store.write(
            "api_key_rotate",
            member_id=member_id,
            old_id=old_id,
            id=key_id,
            hash=key_hash,
            now=now,
            old_ends=old_ends,
            expires_at=expires_at,
        )
        return (dict(rows[0]["key"]), dict(rows[0]["previous"])) if rows else None

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
