"""The memory tree: create, read, change, move, delete and list, each judged by access.py."""

from __future__ import annotations

import base64
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TypeVar

from provider import access, ids
from provider.errors import ConflictError, MemoryInvalidError, MemoryNotFoundError
from provider.models import (
    Caller,
    GrantedFacts,
    MemoryFacts,
    MemoryView,
    NewMemory,
    Page,
    ReachFacts,
    ScopeSizes,
)
from provider.services.tree.ports import MemoryStorage

MAX_PAGE = 100
T = TypeVar("T")


def encode_cursor(offset: int) -> str:
    """An opaque cursor: clients pass it back, never parse it."""
    return base64.urlsafe_b64encode(f"o:{offset}".encode()).decode().rstrip("=")


def decode_cursor(cursor: str | None) -> int:
    """The offset a cursor stands for; a cursor we did not make is refused."""
    if not cursor:
        return 0
    try:
        raw = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)).decode()
        kind, _, value = raw.partition(":")
        if kind != "o" or not value.isdigit():
            raise ValueError(raw)
        return int(value)
    except (ValueError, UnicodeDecodeError) as e:
        raise MemoryInvalidError("The cursor is not one this server gave.", param="cursor") from e


def paginate(items: list[T], cursor: str | None, limit: int) -> tuple[list[T], str | None]:
    """One page and the cursor for the next, or None at the end."""
    if not 1 <= limit <= MAX_PAGE:
        raise MemoryInvalidError(f"limit must be between 1 and {MAX_PAGE}.", param="limit")
    start = decode_cursor(cursor)
    page = items[start : start + limit]
    return page, encode_cursor(start + limit) if start + limit < len(items) else None


def view_of(facts: MemoryFacts) -> MemoryView:
    """What one caller sees of a memory: privileges, visible ancestors, visible children."""
    privileges = access.effective_privileges([*facts.chain, *facts.children])
    ancestors = access.visible_ancestors([n.id for n in facts.chain[:-1]], privileges)
    parent = facts.node.parent_id
    return MemoryView(
        node=facts.node,
        privileges=privileges.get(facts.node.id, access.NOTHING),
        ancestors=ancestors,
        visible_parent_id=parent if parent and privileges.get(parent) else None,
        visible_children=sum(1 for c in facts.children if privileges.get(c.id)),
    )


@dataclass(frozen=True)
class MemoryDraft:
    """A new memory as asked for."""

    name: str
    description: str = ""
    parent_id: str | None = None
    restricted: bool = False
    provider: str | None = None


@dataclass(frozen=True)
class MemoryChanges:
    """A PUT body: None means leave alone; `move` says whether parent_id was given at all."""

    name: str | None = None
    description: str | None = None
    restricted: bool | None = None
    move: bool = False
    parent_id: str | None = None


class TreeService:
    """Authorize, then act; every answer is the caller's view."""

    def __init__(
        self,
        memories: MemoryStorage,
        default_provider: str,
        *,
        busy: Callable[[str], Awaitable[bool]] | None = None,
        deleted: Callable[[], Awaitable[int]] | None = None,
    ):
        self.memories = memories
        self.default_provider = default_provider
        # Whether a consolidation runs in a memory's subtree (moves and deletes wait for it).
        self.busy = busy
        # What runs after a delete: the file sweep (bytes no remaining version names).
        self.deleted = deleted

    async def _refuse_if_busy(self, memory_id: str) -> None:
        """Moves and deletes wait while a consolidation runs in the subtree."""
        if self.busy is not None and await self.busy(memory_id):
            raise ConflictError(
                "A consolidation is running in this memory or below it; try again when it ends."
            )

    async def view(self, caller: Caller, memory_id: str) -> MemoryView:
        """One memory, or 404 when the caller holds nothing on it."""
        facts = (await self.memories.facts(caller.member_id, [memory_id])).get(memory_id)
        view = view_of(facts) if facts else None
        if view is None or not view.privileges:
            raise MemoryNotFoundError("No memory with that id exists.", param="memory_id")
        return view

    async def views(self, caller: Caller, memory_ids: list[str]) -> list[MemoryView]:
        """Several memories in the order asked, each as the caller sees it."""
        found = await self.memories.facts(caller.member_id, memory_ids)
        return [view_of(found[m]) for m in memory_ids if m in found]

    async def require(self, caller: Caller, memory_id: str, privilege: str) -> MemoryView:
        """The view, after checking a privilege (404 unseen, 403 seen without it)."""
        view = await self.view(caller, memory_id)
        access.require(view.privileges, privilege)
        return view

    async def create(self, caller: Caller, draft: MemoryDraft, *, seed: str | None = None) -> MemoryView:
        """A new memory; `create` on the parent when one is named.

        Under an Idempotency-Key its ids derive from the key's `seed`, so a retry makes the same memory.
        """
        parent_id = draft.parent_id
        if parent_id:
            await self.require(caller, parent_id, "create")
        provider = draft.provider
        if provider is not None and provider != self.default_provider:
            raise MemoryInvalidError("No connected provider has that id.", param="provider")
        created = await self.memories.create(
            NewMemory(
                id=ids.derived(ids.MEMORY, seed, "memory") if seed else ids.new_id(ids.MEMORY),
                name=draft.name,
                description=draft.description,
                parent_id=parent_id,
                restricted=draft.restricted,
                provider=provider,
                default_provider=self.default_provider,
                grant_id=ids.derived(ids.GRANT, seed, "grant") if seed else ids.new_id(ids.GRANT),
                creator=caller.principal,
                now=ids.now_ms(),
            )
        )
        if created is None:
            raise MemoryNotFoundError("No memory with that id exists.", param="parent_id")
        return await self.view(caller, created.id)

    async def update(self, caller: Caller, memory_id: str, changes: MemoryChanges) -> MemoryView:
        """Rename and describe need write; restrict and move need delete (and create on the new parent)."""
        view = await self.require(caller, memory_id, "write")
        # Sending back the parent it was shown is no move; naming a parent it was not shown (even the
        # real, hidden one) goes through the move's own checks, so a hidden parent cannot be probed.
        same_parent = changes.parent_id == view.visible_parent_id and (
            changes.parent_id is not None or view.node.parent_id is None
        )
        moving = changes.move and not same_parent
        structural = moving or (changes.restricted is not None and changes.restricted != view.node.restricted)
        if structural:
            await self.require(caller, memory_id, "delete")
        if moving:
            await self._refuse_if_busy(memory_id)
            await self._move(caller, memory_id, changes.parent_id)
        await self.memories.update(
            memory_id,
            name=changes.name,
            description=changes.description,
            restricted=changes.restricted,
            now=ids.now_ms(),
        )
        return await self.view(caller, memory_id)

    async def _move(self, caller: Caller, memory_id: str, parent_id: str | None) -> None:
        """The store refuses a cycle even against a concurrent move, so the answer is judged there."""
        if parent_id is not None:
            await self.require(caller, parent_id, "create")
        outcome = await self.memories.move(memory_id, parent_id, ids.now_ms())
        if outcome == "cycle":
            raise MemoryInvalidError("A memory cannot move below itself.", param="parent_id")
        if outcome is None:  # deleted since the checks above
            param = "memory_id" if parent_id is None else "parent_id"
            raise MemoryNotFoundError("No memory with that id exists.", param=param)

    async def delete(self, caller: Caller, memory_id: str) -> list[str]:
        """The memory, its records and every descendant; the ids of the memories that went."""
        await self.require(caller, memory_id, "delete")
        await self._refuse_if_busy(memory_id)
        removed = await self.memories.delete(memory_id)
        if self.deleted is not None:
            await self.deleted()
        return removed

    async def list_entries(self, caller: Caller, cursor: str | None, limit: int) -> Page[MemoryView]:
        """Where the caller enters the tree: memories it holds a privilege on whose parent it cannot see."""
        facts, names = await self.memories.granted_facts(caller.member_id)
        depth = {n.id: n.depth for n in facts}
        entries = sorted(access.entry_points(facts), key=lambda m: (depth[m], names.get(m) or "", m))
        return await self._page(caller, entries, cursor, limit)

    async def list_children(
        self, caller: Caller, parent_id: str, cursor: str | None, limit: int
    ) -> Page[MemoryView]:
        """Direct children the caller may see, of a memory it may see."""
        facts, names = await self._reach_named(caller, parent_id, depth=1)
        visible = sorted(facts.visible_children(), key=lambda m: (names.get(m) or "", m))
        return await self._page(caller, visible, cursor, limit)

    async def list_descendants(
        self, caller: Caller, ancestor_id: str, cursor: str | None, limit: int
    ) -> Page[MemoryView]:
        """Every descendant the caller may read."""
        facts, _ = await self._reach_named(caller, ancestor_id, depth=None)
        readable = [m for m in facts.readable_scope() if m != ancestor_id]
        return await self._page(caller, readable, cursor, limit)

    async def granted_facts(self, member_id: str) -> GrantedFacts:
        """Every memory the member holds a grant on, with the facts the access walk needs, and names."""
        return await self.memories.granted_facts(member_id)

    async def list_granted(self, caller: Caller, cursor: str | None, limit: int) -> Page[MemoryView]:
        """Readable entry points and every node below where the caller's privileges change."""
        facts, _ = await self.memories.granted_facts(caller.member_id)
        listed = [m for m, _ in access.granted_listing(facts)]
        return await self._page(caller, listed, cursor, limit)

    async def readable_scope(self, caller: Caller, memory_id: str, depth: int | None) -> access.Reach:
        """The caller's reach from a memory: used by recall, graph and queries."""
        reach, _ = await self._reach_named(caller, memory_id, depth=depth)
        return reach

    async def sized_scope(
        self, caller: Caller, memory_id: str, depth: int | None
    ) -> tuple[access.Reach, ScopeSizes]:
        """The reach, with each memory's record count and records_version read in the same statement."""
        facts = await self._facts(caller, memory_id, depth)
        return facts[0], facts[1].sizes

    async def _reach_named(
        self, caller: Caller, memory_id: str, depth: int | None
    ) -> tuple[access.Reach, dict[str, str]]:
        reach, facts = await self._facts(caller, memory_id, depth)
        return reach, facts.names

    async def _facts(
        self, caller: Caller, memory_id: str, depth: int | None
    ) -> tuple[access.Reach, ReachFacts]:
        facts = await self.memories.reach(caller.member_id, memory_id, depth)
        reach = access.reach(memory_id, facts.chain, facts.below) if facts else None
        if facts is None or reach is None or not reach.visible:
            raise MemoryNotFoundError("No memory with that id exists.", param="memory_id")
        return reach, facts

    async def _page(
        self, caller: Caller, memory_ids: list[str], cursor: str | None, limit: int
    ) -> Page[MemoryView]:
        page, next_cursor = paginate(memory_ids, cursor, limit)
        return Page(items=await self.views(caller, page), next_cursor=next_cursor)
