"""The admin surface: members, groups, membership, keys and usage. The chapter leaves this to the server."""

from __future__ import annotations

import secrets

from provider import ids
from provider.errors import InvalidInputError, MemberNotFoundError
from provider.models import LONGEST_KEY_SECONDS, ApiKey, IssuedKey, Membership, NewKey, Principal, Usage
from provider.services.tree.identity import hash_key
from provider.services.tree.ports import PrincipalStorage, UsageStorage

MEMBER_TYPES = ("human", "agent")
KEY = "hkey_"


def _new_key() -> tuple[str, str, str]:
    """(id, key, hash): the key is random and is returned once; only the hash is stored."""
    key = "uhpk_" + secrets.token_urlsafe(32)
    return ids.new_id(KEY), key, hash_key(key)


def _expiry(now: int, expires_at: int | None, expires_in: int | None) -> int | None:
    """The instant a new key stops working: in the past is a key dead at birth, past the bound a typo."""
    if expires_in is not None:
        return now + expires_in * 1000
    if expires_at is not None and not now < expires_at <= now + LONGEST_KEY_SECONDS * 1000:
        raise InvalidInputError(
            f"expires_at must be in the future, at most {LONGEST_KEY_SECONDS} seconds from now.",
            param="expires_at",
        )
    return expires_at


class AdminService:
    """Creates principals and credentials; callers reach it with the admin key only."""

    def __init__(self, principals: PrincipalStorage, usage: UsageStorage):
        self.principals = principals
        self.usage = usage

    async def create_member(self, member_type: str, name: str) -> Principal:
        """A new member with its principal string."""
        if member_type not in MEMBER_TYPES:
            raise InvalidInputError("type must be human or agent.", param="type")
        member = await self.principals.create_member(ids.new_id(ids.MEMBER), member_type, name, ids.now_ms())
        return Principal(member.id, member.name, f"member:{member.id}", type=member.type)

    async def issue_key(
        self, member_id: str, *, server: bool, expires_at: int | None = None, expires_in: int | None = None
    ) -> IssuedKey:
        """A new key for a member (expiring at an instant in ms, or after seconds), shown this once."""
        now = ids.now_ms()
        ends = _expiry(now, expires_at, expires_in)
        key_id, key, key_hash = _new_key()
        added = await self.principals.add_key(
            member_id, key_id, key_hash, server=server, now=now, expires_at=ends
        )
        if added is None:
            raise MemberNotFoundError("No member with that id exists.", param="member_id")
        return IssuedKey(added, key)

    async def list_keys(self, member_id: str) -> list[ApiKey]:
        """Every key of a member, newest first, revoked and expired ones too; never a key or a hash."""
        keys = await self.principals.list_keys(member_id, ids.now_ms())
        if keys is None:
            raise MemberNotFoundError("No member with that id exists.", param="member_id")
        return keys

    async def revoke_key(self, member_id: str, key_id: str) -> ApiKey:
        """Ends a key now; revoking a revoked key keeps its first end and is not an error."""
        revoked = await self.principals.revoke_key(member_id, key_id, ids.now_ms())
        if revoked is None:
            raise await self._unknown_key(member_id)
        return revoked

    async def rotate_key(
        self,
        member_id: str,
        key_id: str,
        *,
        grace_seconds: int = 0,
        expires_at: int | None = None,
        expires_in: int | None = None,
    ) -> IssuedKey:
        """A new key with the old one's server flag; the old one works `grace_seconds` more, then ends."""
        now = ids.now_ms()
        ends = _expiry(now, expires_at, expires_in)
        new_id, key, key_hash = _new_key()
        rotated = await self.principals.rotate_key(
            member_id,
            key_id,
            NewKey(new_id, key_hash),
            now=now,
            old_ends=now + grace_seconds * 1000,
            expires_at=ends,
        )
        if rotated is None:
            raise await self._unknown_key(member_id)
        issued, previous = rotated
        return IssuedKey(issued, key, previous=previous)

    async def _unknown_key(self, member_id: str) -> MemberNotFoundError:
        """Names which id matched nothing: the member, or a key of that member."""
        if await self.principals.get_member(member_id) is None:
            return MemberNotFoundError("No member with that id exists.", param="member_id")
        return MemberNotFoundError("The member holds no key with that id.", param="key_id")

    async def usage_of(self, member_id: str) -> Usage:
        """What a member keeps (records, bytes of content, memories) beside its quotas."""
        if await self.principals.get_member(member_id) is None:
            raise MemberNotFoundError("No member with that id exists.", param="member_id")
        return await self.usage.of(f"member:{member_id}")

    async def create_group(self, name: str) -> Principal:
        """A new group with its principal string."""
        group = await self.principals.create_group(ids.new_id(ids.GROUP), name, ids.now_ms())
        return Principal(group.id, group.name, f"group:{group.id}")

    async def add_to_group(self, group_id: str, member_id: str) -> Membership:
        """Membership; a group may hold groups, never itself."""
        if group_id == member_id:
            raise InvalidInputError("A group cannot contain itself.", param="member_id")
        if not await self.principals.add_to_group(group_id, member_id):
            raise MemberNotFoundError("No such group, member or group to add.")
        return Membership(group_id, member_id, member=True)

    async def remove_from_group(self, group_id: str, member_id: str) -> Membership:
        """Ends a membership; removing one that is not there is not an error."""
        found, removed = await self.principals.remove_from_group(group_id, member_id)
        if not found:
            raise MemberNotFoundError("No group with that id exists.", param="group_id")
        return Membership(group_id, member_id, member=False, removed=removed > 0)
