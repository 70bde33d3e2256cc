"""Named and free Cypher queries and their rows."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, NamedTuple

from provider.models.records import Writer

LANGUAGE = "cypher"  # the one query language this provider speaks


@dataclass(frozen=True)
class NamedQuery:
    """A stored definition, as `MemoryQuery` names its fields."""

    memory_id: str
    name: str
    description: str
    body: str
    params: dict[str, Any]
    requires: str = "read"
    language: str = LANGUAGE
    created_at: int | None = None
    updated_at: int | None = None
    written_by: str | None = None


@dataclass
class QueryRows:
    """An answer that is not records: the columns and rows as the statement returned them, fenced.

    `written_by` holds, per row, the writers of the whole records in it (query_fence says which).
    """

    columns: list[str]
    rows: list[list[Any]]
    written_by: list[list[Writer]] = field(default_factory=list)
    degraded: list[str] = field(default_factory=list)
    data: DataVersion | None = None


@dataclass(frozen=True)
class ScopeVersion:
    """A readable scope's data version as the main database gives it, memory by memory (sorted by id).

    `seqs` are the memories' change_seq (what a copy replays up to); `shape` is what a copy can never be
    brought past (each memory's copy_epoch and updated_at: an erase, a delete, a rename or move), so it
    is part of the copy's key; `records` bounds what the scope holds; `read_at` is when it was read.
    """

    memory_ids: tuple[str, ...]
    seqs: tuple[int, ...]
    shape: tuple[tuple[int, int], ...]
    records: int
    read_at: int


@dataclass(frozen=True)
class DataVersion:
    """What an answer reflects: an opaque name of the copy's data, and the instant it was current.

    Every write acknowledged before `as_of` is in it; `stale_ms` is how far `as_of` lay behind the
    question (0 unless the caller accepted staleness).
    """

    version: str
    as_of: int
    stale_ms: int = 0


@dataclass(frozen=True)
class FreeQuery:
    """A `MemoryFreeQuery`, shape already checked at the edge."""

    statement: str
    params: dict[str, Any] = field(default_factory=dict)
    depth: int | None = None
    language: str = LANGUAGE
    write: bool = False
    max_staleness_ms: int = 0


@dataclass(frozen=True)
class CopiedReference:
    """A reference as the copy holds it: to a record of the scope, or to an id-only stub."""

    source: str
    target: str
    rel: str
    position: int


@dataclass
class Projection:
    """Everything the sandbox holds for one scope, in a fixed order (so a load is deterministic)."""

    memories: list[dict[str, Any]] = field(default_factory=list)
    records: list[dict[str, Any]] = field(default_factory=list)  # by memory, then id
    references: list[CopiedReference] = field(default_factory=list)
    stubs: list[str] = field(default_factory=list)

    @property
    def stub_references(self) -> list[CopiedReference]:
        """References whose target is outside the scope."""
        stubbed = set(self.stubs)
        return [r for r in self.references if r.target in stubbed]

    @property
    def inner_references(self) -> list[CopiedReference]:
        """References between records of the scope."""
        stubbed = set(self.stubs)
        return [r for r in self.references if r.target not in stubbed]


class ProjectionPage(NamedTuple):
    """A page of a memory's records for a sandbox's load, and where the next page starts.

    `following`: the next page holds records made after this instant; None after the last page.
    """

    projection: Projection
    following: int | None
