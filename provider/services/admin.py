"""The admin surface: members, groups, membership and keys. The chapter leaves this to the server."""

from __future__ import annotations

import secrets
from typing import Any

from provider import ids
from provider.errors import InvalidInputError, MemberNotFoundError
from provider.services.identity import hash_key
from provider.store.principals import Neo4jPrincipalStore

MEMBER_TYPES = ("human", "agent")


class AdminService:
    """Creates principals and credentials; callers reach it with the admin key only."""

    def __init__(self, principals: Neo4jPrincipalStore):
        self.principals = principals

    async def create_member(self, member_type: str, name: str) -> dict[str, Any]:
        """A new member with its principal string."""
        if member_type not in MEMBER_TYPES:
            raise InvalidInputError("type must be human or agent.", param="type")
        row = await self.principals.create_member(ids.new_id(ids.MEMBER), member_type, name, ids.now_ms())
        return {**row, "principal": f"member:{row['id']}"}

    async def issue_key(self, member_id: str, *, server: bool) -> dict[str, Any]:
        """A new random key; only its hash is stored, so this is the one time it is seen."""
        key = "uhpk_" + secrets.token_urlsafe(32)
        if not await self.principals.add_key(member_id, hash_key(key), server=server, now=ids.now_ms()):
            raise MemberNotFoundError("No member with that id exists.", param="member_id")
        return {"key": key, "member_id": member_id, "server": server}

    async def create_group(self, name: str) -> dict[str, Any]:
        """A new group with its principal string."""
        row = await self.principals.create_group(ids.new_id(ids.GROUP), name, ids.now_ms())
        return {**row, "principal": f"group:{row['id']}"}

    async def add_to_group(self, group_id: str, member_id: str) -> dict[str, Any]:
        """Membership; a group may hold groups, never itself."""
        if group_id == member_id:
            raise InvalidInputError("A group cannot contain itself.", param="member_id")
        if not await self.principals.add_to_group(group_id, member_id):
            raise MemberNotFoundError("No such group, member or group to add.")
        return {"group_id": group_id, "member_id": member_id, "member": True}

    async def remove_from_group(self, group_id: str, member_id: str) -> dict[str, Any]:
        """Ends a membership; removing one that is not there is not an error."""
        found, removed = await self.principals.remove_from_group(group_id, member_id)
        if not found:
            raise MemberNotFoundError("No group with that id exists.", param="group_id")
        return {"group_id": group_id, "member_id": member_id, "member": False, "removed": removed > 0}
