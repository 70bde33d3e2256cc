"""The ports of tree: what its services need of storage.

That is memories, grants, harnesses, principals and usage.
The Neo4j stores in provider/store implement them; the composition root passes those in, and the fast
tests pass in-memory fakes.
"""

from __future__ import annotations

from typing import Literal, Protocol

from provider.models import (
    ApiKey,
    CreatedMemory,
    Grant,
    GrantedFacts,
    GrantsOn,
    Group,
    GroupRemoval,
    HarnessSettings,
    KeyHolder,
    Member,
    MemoryFacts,
    NewKey,
    NewMemory,
    ReachFacts,
    Rotation,
    Usage,
)


class GrantStorage(Protocol):
    """What the tree services need of the grant store."""

    async def bearing_on(self, memory_id: str) -> list[GrantsOn]:
        """The chain from the memory up, nearest first: (node id, restricted, grants sitting on it)."""
        ...

    async def put(
        self, memory_id: str, principal: str, privileges: list[str], grant_id: str, now: int
    ) -> Grant | None:
        """Creates or replaces the principal's grant on the memory; None when the memory is gone.

        A MERGE under the slot constraint does not break it, but should a racing write still trip it,
        the grant exists by then, and the next run finds it and replaces its privileges.
        """
        ...

    async def get(self, memory_id: str, grant_id: str) -> Grant | None:
        """A grant sitting on the memory, or None (one on another memory, an ancestor's too, is None)."""
        ...

    async def delete(self, memory_id: str, grant_id: str) -> None:
        """Removes a grant sitting on the memory."""
        ...


class HarnessStorage(Protocol):
    """What the tree services need of the harness store."""

    async def create(self, harness_id: str, name: str, member_id: str, now: int) -> HarnessSettings | None:
        """The new harness with its first settings; None when the member is unknown."""
        ...

    async def get(self, harness_id: str) -> HarnessSettings | None:
        """A harness, or None."""
        ...

    async def update(self, harness_id: str, default_memory_id: str | None, observe: bool) -> None:
        """Stores the settings."""
        ...


class MemoryStorage(Protocol):
    """What the tree services need of the memory store."""

    async def facts(self, member_id: str, memory_ids: list[str]) -> dict[str, MemoryFacts]:
        """Each known memory with its chain and children, in one round trip."""
        ...

    async def reach(self, member_id: str, memory_id: str, depth: int | None) -> ReachFacts | None:
        """The chain and the subtree within `depth`, or None when the memory is unknown."""
        ...

    async def granted_facts(self, member_id: str) -> GrantedFacts:
        """Every node the caller holds a grant on, with their chains, and the nodes' names."""
        ...

    async def create(self, memory: NewMemory) -> CreatedMemory | None:
        """Creates a memory with its creator's grant; None when the parent vanished.

        The memory is charged to its creator's quota of memories: past it, 429 and nothing created.
        A memory whose id stands already is left as it is and charged nothing (`created` False).
        """
        ...

    async def update(
        self, memory_id: str, *, name: str | None, description: str | None, restricted: bool | None, now: int
    ) -> None:
        """Changes the fields given."""
        ...

    async def move(self, memory_id: str, parent_id: str | None, now: int) -> Literal["moved", "cycle"] | None:
        """'moved', 'cycle' (refused: the new parent lies below), or None when either memory is unknown.

        A 'stale' answer means a concurrent move changed the new parent's chain between the read and
        the locks (memory_move.cypher), so it runs again, on the chain as it now is.
        """
        ...

    async def delete(self, memory_id: str) -> list[str]:
        """Removes the subtree; the ids removed.

        What the subtree holds goes first, batch by batch: one transaction for 100,000 records and
        their versions ran past Neo4j's transaction memory limit. A failure part-way leaves the memory
        in place, fewer of its contents, and the same call finishes the job. Each batch gives back
        what its versions were charged, and the last step the memories' own charge.
        """
        ...


class PrincipalStorage(Protocol):
    """What the tree services need of the principal store."""

    async def create_member(self, member_id: str, member_type: str, name: str, now: int) -> Member:
        """Stores a new member."""
        ...

    async def get_member(self, member_id: str) -> Member | None:
        """A member by id, or None."""
        ...

    async def add_key(
        self, member_id: str, key_id: str, key_hash: str, *, server: bool, now: int, expires_at: int | None
    ) -> ApiKey | None:
        """Stores a key's hash for a member; the key judged at `now`, or None when the member is unknown."""
        ...

    async def resolve_key(self, key_hash: str, now: int) -> KeyHolder | None:
        """The member and kind of a key in force at `now`, or None (unknown, revoked or expired)."""
        ...

    async def touch_key(self, key_id: str, now: int, every_ms: int) -> None:
        """Stamps `last_used_at`, unless it was stamped less than `every_ms` ago."""
        ...

    async def list_keys(self, member_id: str, now: int) -> list[ApiKey] | None:
        """A member's keys, newest first, judged at `now`; None when the member is unknown."""
        ...

    async def revoke_key(self, member_id: str, key_id: str, at: int) -> ApiKey | None:
        """Ends a member's key at `at` (an earlier end stays), judged then; None when either is unknown."""
        ...

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
        ...

    async def create_group(self, group_id: str, name: str, now: int) -> Group:
        """Stores a new group."""
        ...

    async def add_to_group(self, group_id: str, member_id: str) -> bool:
        """Adds a member or group to a group; False when either is unknown."""
        ...

    async def remove_from_group(self, group_id: str, member_id: str) -> GroupRemoval:
        """(group found, memberships removed)."""
        ...


class UsageStorage(Protocol):
    """What the tree services need of the usage store."""

    async def of(self, principal: str) -> Usage:
        """What the principal keeps, beside the limits in force."""
        ...
