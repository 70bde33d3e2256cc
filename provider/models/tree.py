"""The memory tree, its grants and harness memories, as services and access see them."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import NamedTuple

from provider.models.access import Privilege


@dataclass(frozen=True)
class NodeFacts:
    """What access needs to know of one memory: its place, its cutoff, the caller's own grants on it."""

    id: str
    parent_id: str | None
    restricted: bool
    granted: frozenset[str]
    depth: int = 0


@dataclass(frozen=True)
class ScopeSizes:
    """Read with a reach: each memory's record count (an upper bound), its records_version, the total.

    Recall chooses how to search a scope from them without asking again.
    """

    records: dict[str, int] = field(default_factory=dict)
    versions: dict[str, int] = field(default_factory=dict)
    total: int = 0


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
class NewMemory:
    """A memory about to be stored, its ids chosen and its creator named.

    `provider` None means the parent's provider, or `default_provider` for a root. The field names are
    the parameters of memory_create.cypher.
    """

    id: str
    name: str
    description: str
    parent_id: str | None
    restricted: bool
    provider: str | None
    default_provider: str
    grant_id: str
    creator: str
    now: int


@dataclass(frozen=True)
class CreatedMemory:
    """What a create stored: `created` is False when a memory with the id stood already (a retry)."""

    id: str
    provider: str
    created: bool


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


@dataclass(frozen=True)
class HarnessMemory:
    """One memory a harness's agent holds a grant on, with its effective privileges."""

    id: str
    name: str | None
    privileges: list[Privilege]
    default: bool


@dataclass(frozen=True)
class HarnessMemories:
    """What a harness's agent may work in: the memories it holds grants on, highest first."""

    principal: str
    default_memory_id: str | None
    observe: bool
    memories: list[HarnessMemory]


@dataclass(frozen=True)
class Harness:
    """A harness and the member its agent runs as."""

    id: str
    name: str
    member_id: str
    principal: str


@dataclass(frozen=True)
class HarnessSettings:
    """A harness as stored: its agent's member, its default memory and whether it observes turns."""

    id: str
    name: str
    member_id: str
    default_memory_id: str | None
    observe: bool


@dataclass(frozen=True)
class MemoryFacts:
    """One memory, the chain above it (root first, ending with itself) and its direct children."""

    node: MemoryNode
    chain: list[NodeFacts]
    children: list[NodeFacts]


@dataclass(frozen=True)
class ReachFacts:
    """The chain above a memory (root first, ending with itself) and its subtree within a depth."""

    chain: list[NodeFacts]
    below: list[NodeFacts]
    names: dict[str, str]
    sizes: ScopeSizes = field(default_factory=ScopeSizes)


class GrantsOn(NamedTuple):
    """One memory of a chain, whether it is restricted, and the grants sitting on it, oldest first."""

    memory_id: str
    restricted: bool
    grants: list[Grant]


class GrantedFacts(NamedTuple):
    """Every memory a member holds a grant on, with its chain to the root, and their names by id."""

    facts: list[NodeFacts]
    names: dict[str, str]
