"""Named and free Cypher queries and their rows."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

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


@dataclass(frozen=True)
class FreeQuery:
    """A `MemoryFreeQuery`, shape already checked at the edge."""

    statement: str
    params: dict[str, Any] = field(default_factory=dict)
    depth: int | None = None
    language: str = LANGUAGE
    write: bool = False


@dataclass(frozen=True)
class Reference:
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
    references: list[Reference] = field(default_factory=list)
    stubs: list[str] = field(default_factory=list)

    @property
    def stub_references(self) -> list[Reference]:
        """References whose target is outside the scope."""
        stubbed = set(self.stubs)
        return [r for r in self.references if r.target in stubbed]

    @property
    def inner_references(self) -> list[Reference]:
        """References between records of the scope."""
        stubbed = set(self.stubs)
        return [r for r in self.references if r.target not in stubbed]
