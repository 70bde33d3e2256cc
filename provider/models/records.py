"""Records, their versions, drafts and changes, snapshots and files."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any, NamedTuple

from provider.models.vectors import Vectors


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
class Erasure:
    """What an erase removed, and what it cannot reach by its nature (copies outside this provider).

    `erased` is the records named, then those derived only from them that the caller may read.
    """

    erased: list[str]
    unreachable: list[str]


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
class EraseReach:
    """What the store found below the records an erase names, before anything is judged or removed.

    `missing` are the ids named that are not in the memory (nor erased from it before); `memory_of`
    maps each record found (the named that are there, and every record reached down derived_from, at
    any depth) to its memory; `sources` maps each reached derived record to all its derived_from
    sources, reached or not, so the erase can judge which are derived only from what goes.
    """

    missing: list[str]
    memory_of: dict[str, str]
    sources: dict[str, frozenset[str]]


@dataclass(frozen=True)
class UnfinishedErasure:
    """An erase cut off part-way: its note, and the records it still has to remove."""

    id: str
    pending: list[str]


@dataclass(frozen=True)
class ErasePlan:
    """What an erase of some records reaches, judged before anything is removed.

    `missing` are the ids named that are not in the memory (nor erased from it before); `doomed` maps
    each record to remove (the named, and those derived only from them, wherever they live) to its memory.
    """

    missing: list[str]
    doomed: dict[str, str]


@dataclass(frozen=True)
class FileMeta:
    """A kept file as the store knows it: whose upload it is, what it is, and the digest of its bytes."""

    id: str
    owner: str
    name: str
    media_type: str
    bytes: int
    sha256: str


@dataclass(frozen=True)
class FileAdmission:
    """An upload judged against its owner's quota: what the owner held before it, and the file if it fit."""

    held_files: int
    held_bytes: int
    stored: StoredFile | None


@dataclass(frozen=True)
class FileSweep:
    """A note an erase or a memory delete left: files whose bytes go once no version names them."""

    id: str
    file_ids: list[str]


@dataclass(frozen=True)
class IdempotencyKey:
    """A key as a claim on it left it: whether this request holds it now, and the first request's answer.

    `status` and `body` are the kept answer once `state` is no longer pending.
    """

    fresh: bool
    fingerprint: str
    state: str
    status: int | None
    body: str | None
    created_at: int


@dataclass(frozen=True)
class NamedRecord:
    """A record as name matching reads it: its type, title and text, and the names its attributes give.

    `name`, `aliases`, `emails` and `domains` are the attribute values as written (a string or a list
    of them for the added types; anything, or None, for a plain entity), so matching keeps the strings.
    """

    id: str
    type: str
    title: str | None
    text: str | None
    name: Any
    aliases: Any
    emails: Any
    domains: Any


@dataclass(frozen=True)
class ConsolidationCandidate(NamedRecord):
    """A record a consolidation run reads: its names, when it was written and ends, its vector, its subject.

    `fresh` marks one written after the last run read through: the ones this run examines.
    """

    written_at: int
    valid_to_ms: int | None
    embedding: list[float] | None
    subject: str | None
    fresh: bool


class EmbeddedRow(NamedTuple):
    """A version ready to write: its words (what the word index holds) and its vectors by slot."""

    version: RecordVersion
    words: str
    vectors: Vectors | None
