"""Grants on a memory: who holds what, and on which node each grant sits."""

from __future__ import annotations

import re

from provider import ids
from provider.errors import GrantNotFoundError, MemoryInvalidError, MemoryNotFoundError
from provider.models import ALL_PRIVILEGES, Caller, GrantView
from provider.services.tree.memories import TreeService
from provider.services.tree.ports import GrantStorage

PRINCIPAL = re.compile(r"^(member|group|x\.[a-z0-9_.-]+):.+$")


def validate_grant(principal: str, privileges: list[str]) -> list[str]:
    """Known principal kinds and privileges only; the answer in the chapter's order."""
    if not PRINCIPAL.match(principal):
        raise MemoryInvalidError(
            "principal must be member:<id>, group:<id> or an x.-prefixed kind.", param="principal"
        )
    unknown = sorted(set(privileges) - set(ALL_PRIVILEGES))
    if unknown or not privileges:
        raise MemoryInvalidError(
            "privileges must be a non-empty subset of read, write, create, delete.", param="privileges"
        )
    return [p for p in ALL_PRIVILEGES if p in privileges]


class GrantService:
    """Listing needs sight of the memory; changing grants needs delete."""

    def __init__(self, tree: TreeService, grants: GrantStorage):
        self.tree = tree
        self.grants = grants

    async def listing(self, caller: Caller, memory_id: str) -> list[GrantView]:
        """Grants on the memory and on ancestors whose grants reach it, as far up as the caller sees.

        Grants on an ancestor the caller cannot see are left out: listing them would reveal it exists.
        """
        view = await self.tree.require(caller, memory_id, "read")
        seen = set(view.ancestors) | {memory_id}
        listed: list[GrantView] = []
        for node_id, restricted, grants in await self.grants.bearing_on(memory_id):
            if node_id in seen:
                listed += [GrantView(grant=g, inherited=node_id != memory_id) for g in grants]
            if restricted:
                break
        return listed

    async def create(
        self, caller: Caller, memory_id: str, principal: str, privileges: list[str]
    ) -> GrantView:
        """Creates or replaces the principal's grant on this node."""
        await self.tree.require(caller, memory_id, "delete")
        ordered = validate_grant(principal, privileges)
        grant = await self.grants.put(memory_id, principal, ordered, ids.new_id(ids.GRANT), ids.now_ms())
        if grant is None:  # deleted since the check above
            raise MemoryNotFoundError("No memory with that id exists.", param="memory_id")
        return GrantView(grant=grant, inherited=False)

    async def delete(self, caller: Caller, memory_id: str, grant_id: str) -> None:
        """Removes a grant sitting on this node; the creator's implicit grant stays."""
        await self.tree.require(caller, memory_id, "delete")
        found = await self.grants.get(memory_id, grant_id)
        if found is None:
            raise GrantNotFoundError("No grant with that id sits on this memory.", param="grant_id")
        if found.implicit:
            raise MemoryInvalidError("The creator's implicit grant cannot be removed.", param="grant_id")
        await self.grants.delete(memory_id, grant_id)
