"""Domain types: plain data with no I/O, shared by services, access and store."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any, Generic, Literal, TypeVar

Privilege = Literal["read", "write", "create", "delete"]
ALL_PRIVILEGES: tuple[Privilege, ...] = ("read", "write", "create", "delete")
MemberType = Literal["human", "agent"]


def ordered_privileges(privileges: frozenset[str]) -> list[Privilege]:
    """Privileges in the chapter's order, so answers are stable."""
    return [p for p in ALL_PRIVILEGES if p in privileges]


LONGEST_KEY_SECONDS = 10 * 366 * 86_400  # a key's longest life: past ten years an expiry is a typo


@dataclass(frozen=True)
class Caller:
    """Who is asking: the member a request acts for, resolved from its credential."""

    member_id: str
    member_type: MemberType
    via_server: bool = False

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


@dataclass(frozen=True)
class Writer:
    """Who wrote a version, stamped from the authenticated caller (or the provider itself)."""

    kind: str
    id: str
    type: str | None = None
    on_behalf_of: str | None = None
    consolidation_id: str | None = None

    @property
    def payer(self) -> str | None:
        """The principal whose quotas a version counts against; None: its root's only.

        The member who wrote it, or the one the provider wrote it for (observe); a consolidation run's
        version has no payer.
        """
        if self.kind == "member":
            return f"member:{self.id}"
        return self.on_behalf_of


@dataclass(frozen=True)
class RecordVersion:
    """One version of a record, as stored; what a read returns is chosen from these."""

    record_id: str
    memory_id: str
    type: str
    title: str | None
    content: list[dict[str, Any]]
    attributes: dict[str, Any]
    references: list[dict[str, Any]]
    version: int
    status: str
    supersedes: int | None
    valid_from: str | None
    valid_to: str | None
    written_at: int
    invalidated_at: int | None
    superseded_at: int | None
    forgotten_at: int | None
    writer: Writer
    follows: dict[str, Any] | None = None

    def state_at(self, instant: int | None) -> RecordVersion:
        """The version as it stood at an instant: later closings are not yet visible."""
        if instant is None:
            return self
        forgotten = self.forgotten_at is not None and self.forgotten_at <= instant
        superseded = self.superseded_at is not None and self.superseded_at <= instant
        status = "forgotten" if forgotten else "superseded" if superseded else "active"
        closed = self.invalidated_at if (forgotten or superseded) else None
        return replace(self, status=status, invalidated_at=closed)

    def live_at(self, instant: int) -> bool:
        """True when this was the record's current version at the instant."""
        return self.written_at <= instant and (self.superseded_at is None or self.superseded_at > instant)


@dataclass(frozen=True)
class StoredRecord:
    """A record with every one of its versions, oldest first."""

    id: str
    memory_id: str
    current: int
    versions: list[RecordVersion]

    def latest(self) -> RecordVersion:
        """The current version.

        A read that races a revision can see the record's counter move before the new version is
        matched; it then gets the newest version it did see (a revision's compare-and-set notices
        and tries again).
        """
        found = next((v for v in self.versions if v.version == self.current), None)
        return found if found is not None else max(self.versions, key=lambda v: v.version)

    def at(self, instant: int | None) -> RecordVersion | None:
        """The version current at an instant (None before the record existed)."""
        if instant is None:
            return self.latest()
        live = [v for v in self.versions if v.live_at(instant)]
        return live[-1].state_at(instant) if live else None


@dataclass(frozen=True)
class ReadRecord:
    """A version as one reader sees it: references resolved with the reader's privileges.

    `withheld` marks the answer to a writer who may not read: it names the record and nothing it says.
    """

    version: RecordVersion
    references: list[dict[str, Any]]
    withheld: bool = False


@dataclass
class RecallAnswer:
    """Results with their memories, the neighbours of the asked memory, and what was not done.

    `explanations` holds one per result, in order, when the recall asked to `explain`; else it is empty.
    """

    results: list[tuple[ReadRecord, dict[str, str], float | None, list[str]]]
    parent: MemoryView | None
    children: list[MemoryView]
    degraded: list[str] = field(default_factory=list)
    abstain: bool = False
    strategy: str = ""
    explanations: list[Explanation] = field(default_factory=list)


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
    contradicts: str | None = None


@dataclass(frozen=True)
class GraphAnswer:
    """Records as nodes with their memories, references as edges, and whether the limit cut it.

    An edge is `{from, to, rel, available}`; into a memory the reader may not read, only the target's
    record id and `available: false`.
    """

    nodes: list[tuple[ReadRecord, dict[str, str]]]
    edges: list[dict[str, Any]]
    truncated: bool
    degraded: list[str]


@dataclass(frozen=True)
class RecordDraft:
    """A record as its writer states it, already checked against the chapter's shape and the bounds.

    Content parts, attributes and references stay JSON-like: the chapter carries extension parts
    unchanged, and attributes are free-form by design.
    """

    type: str = "fact"
    title: str | None = None
    content: list[dict[str, Any]] = field(default_factory=list)
    attributes: dict[str, Any] = field(default_factory=dict)
    references: list[dict[str, Any]] = field(default_factory=list)  # {rel, record_id}
    valid_from: str | None = None
    valid_to: str | None = None
    follows: dict[str, Any] | None = None


@dataclass(frozen=True)
class RecordChanges:
    """A revision: the fields in `given` replace the current version's; the others are kept."""

    given: frozenset[str]
    title: str | None = None
    content: list[dict[str, Any]] = field(default_factory=list)
    attributes: dict[str, Any] = field(default_factory=dict)
    references: list[dict[str, Any]] = field(default_factory=list)
    valid_from: str | None = None
    valid_to: str | None = None
    noted: dict[str, Any] = field(default_factory=dict)  # added over the attributes the version keeps


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
class Erasure:
    """What an erase removed, and what it cannot reach by its nature (copies outside this provider).

    `erased` is the records named, then those derived only from them that the caller may read.
    """

    erased: list[str]
    unreachable: list[str]


@dataclass(frozen=True)
class JobState:
    """An observe job as its start or a later read reports it; `error` once it failed."""

    id: str
    status: str
    error: str | None = None


@dataclass(frozen=True)
class Snapshot:
    """A named instant of a memory (nothing is copied: the name and the server's clock)."""

    id: str
    memory_id: str
    name: str
    message: str
    at_ms: int


@dataclass(frozen=True)
class StoredFile:
    """An uploaded file as its uploader is told: what was kept, not the bytes."""

    id: str
    filename: str
    bytes: int
    created_at_ms: int
    purpose: str
    media_type: str


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
class ApiKey:
    """A member's key as an operator may see it: its times, never the key or its hash."""

    id: str
    member_id: str
    server: bool
    created_at_ms: int | None
    expires_at_ms: int | None
    last_used_at_ms: int | None
    revoked_at_ms: int | None
    now_ms: int  # the instant `revoked` and `expired` are judged at

    @property
    def revoked(self) -> bool:
        return self.revoked_at_ms is not None and self.revoked_at_ms <= self.now_ms

    @property
    def expired(self) -> bool:
        return self.expires_at_ms is not None and self.expires_at_ms <= self.now_ms


@dataclass(frozen=True)
class IssuedKey:
    """A new key with its secret, shown this once; a rotation also names the key it replaces."""

    key: ApiKey
    secret: str
    previous: ApiKey | None = None


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
    observe: Any
    memories: list[HarnessMemory]


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


@dataclass(frozen=True)
class Principal:
    """A member or a group as the admin surface made it, with the principal string a grant names."""

    id: str
    name: str
    principal: str
    type: str | None = None  # a member's kind (human, agent); a group has none


@dataclass(frozen=True)
class Membership:
    """Whether a member now belongs to a group; `removed` says whether a removal found one."""

    group_id: str
    member_id: str
    member: bool
    removed: bool | None = None


@dataclass(frozen=True)
class Harness:
    """A harness and the member its agent runs as."""

    id: str
    name: str
    member_id: str
    principal: str


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
class RestoredRecord:
    """A record from an archive, ready to write: every version with its words and their vector."""

    versions: list[RecordVersion]
    words: list[str]
    vectors: list[Vectors | None]
    created_at: int


@dataclass
class ArchiveCounts:
    """What an archive holds, as its manifest counts it (and a run's progress shows it)."""

    memories: int = 0
    records: int = 0
    versions: int = 0
    snapshots: int = 0
    grants: int = 0
    files: int = 0
    file_bytes: int = 0


EmbedReason = Literal["asked", "no_key", "unsigned", "signature_mismatch", "model_differs"]
"""Why a restore embedded an archive's versions rather than keep the vectors it carried."""


@dataclass
class RestoreSummary:
    """What a restore wrote (`created`) and found there already, identical (`present`).

    `embed_reason` is None when the archive's vectors were kept: it was signed with this deployment's
    archive key and their model runs here.
    """

    memory_id: str
    root: str
    created: ArchiveCounts = field(default_factory=ArchiveCounts)
    present: ArchiveCounts = field(default_factory=ArchiveCounts)
    withheld: bool = False
    embed_reason: EmbedReason | None = None


# Two vector slots on every Record and RecordVersion, each with its own vector index. A deployment
# reads one (`active`) and, while it moves to another model, fills the other; see docs/MODELS.md.
VECTOR_SLOTS: tuple[str, ...] = ("embedding", "embedding_b")
VECTOR_INDEXES = {"embedding": "record_embedding", "embedding_b": "record_embedding_b"}
Vectors = dict[str, list[float]]
"""One text's vectors: slot property to the vector its slot's model made."""


def other_slot(slot: str) -> str:
    """The slot a move to another model fills."""
    return VECTOR_SLOTS[1 - VECTOR_SLOTS.index(slot)]


@dataclass(frozen=True)
class VectorState:
    """Which slot recall reads, which model fills each live slot, and which slot is being filled.

    `recorded` is false on a database no model move has touched: the configured model in `embedding`.
    """

    active: str
    models: dict[str, str]
    filling: str | None = None
    recorded: bool = False

    @property
    def active_model(self) -> str:
        return self.models[self.active]


@dataclass(frozen=True)
class UsageLimits:
    """What one principal may keep, and what one root memory's tree may hold; 0 is no limit."""

    records: int = 0
    content_bytes: int = 0
    memories: int = 0
    root_records: int = 0
    root_content_bytes: int = 0


@dataclass(frozen=True)
class Usage:
    """What one principal keeps, beside the limits that apply to it.

    Records it wrote, the content bytes of every version it wrote, and memories it created.
    """

    principal: str
    records: int
    content_bytes: int
    memories: int
    limits: UsageLimits
