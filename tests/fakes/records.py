"""An in-memory RecordStorage that does what Neo4jRecordStore and its Cypher do.

tests/contract/test_record_storage.py runs the same scenarios on this and on the real store. What the
Cypher decides, this decides the same way: a record id is taken once across memories; a revise lands
only on the version it names; a reference in a record's current version is an edge whenever its
target exists, whichever was written first; an erase walks derived_from to any depth and returns what
it reached, which the EraseService judges; quotas are charged in the write.
"""

from __future__ import annotations

import itertools
import json
from dataclasses import dataclass, field, replace

from provider.models import (
    EmbeddedRow,
    EraseReach,
    RecordVersion,
    RecordWords,
    Snapshot,
    StoredRecord,
    UnfinishedErasure,
    Vectors,
    VectorState,
)
from tests.fakes.usage import Held, RootOf, UsageLedger

NEVER = 9223372036854775807  # record_list's "now": the largest int64


def _stored(version: RecordVersion) -> RecordVersion:
    """The version as a read gives it back: nested shapes through JSON, an empty `follows` as none."""
    return replace(
        version,
        content=json.loads(json.dumps(version.content)),
        attributes=json.loads(json.dumps(version.attributes)),
        references=json.loads(json.dumps(version.references)),
        follows=json.loads(json.dumps(version.follows)) if version.follows else None,
    )


@dataclass
class FakeRecord:
    """A Record node: its current state, its versions oldest first; its edges come from the current one."""

    id: str
    memory_id: str
    type: str
    status: str
    current: int
    created_at: int
    words: str
    versions: list[RecordVersion]
    vectors: dict[int, Vectors] = field(default_factory=dict)  # by version number

    def version(self, number: int) -> RecordVersion | None:
        return next((v for v in self.versions if v.version == number), None)

    def put(self, number: int, version: RecordVersion) -> None:
        self.versions = [version if v.version == number else v for v in self.versions]


@dataclass
class FakeErasure:
    """The note an erase leaves of the ids it was asked for, so a retry finds them done, and of the
    records it has still to remove, so one cut off part-way can be finished."""

    id: str
    memory_id: str
    record_ids: list[str]
    pending: list[str]
    at: int


@dataclass
class FakeSweepNote:
    """A FileSweep node: the stored content of erased versions that named files."""

    id: str
    contents: list[str]
    created_at: int


class FakeRecordStore:
    """Records, versions, snapshots and erase notes in dicts; memories come from `root_of`."""

    def __init__(self, root_of: RootOf, usage: UsageLedger | None = None):
        self.root_of = root_of
        self.usage = usage or UsageLedger()
        self.records: dict[str, FakeRecord] = {}
        self.saved_snapshots: dict[str, Snapshot] = {}
        self.erasures: list[FakeErasure] = []
        self.sweep_notes: list[FakeSweepNote] = []
        self._notes = itertools.count(1)

    def edges(self, record: FakeRecord) -> list[tuple[str, str]]:
        """(rel, target id) of each reference in the current version whose target exists, in order."""
        current = record.version(record.current)
        references = current.references if current is not None else []
        return [(r["rel"], r["record_id"]) for r in references if r["record_id"] in self.records]

    def _made(self, version: RecordVersion, words: str, vectors: Vectors | None) -> FakeRecord:
        stored = _stored(version)
        record = FakeRecord(
            id=version.record_id,
            memory_id=version.memory_id,
            type=version.type,
            status=version.status,
            current=version.version,
            created_at=version.written_at,
            words=words,
            versions=[stored],
        )
        record.vectors[version.version] = dict(vectors or {})
        return record

    async def create(self, version: RecordVersion, words: str, vectors: Vectors | None) -> bool | None:
        """True when written, False when the id was taken (in any memory), None when the memory is gone."""
        if self.root_of(version.memory_id) is None:
            return None
        if version.record_id in self.records:
            return False
        self.usage.charge([Held.of(version)], self.root_of)
        self.records[version.record_id] = self._made(version, words, vectors)
        return True

    async def create_many(self, rows: list[EmbeddedRow]) -> int:
        """The new ones of a batch, charged together; ids already taken are left alone."""
        if not rows or self.root_of(rows[0][0].memory_id) is None:
            return 0
        new: dict[str, tuple[RecordVersion, str, Vectors | None]] = {}
        for version, words, vectors in rows:
            if version.record_id not in self.records and version.record_id not in new:
                new[version.record_id] = (version, words, vectors)
        self.usage.charge([Held.of(v) for v, _, _ in new.values()], self.root_of)
        for version, words, vectors in new.values():
            self.records[version.record_id] = self._made(version, words, vectors)
        return len(new)

    async def embedding_page(self, memory_id: str, after: str, limit: int) -> list[RecordWords]:
        """Active records of the memory by id after `after`, with the words of their current version."""
        found = sorted(
            (r for r in self.records.values() if r.memory_id == memory_id and r.status == "active"),
            key=lambda r: r.id,
        )
        return [RecordWords(r.id, r.words) for r in found if r.id > after][:limit]

    async def set_embeddings(self, slot: str, vectors: dict[str, list[float]]) -> None:
        """The vector in one slot of each record's current version."""
        for record_id, vector in vectors.items():
            record = self.records.get(record_id)
            if record is not None:
                record.vectors.setdefault(record.current, {})[slot] = vector

    async def erase_reach(self, memory_id: str, record_ids: list[str]) -> EraseReach:
        """The named ids not here (nor erased here before), and every record derived from the named at any
        depth, each with all its derived_from sources."""
        erased_before = {i for e in self.erasures if e.memory_id == memory_id for i in e.record_ids}
        here = [i for i in record_ids if i in self.records and self.records[i].memory_id == memory_id]
        missing = [i for i in record_ids if i not in here and i not in erased_before]
        memory_of = {i: self.records[i].memory_id for i in here}
        sources: dict[str, frozenset[str]] = {}
        frontier = set(here)
        while frontier:
            step = {
                r.id: frozenset(t for rel, t in self.edges(r) if rel == "derived_from")
                for r in self.records.values()
                if any(rel == "derived_from" and t in frontier for rel, t in self.edges(r))
            }
            sources.update(step)
            frontier = {i for i in step if i not in memory_of}
            memory_of.update({i: self.records[i].memory_id for i in frontier})
        return EraseReach(missing=missing, memory_of=memory_of, sources=sources)

    async def erase_begin(self, memory_id: str, named: list[str], pending: list[str], now: int) -> str:
        """The erase's note, naming what was asked for and every record still to remove."""
        erasure = FakeErasure(f"hers_fake{next(self._notes)}", memory_id, list(named), list(pending), now)
        self.erasures.append(erasure)
        return erasure.id

    async def erase(self, erasure_id: str, record_ids: list[str], now: int) -> None:
        """Removes a batch of records and their versions, striking them off the note; notes their files."""
        gone = [self.records[i] for i in record_ids if i in self.records]
        contents = [
            json.dumps(v.content) for r in gone for v in r.versions if '"file"' in json.dumps(v.content)
        ]
        if contents:
            self.sweep_notes.append(FakeSweepNote(f"hfsw_fake{next(self._notes)}", contents, now))
        for erasure in self.erasures:
            if erasure.id == erasure_id:
                erasure.pending = [i for i in erasure.pending if i not in record_ids]
        released = [replace(Held.of(v), memory_id=r.memory_id) for r in gone for v in r.versions]
        for record in gone:
            del self.records[record.id]
        self.usage.release(released, self.root_of)

    async def unfinished_erasures(self, memory_id: str) -> list[UnfinishedErasure]:
        """Notes of this memory's erases with records still pending, oldest first."""
        notes = sorted(
            (e for e in self.erasures if e.memory_id == memory_id and e.pending), key=lambda e: (e.at, e.id)
        )
        return [UnfinishedErasure(e.id, list(e.pending)) for e in notes]

    async def read(self, record_id: str) -> StoredRecord | None:
        """A record with every version, oldest first."""
        record = self.records.get(record_id)
        if record is None:
            return None
        versions = sorted(record.versions, key=lambda v: v.version)
        return StoredRecord(
            id=record.id, memory_id=record.memory_id, current=record.current, versions=versions
        )

    async def page(
        self, memory_id: str, *, kind: str | None, as_of: int | None, include_all: bool, skip: int, limit: int
    ) -> list[RecordVersion]:
        """The version of each record live at `as_of` (now), forgotten ones only with `include_all`."""
        t = NEVER if as_of is None else as_of
        found: list[tuple[int, str, RecordVersion]] = []
        for r in self.records.values():
            if r.memory_id != memory_id or (kind is not None and r.type != kind):
                continue
            for v in r.versions:
                live = v.written_at <= t and (v.superseded_at is None or v.superseded_at > t)
                shown = include_all or v.forgotten_at is None or v.forgotten_at > t
                if live and shown:
                    found.append((r.created_at, r.id, v))
        found.sort(key=lambda row: (row[0], row[1]))
        return [v for _, _, v in found[skip : skip + limit]]

    async def locate(self, record_ids: list[str]) -> dict[str, str]:
        """Record id → memory id for the ids that exist."""
        return {i: self.records[i].memory_id for i in record_ids if i in self.records}

    async def revise(
        self, version: RecordVersion, words: str, vectors: Vectors | None, created_at: int
    ) -> bool:
        """Appends `version` if the record's current version is still the one it supersedes."""
        record = self.records.get(version.record_id)
        if record is None or record.memory_id != version.memory_id or record.current != version.supersedes:
            return False
        old = record.version(record.current)
        if old is None:
            return False
        self.usage.charge([Held.of(version)], self.root_of)
        now = version.written_at
        record.put(
            old.version,
            replace(
                old,
                status="forgotten" if old.status == "forgotten" else "superseded",
                superseded_at=now,
                invalidated_at=now if old.invalidated_at is None else old.invalidated_at,
            ),
        )
        record.versions.append(_stored(version))
        record.vectors[version.version] = dict(vectors or {})
        record.current, record.status, record.type = version.version, version.status, version.type
        record.words, record.created_at = words, created_at
        return True

    async def forget(self, memory_id: str, record_id: str, now: int) -> None:
        """Closes the current version as forgotten; a forgotten record is left as it is."""
        record = self.records.get(record_id)
        if record is None or record.memory_id != memory_id or record.status == "forgotten":
            return
        current = record.version(record.current)
        if current is None:
            return
        record.put(
            current.version, replace(current, status="forgotten", forgotten_at=now, invalidated_at=now)
        )
        record.status = "forgotten"

    async def create_snapshot(self, snapshot: Snapshot) -> Snapshot | None:
        """Kept when its memory exists."""
        if self.root_of(snapshot.memory_id) is None:
            return None
        self.saved_snapshots[snapshot.id] = snapshot
        return snapshot

    async def snapshots(self, memory_id: str) -> list[Snapshot]:
        """Oldest first (ties by id)."""
        mine = [s for s in self.saved_snapshots.values() if s.memory_id == memory_id]
        return sorted(mine, key=lambda s: (s.at_ms, s.id))

    async def snapshot(self, snapshot_id: str) -> Snapshot | None:
        return self.saved_snapshots.get(snapshot_id)

    def content_naming(self, text: str) -> bool:
        """True when some version's stored content holds `text` (file_unnamed's CONTAINS)."""
        return any(text in json.dumps(v.content) for r in self.records.values() for v in r.versions)


class FakeVectorState:
    """The recorded vector slots (vector_state_read and _write); a model move's fill is not faked here."""

    def __init__(self, state: VectorState | None = None):
        self.state = state

    async def read(self) -> VectorState | None:
        """None, as on a database no model move has touched, until something is written."""
        return self.state

    async def write(self, state: VectorState) -> None:
        self.state = replace(state, recorded=True)
