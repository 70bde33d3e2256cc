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

    async def bearing_on(self, memory_id: str) -> list[GrantsOn]: ...

    async def put(
        self, memory_id: str, principal: str, privileges: list[str], grant_id: str, now: int
    ) -> Grant | None: ...

    async def get(self, memory_id: str, grant_id: str) -> Grant | None: ...

    async def delete(self, memory_id: str, grant_id: str) -> None: ...


class HarnessStorage(Protocol):
    """What the tree services need of the harness store."""

    async def create(
        self, harness_id: str, name: str, member_id: str, now: int
    ) -> HarnessSettings | None: ...

    async def get(self, harness_id: str) -> HarnessSettings | None: ...

    async def update(self, harness_id: str, default_memory_id: str | None, observe: bool) -> None: ...


class MemoryStorage(Protocol):
    """What the tree services need of the memory store."""

    async def facts(self, member_id: str, memory_ids: list[str]) -> dict[str, MemoryFacts]: ...

    async def reach(self, member_id: str, memory_id: str, depth: int | None) -> ReachFacts | None: ...

    async def granted_facts(self, member_id: str) -> GrantedFacts: ...

    async def create(self, memory: NewMemory) -> CreatedMemory | None: ...

    async def update(
        self, memory_id: str, *, name: str | None, description: str | None, restricted: bool | None, now: int
    ) -> None: ...

    async def move(
        self, memory_id: str, parent_id: str | None, now: int
    ) -> Literal["moved", "cycle"] | None: ...

    async def delete(self, memory_id: str) -> list[str]: ...


class PrincipalStorage(Protocol):
    """What the tree services need of the principal store."""

    async def create_member(self, member_id: str, member_type: str, name: str, now: int) -> Member: ...

    async def get_member(self, member_id: str) -> Member | None: ...

    async def add_key(
        self, member_id: str, key_id: str, key_hash: str, *, server: bool, now: int, expires_at: int | None
    ) -> ApiKey | None: ...

    async def resolve_key(self, key_hash: str, now: int) -> KeyHolder | None: ...

    async def touch_key(self, key_id: str, now: int, every_ms: int) -> None: ...

    async def list_keys(self, member_id: str, now: int) -> list[ApiKey] | None: ...

    async def revoke_key(self, member_id: str, key_id: str, at: int) -> ApiKey | None: ...

    async def rotate_key(
        self,
        member_id: str,
        old_id: str,
        new: NewKey,
        *,
        now: int,
        old_ends: int,
        expires_at: int | None,
    ) -> Rotation | None: ...

    async def create_group(self, group_id: str, name: str, now: int) -> Group: ...

    async def add_to_group(self, group_id: str, member_id: str) -> bool: ...

    async def remove_from_group(self, group_id: str, member_id: str) -> GroupRemoval: ...


class UsageStorage(Protocol):
    """What the tree services need of the usage store."""

    async def of(self, principal: str) -> Usage: ...
