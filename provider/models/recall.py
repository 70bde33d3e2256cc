"""What recall and the graph read are asked, what they find, and how they explain it."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal, NamedTuple

from provider.models.queries import DataVersion
from provider.models.records import ReadRecord
from provider.models.tree import MemoryView


@dataclass(frozen=True)
class Place:
    """Where a result or a node is: its memory's id and name."""

    id: str
    name: str


@dataclass(frozen=True)
class RecallHit:
    """One result: the record as the caller may read it, where it is, its fused score and its signals.

    `score` is None for the other side of a disagreement, which came along rather than ranked.
    """

    record: ReadRecord
    memory: Place
    score: float | None
    why: list[str]


@dataclass(frozen=True)
class RecordRef:
    """An edge's end: the memory only when the reader may read it."""

    record_id: str
    memory_id: str | None = None


@dataclass(frozen=True)
class Located:
    """A record's id and the memory it is in."""

    record_id: str
    memory_id: str


@dataclass(frozen=True)
class HeldReference:
    """A reference one record holds to another, with both memories, as the store finds it."""

    source: str
    source_memory: str
    target: str
    target_memory: str
    rel: str


@dataclass(frozen=True)
class GraphNode:
    """A record of the graph and where it is."""

    record: ReadRecord
    memory: Place


@dataclass(frozen=True)
class GraphEdge:
    """A reference; into a memory the reader may not read, only the target's id and `available` false."""

    source: RecordRef
    target: RecordRef
    rel: str | None
    available: bool


@dataclass
class RecallAnswer:
    """Results with their memories, the neighbours of the asked memory, and what was not done.

    `explanations` holds one per result, in order, when the recall asked to `explain`; else it is empty.
    """

    results: list[RecallHit]
    parent: MemoryView | None
    children: list[MemoryView]
    degraded: list[str] = field(default_factory=list)
    abstain: bool = False
    strategy: str = ""
    explanations: list[Explanation] = field(default_factory=list)
    data: DataVersion | None = None  # a query's answer in recall's shape: the copy's data it reflects


@dataclass(frozen=True)
class SignalPart:
    """What one signal said of a hit: its rank there (1 is first), its own score, what it added."""

    rank: int
    score: float | None
    added: float


@dataclass(frozen=True)
class Explanation:
    """Why a result is where it is: each signal's part, a date lift, its fused place, the cross-encoder.

    `contradicts` names the result it came with when it was brought in as the other side of a
    disagreement, past the ranking.
    """

    signals: dict[str, SignalPart]
    date_lift: float
    fused_rank: int | None
    rerank: SignalPart | None = None
    rerank_run: RerankRun | None = None
    contradicts: str | None = None


@dataclass(frozen=True)
class RerankRun:
    """What the cross-encoder read of a recall's head: `read` pairs of the `candidates` it could have.

    `stopped`: `all` (every candidate of the head read), `sure` (the cascade's first part held a sure
    answer, so the rest kept their fused order).
    """

    read: int
    candidates: int
    stopped: str


@dataclass(frozen=True)
class GraphAnswer:
    """Records as nodes with their memories, references as edges, and whether the limit cut it.

    An edge into a memory the reader may not read names only the target's record id, `available` false.
    """

    nodes: list[GraphNode]
    edges: list[GraphEdge]
    truncated: bool
    degraded: list[str]


@dataclass(frozen=True)
class FilterLeaf:
    """One condition: `field` is `type`, `attributes.<name>` or `time.<name>`."""

    field: str
    op: str
    value: Any


@dataclass(frozen=True)
class FilterGroup:
    """`and` or `or` over filters."""

    kind: Literal["and", "or"]
    children: list[FilterLeaf | FilterGroup]


FilterNode = FilterLeaf | FilterGroup


@dataclass(frozen=True)
class RecallAsk:
    """A recall as asked: at least one signal, already checked."""

    query: str | None = None
    text: str | None = None
    filters: FilterNode | None = None
    types: list[str] | None = None
    as_of: str | None = None
    include: str = "active"
    depth: int | None = None
    limit: int = 10
    rerank: bool | None = None  # None: the deployment's default (UHP_RECALL_RERANK)
    explain: bool = False


@dataclass(frozen=True)
class GraphAsk:
    """A graph read as asked."""

    around: str | None = None
    hops: int = 1
    types: list[str] | None = None
    limit: int = 100


# A compiled recall filter: a list of conjunctions of `{key, op, value}` ([[]] for none), passed to
# static Cypher as a parameter so a filter never becomes query text (services/recall/filters.py).
Predicate = dict[str, Any]
Dnf = list[list[Predicate]]


class Hit(NamedTuple):
    """One record a signal found in the scope, with its own score (None where a signal has none)."""

    record_id: str
    memory_id: str
    score: float | None


class Searched(NamedTuple):
    """A signal's hits, best first, and how the store searched (`exact`, `index`, `fields`, ...)."""

    hits: list[Hit]
    strategy: str


class Contradiction(NamedTuple):
    """A record a result disagrees with (or that disagrees with it), and where it lives."""

    of: str  # the result's record id
    other: str  # the other side's record id
    memory_id: str  # the other side's memory


class RerankText(NamedTuple):
    """What the cross-encoder reads of a record, and whether its valid time has ended."""

    words: str
    ended: bool


@dataclass(frozen=True)
class WordHolder:
    """A record in scope holding some of a search's words: which (their indexes), and its length."""

    record_id: str
    memory_id: str
    length: int  # characters of its title and words
    words: tuple[int, ...]


@dataclass(frozen=True)
class WordMatches:
    """A full-text search counted in the scope: per word how many records hold it, and the holders."""

    holding: list[int]
    found: list[WordHolder]
    capped: bool  # a word had more holders than its share of the fetch: its count is a floor


@dataclass(frozen=True)
class ScopeSize:
    """Records in the scope (an upper bound), in the store, and each memory's records_version."""

    in_scope: int
    total: int
    versions: dict[str, int]


@dataclass(frozen=True)
class HistoryRanking:
    """A history read's top hits per signal, ranked in Neo4j, and whether its window left versions out."""

    meaning: list[Hit]
    words: list[Hit]
    newest: list[Hit]
    cut: bool


@dataclass(frozen=True)
class Subject:
    """What tells whether two candidates speak of the same thing, and which of them is later."""

    type: str
    speaker: str | None
    at: int
    vector: list[float]
