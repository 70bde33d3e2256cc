"""In-memory stores of who may call and what they keep, as member_*, group_*, api_key_* and usage_read do."""

from __future__ import annotations

from typing import cast

from provider.models import (
    ApiKey,
    Group,
    GroupRemoval,
    KeyHolder,
    Member,
    MemberType,
    NewKey,
    Rotation,
    Usage,
)
from tests.fakes.tree_data import StoredKey, TreeData
from tests.fakes.usage import Counts


class FakePrincipalStore:
    """Members, groups and keys as member_*, group_* and api_key_* keep them."""

    def __init__(self, data: TreeData):
        self.data = data

    async def create_member(self, member_id: str, member_type: str, name: str, now: int) -> Member:
        member = Member(member_id, cast(MemberType, member_type), name)
        self.data.members[member_id] = member
        return member

    async def get_member(self, member_id: str) -> Member | None:
        return self.data.members.get(member_id)

    async def add_key(
        self, member_id: str, key_id: str, key_hash: str, *, server: bool, now: int, expires_at: int | None
    ) -> ApiKey | None:
        """api_key_create: None when the member is unknown."""
        if member_id not in self.data.members:
            return None
        key = StoredKey(key_id, member_id, key_hash, server, created_at=now, expires_at=expires_at)
        self.data.keys[key_id] = key
        return key.judged_at(now)

    async def resolve_key(self, key_hash: str, now: int) -> KeyHolder | None:
        """api_key_resolve: only a key neither revoked nor expired at `now`."""
        for key in self.data.keys.values():
            if key.hash == key_hash and not _ended(key.revoked_at, now) and not _ended(key.expires_at, now):
                member = self.data.members[key.member_id]
                return KeyHolder(member.id, member.type, key.server, key.id, key.last_used_at)
        return None

    async def touch_key(self, key_id: str, now: int, every_ms: int) -> None:
        """api_key_touch: at most one stamp per `every_ms`."""
        key = self.data.keys.get(key_id)
        if key is not None and (key.last_used_at is None or key.last_used_at <= now - every_ms):
            key.last_used_at = now

    async def list_keys(self, member_id: str, now: int) -> list[ApiKey] | None:
        """api_key_list: newest first, then by id."""
        if member_id not in self.data.members:
            return None
        mine = [k for k in self.data.keys.values() if k.member_id == member_id]
        return [k.judged_at(now) for k in sorted(mine, key=lambda k: (-k.created_at, k.id))]

    async def revoke_key(self, member_id: str, key_id: str, at: int) -> ApiKey | None:
        """api_key_revoke: an earlier end is kept."""
        key = self._key_of(member_id, key_id)
        if key is None:
            return None
        key.revoked_at = _earlier(key.revoked_at, at)
        return key.judged_at(at)

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
        """api_key_rotate: the new key takes the old one's server flag; the old one ends at `old_ends`."""
        old = self._key_of(member_id, old_id)
        if old is None:
            return None
        old.revoked_at = _earlier(old.revoked_at, old_ends)
        key_id, key_hash = new
        key = StoredKey(key_id, member_id, key_hash, old.server, created_at=now, expires_at=expires_at)
        self.data.keys[key_id] = key
        return Rotation(key.judged_at(now), old.judged_at(now))

    def _key_of(self, member_id: str, key_id: str) -> StoredKey | None:
        key = self.data.keys.get(key_id)
        return key if key is not None and key.member_id == member_id else None

    async def create_group(self, group_id: str, name: str, now: int) -> Group:
        group = Group(group_id, name)
        self.data.groups[group_id] = group
        return group

    async def add_to_group(self, group_id: str, member_id: str) -> bool:
        """group_member_add: False when the group, or the member or group to add, is unknown."""
        if group_id not in self.data.groups or not (
            member_id in self.data.members or member_id in self.data.groups
        ):
            return False
        self.data.member_of.setdefault(member_id, set()).add(group_id)
        return True

    async def remove_from_group(self, group_id: str, member_id: str) -> GroupRemoval:
        """group_member_remove: (group found, memberships removed)."""
        groups = self.data.member_of.get(member_id, set())
        removed = int(group_id in groups)
        groups.discard(group_id)
        return GroupRemoval(group_id in self.data.groups, removed)


def _ended(instant: int | None, now: int) -> bool:
    return instant is not None and instant <= now


def _earlier(current: int | None, proposed: int) -> int:
    return proposed if current is None or current > proposed else current


class FakeUsageStore:
    """usage_read: what a principal keeps, off the ledger the fake memory (and record) stores charge."""

    def __init__(self, data: TreeData):
        self.data = data

    async def of(self, principal: str) -> Usage:
        kept = self.data.usage.payers.get(principal, Counts())
        return Usage(principal, kept.records, kept.content_bytes, kept.memories, self.data.usage.limits)
