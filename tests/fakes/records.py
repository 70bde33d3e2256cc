"""An in-memory RecordStorage that does what Neo4jRecordStore and its Cypher do.

tests/contract/test_record_storage.py runs the same scenarios on this and on the real store. What the
Cypher decides, this decides the same way: a record id is taken once across memories; a revise lands
only on the version it names; a reference becomes an edge only to a record that exists when it is
written; an erase reaches what is derived only from the named records (five derived_from hops, judged
against everything reached, not only against what is doomed); quotas are charged in the write.
"""

from __future__ import annotations

import itertools
import json
from dataclasses import dataclass, field, replace

from provider.models import (
    ErasePlan,
    RecordVersion,
    RecordWords,
    Snapshot,
    StoredRecord,
    Vectors,
    VectorState,
)
from tests.fakes.usage import Held, RootOf, UsageLedger

DERIVED_HOPS = 5  # record_erase_plan follows derived_from this many hops
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
    """A Record node: its current state, its versions oldest first, and its REFERENCES edges."""

    id: str
    memory_id: str
    type: str
    status: str
    current: int
    created_at: int
    words: str
    versions: list[RecordVersion]
    edges: list[tuple[str, str]] = field(default_factory=list)  # (rel, target record id), in order
    vectors: dict[int, Vectors] = field(default_factory=dict)  # by version number

    def version(self, number: int) -> RecordVersion | None:
        return next((v for v in self.versions if v.version == number), None)

    def put(self, number: int, version: RecordVersion) -> None:
        self.versions = [version if v.version == number else v for v in self.versions]


@dataclass
class FakeErasure:
    """The note an erase leaves of the ids it was asked for, so a retry finds them done."""

    memory_id: str
    record_ids: list[str]
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

    def _edges(self, version: RecordVersion) -> list[tuple[str, str]]:
        return [(r["rel"], r["record_id"]) for r in version.references if r["record_id"] in self.records]

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
            edges=self._edges(version),
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

    async def create_many(self, rows: list[tuple[RecordVersion, str, Vectors | None]]) -> int:
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

    async def erase_plan(self, memory_id: str, record_ids: list[str]) -> ErasePlan:
        """The named ids not here (nor erased here before), and the records an erase of them reaches."""
        erased_before = {i for e in self.erasures if e.memory_id == memory_id for i in e.record_ids}
        here = [i for i in record_ids if i in self.records and self.records[i].memory_id == memory_id]
        missing = [i for i in record_ids if i not in here and i not in erased_before]
        reached = self._derived_from_reach(here)
        doomed = {
            candidate: self.records[candidate].memory_id
            for candidate in reached
            if candidate in record_ids
            or all(
                target in reached for rel, target in self.records[candidate].edges if rel == "derived_from"
            )
        }
        return ErasePlan(missing=missing, doomed=doomed)

    def _derived_from_reach(self, named: list[str]) -> list[str]:
        """The named records and every record a derived_from path of 1 to 5 hops leads from to one of them."""
        reached = list(dict.fromkeys(named))
        frontier = set(reached)
        for _ in range(DERIVED_HOPS):
            frontier = {
                r.id
                for r in self.records.values()
                if any(rel == "derived_from" and target in frontier for rel, target in r.edges)
            }
            reached += sorted(frontier - set(reached))
        return reached

    async def erase(self, memory_id: str, record_ids: list[str], named: list[str], now: int) -> None:
        """Removes the records, their versions and edges; leaves the file note and the erasure note."""
        gone = [self.records[i] for i in record_ids if i in self.records]
        contents = [
            json.dumps(v.content) for r in gone for v in r.versions if '"file"' in json.dumps(v.content)
        ]
        if contents:
            self.sweep_notes.append(FakeSweepNote(f"hfsw_fake{next(self._notes)}", contents, now))
        self.erasures.append(FakeErasure(memory_id, list(named), now))
        released = [replace(Held.of(v), memory_id=r.memory_id) for r in gone for v in r.versions]
        for record in gone:
            del self.records[record.id]
        for record in self.records.values():
            record.edges = [(rel, t) for rel, t in record.edges if t not in record_ids]
        self.usage.release(released, self.root_of)

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
        record.words, record.created_at, record.edges = words, created_at, self._edges(version)
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
