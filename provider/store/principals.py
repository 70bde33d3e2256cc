"""Members, groups, membership and API keys in Neo4j."""

from __future__ import annotations

from provider.models import ApiKey, Group, GroupRemoval, KeyHolder, Member, NewKey, Rotation
from provider.store.driver import Neo4jStore, Row


def _key(row: Row, now: int) -> ApiKey:
    """A key map (never its hash), judged at `now`."""
    return ApiKey(
        id=row["id"],
        member_id=row["member_id"],
        server=bool(row["server"]),
        created_at_ms=row.get("created_at"),
        expires_at_ms=row.get("expires_at"),
        last_used_at_ms=row.get("last_used_at"),
        revoked_at_ms=row.get("revoked_at"),
        now_ms=now,
    )


def _member(row: Row) -> Member:
    return Member(id=row["id"], type=row["type"], name=row["name"])


class Neo4jPrincipalStore:
    """Who may call, as stored; keys are kept as hashes only and never read back."""

    def __init__(self, store: Neo4jStore):
        self.store = store

    async def create_member(self, member_id: str, member_type: str, name: str, now: int) -> Member:
        """Stores a new member."""
        rows = await self.store.write("member_create", id=member_id, type=member_type, name=name, now=now)
        return _member(rows[0])

    async def get_member(self, member_id: str) -> Member | None:
        """A member by id, or None."""
        rows = await self.store.read("member_get", id=member_id)
        return _member(rows[0]) if rows else None

    async def add_key(
        self, member_id: str, key_id: str, key_hash: str, *, server: bool, now: int, expires_at: int | None
    ) -> ApiKey | None:
        """Stores a key's hash for a member; the key judged at `now`, or None when the member is unknown."""
        rows = await self.store.write(
            "api_key_create",
            member_id=member_id,
            id=key_id,
            hash=key_hash,
            server=server,
            now=now,
            expires_at=expires_at,
        )
        return _key(rows[0]["key"], now) if rows else None

    async def resolve_key(self, key_hash: str, now: int) -> KeyHolder | None:
        """The member and kind of a key in force at `now`, or None (unknown, revoked or expired)."""
        rows = await self.store.read("api_key_resolve", hash=key_hash, now=now)
        if not rows:
            return None
        row = rows[0]
        return KeyHolder(
            member_id=row["member_id"],
            member_type=row["member_type"],
            server=bool(row["server"]),
            key_id=row["key_id"],
            last_used_at_ms=row["last_used_at"],
        )

    async def touch_key(self, key_id: str, now: int, every_ms: int) -> None:
        """Stamps `last_used_at`, unless it was stamped less than `every_ms` ago."""
        await self.store.write("api_key_touch", id=key_id, now=now, every=every_ms)

    async def list_keys(self, member_id: str, now: int) -> list[ApiKey] | None:
        """A member's keys, newest first, judged at `now`; None when the member is unknown."""
        rows = await self.store.read("api_key_list", member_id=member_id)
        return [_key(key, now) for key in rows[0]["keys"]] if rows else None

    async def revoke_key(self, member_id: str, key_id: str, at: int) -> ApiKey | None:
        """Ends a member's key at `at` (an earlier end stays), judged then; None when either is unknown."""
        rows = await self.store.write("api_key_revoke", member_id=member_id, id=key_id, at=at)
        return _key(rows[0]["key"], at) if rows else None

    async def rotate_key(
        self,
        member_id: str,
        old_id: str,
        new: NewKey,
        *,
        now: int,
        old_ends: int,
        expires_at: int | None,
    ) -> Rotation | None:
        """A new key `(id, hash)` in the old one's place; (new, old) judged at `now`, or None when unknown."""
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
        return Rotation(_key(rows[0]["key"], now), _key(rows[0]["previous"], now)) if rows else None

    async def create_group(self, group_id: str, name: str, now: int) -> Group:
        """Stores a new group."""
        row = (await self.store.write("group_create", id=group_id, name=name, now=now))[0]
        return Group(id=row["id"], name=row["name"])

    async def add_to_group(self, group_id: str, member_id: str) -> bool:
        """Adds a member or group to a group; False when either is unknown."""
        return bool(await self.store.write("group_member_add", group_id=group_id, member_id=member_id))

    async def remove_from_group(self, group_id: str, member_id: str) -> GroupRemoval:
        """(group found, memberships removed)."""
        row = (await self.store.write("group_member_remove", group_id=group_id, member_id=member_id))[0]
        return GroupRemoval(bool(row["group_found"]), int(row["removed"]))
