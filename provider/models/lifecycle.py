"""Operations, observe jobs, priming and consolidation runs."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from provider.models.records import ReadRecord


@dataclass(frozen=True)
class OperationAsk:
    """A record operation as asked, its input already checked against the operation's input schema."""

    name: str
    duplicate: str | None = None  # merge: the record folded into the one addressed


@dataclass(frozen=True)
class OperationOutcome:
    """What an operation did: the records it returns (by role) and plain facts about the change."""

    name: str
    records: dict[str, ReadRecord] = field(default_factory=dict)
    facts: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class JobState:
    """An observe job as its start or a later read reports it; `error` once it failed."""

    id: str
    status: str
    error: str | None = None


@dataclass(frozen=True)
class Primer:
    """A memory's standing records as one fenced text, within a token budget."""

    memory_id: str
    text: str
    records: list[str]  # the records the text holds, in order
    omitted: int  # standing records that did not fit
    tokens_used: int
    budget: int
    tokenizer: str  # what counted the tokens


@dataclass(frozen=True)
class ConsolidationRun:
    """One consolidation run: its state, what it read, what it changed, its budget and its links."""

    id: str
    memory_id: str
    status: str
    trigger: str | None
    started_at_ms: int | None
    finished_at_ms: int | None
    examined: int
    read_through_ms: int | None
    created: int
    superseded: int
    forgotten: int
    budget_limit: int | None
    budget_exhausted: bool
    error: str
    revert_of: str | None = None
    reverted_by: str | None = None
