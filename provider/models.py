"""Domain types: plain data with no I/O, shared by services, access and store."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Generic, Literal, TypeVar

Privilege = Literal["read", "write", "create", "delete"]
ALL_PRIVILEGES: tuple[Privilege, ...] = ("read", "write", "create", "delete")
MemberType = Literal["human", "agent"]


def ordered_privileges(privileges: frozenset[str]) -> list[Privilege]:
    """Privileges in the chapter's order, so answers are stable."""
    return [p for p in ALL_PRIVILEGES if p in privileges]


@dataclass(frozen=True)
class Caller:
    """Who is asking: the member a request acts for, resolved from its credential."""

    member_id: str
    member_type: MemberType

    @property
    def principal(self) -> str:
        """The caller as the access model names it."""
        return f"member:{self.member_id}"


@dataclass(frozen=True)
class NodeFacts:
    """What access needs to know of one memory: its place, its cutoff, the caller's own grants on it."""

    id: str
    parent_id: str | None
    restricted: bool
    granted: frozenset[str]
    depth: int = 0


@dataclass(frozen=True)
class MemoryNode:
    """A memory as stored."""

    id: str
    name: str
    description: str
    parent_id: str | None
    restricted: bool
    provider: str
    created_at: int
    updated_at: int
    record_count: int = 0


@dataclass(frozen=True)
class MemoryView:
    """A memory as one caller sees it."""

    node: MemoryNode
    privileges: frozenset[str]
    ancestors: list[str]
    visible_parent_id: str | None
    visible_children: int


@dataclass(frozen=True)
class Grant:
    """A principal's privileges on one memory."""

    id: str
    memory_id: str
    principal: str
    privileges: frozenset[str]
    implicit: bool = False


@dataclass(frozen=True)
class GrantView:
    """A grant as listed on a memory: `inherited` when it sits on an ancestor."""

    grant: Grant
    inherited: bool


T = TypeVar("T")


@dataclass
class Page(Generic[T]):
    """One page of a listing and the cursor for the next."""

    items: list[T] = field(default_factory=list)
    next_cursor: str | None = None
