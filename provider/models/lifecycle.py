"""Operations, observe jobs, priming and consolidation runs."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from provider.models.access import Caller
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
class NewObserveJob:
    """An observe answered 202: the episodes to keep, for whom, and the lease its first runner holds."""

    id: str
    memory_id: str
    caller: Caller
    episodes_json: str
    count: int
    now: int
    lease_until: int
    owner: str


@dataclass(frozen=True)
class ClaimedObserveJob:
    """A job a runner now holds: who observed, where, and the episodes to keep."""

    id: str
    memory_id: str
    caller: Caller
    episodes_json: str


@dataclass(frozen=True)
class StoredObserveJob:
    """A job as its route reads it: its state and, once completed, the records it wrote."""

    state: JobState
    record_ids: list[str]


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
class RunStart:
    """A run's start: whether it holds the memory now, and where the last finished run read through."""

    started: bool
    after: int
    after_id: str


@dataclass(frozen=True)
class RunRead:
    """What a closing run read: how many it examined, how far, whether its budget ran out, why it failed."""

    examined: int = 0
    through: int | None = None
    through_id: str | None = None
    exhausted: bool = False
    error: str = ""


@dataclass(frozen=True)
class RunCounts:
    """What a run changed: records created, superseded and forgotten."""

    created: int
    superseded: int
    forgotten: int


@dataclass(frozen=True)
class RunChange:
    """One change a run made to a record, in the order it made them."""

    seq: int
    record_id: str
    action: str  # created, superseded or forgotten
    before: int | None  # the version before the change (None for created)
    after: int | None  # the version after it (None for forgotten)


@dataclass(frozen=True)
class NetChange:
    """A record's changes in one run taken as one, for a revert: undo to `before` if still at `expected`."""

    record_id: str
    action: str  # the run's first change to the record
    before: int | None
    expected: int | None


@dataclass(frozen=True)
class Referrer:
    """An active record that references another, and the memory it is in."""

    id: str
    memory_id: str


@dataclass(frozen=True)
class EntityReferrer:
    """An active record referring to an entity being merged, as its current version has it."""

    id: str
    memory_id: str
    version: int
    references: list[dict[str, Any]]  # the version's references, in the writer's shape


@dataclass(frozen=True)
class Repoint:
    """A referrer's new version: its references with the duplicate replaced, if still at `expected`."""

    id: str
    expected: int
    seq: int  # its place in the run's log
    references: list[dict[str, Any]]


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
