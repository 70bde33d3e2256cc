"""A reference model of the records rules: versions, references, forget, revise, erase, merge, restore.

Written from the chapter and this provider's documents (docs/API.md, docs/SECURITY.md "Erase",
docs/EXPORT.md), not from provider/store or tests/fakes: a model that copied the store would agree with
its bugs. It is kept plain enough to be checked by eye:

- each record keeps its versions, oldest first; a version keeps its references as data, (rel, target);
- an edge is derived when asked: a reference is one whenever its target exists now, whatever the order
  the two were written in (create, import, restore), and it is drawn from the current version only;
- a read shows a reference whole when its target exists and the reader may read the target's memory,
  else as a bare id (a target that does not exist and one the reader cannot read look alike).

Nothing here imports the provider; privileges are a fixed table the driver gives it.
"""

from __future__ import annotations

import copy
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any

DERIVED_FROM = "derived_from"
MERGED_INTO = "merged_into"
PERSON = "x.person"


class Refused(Exception):
    """What the model expects a call to refuse: `not_found`, `invalid` or `clash`."""

    def __init__(self, why: str, what: str = ""):
        super().__init__(f"{why}: {what}")
        self.why = why


@dataclass(frozen=True)
class Ref:
    """A reference as the writer stated it: a relation and a record id, which may exist or not."""

    rel: str
    target: str


@dataclass(frozen=True)
class Version:
    """One version of a record; `status` is active, superseded or forgotten."""

    number: int
    status: str
    text: str
    attributes: Mapping[str, Any]
    refs: tuple[Ref, ...]
    writer: str


@dataclass
class Record:
    """A record: where it lives, its type, and every version it ever had (oldest first)."""

    id: str
    memory: str
    type: str
    versions: list[Version]

    @property
    def current(self) -> Version:
        return self.versions[-1]

    def append(self, version: Version) -> None:
        """A new current version; the one before is superseded (its history stays)."""
        self.versions[-1] = replace(self.current, status="superseded")
        self.versions.append(version)


@dataclass(frozen=True)
class Seen:
    """A version as one reader is shown it: what the real answers are compared on."""

    record_id: str
    memory_id: str
    version: int
    supersedes: int | None
    status: str
    type: str
    text: str
    attributes: Mapping[str, Any]
    references: tuple[Mapping[str, Any], ...]
    writer: str


@dataclass(frozen=True)
class Archive:
    """What an export of one memory carried: its records, every version, as they stood then."""

    memory: str
    records: Mapping[str, Record]


@dataclass(frozen=True)
class Erased:
    """An erase's answer: the ids named (in the order named, once each), then the derived ones shown."""

    named: list[str]
    derived: frozenset[str]


@dataclass
class RecordsModel:
    """The world's records; `privileges` maps (member, memory) to what the member holds there."""

    privileges: Mapping[tuple[str, str], frozenset[str]]
    records: dict[str, Record] = field(default_factory=dict)
    gone: dict[str, str] = field(default_factory=dict)  # erased record id -> the memory it was in
    erasures: dict[str, set[str]] = field(default_factory=dict)  # memory -> ids an erase there named

    def may(self, member: str, memory: str, privilege: str) -> bool:
        return privilege in self.privileges.get((member, memory), frozenset())

    # -- what is derived, when asked ---------------------------------------------------------------

    def edges(self, record_id: str) -> list[Ref]:
        """The current version's references whose target exists now."""
        return [r for r in self.records[record_id].current.refs if r.target in self.records]

    def sources(self, record_id: str) -> set[str]:
        """The records this one is derived_from, as edges."""
        return {r.target for r in self.edges(record_id) if r.rel == DERIVED_FROM}

    def doomed(self, named: Iterable[str]) -> set[str]:
        """The named records and, to a fixed point, every record all of whose sources are doomed.

        A record needs at least one source to be reached; one source that survives keeps it. Any
        depth, any memory, and a cycle ends because the set only grows.
        """
        doomed = {r for r in named if r in self.records}
        while True:
            more = {r for r in self.records if r not in doomed and (s := self.sources(r)) and s <= doomed}
            if not more:
                return doomed
            doomed |= more

    def referrers(self, record_id: str) -> list[str]:
        """Active records whose current version has an edge to this one."""
        return sorted(
            r.id
            for r in self.records.values()
            if r.current.status == "active" and any(e.target == record_id for e in self.edges(r.id))
        )

    # -- writes ------------------------------------------------------------------------------------

    def create(
        self,
        record_id: str,
        memory: str,
        writer: str,
        kind: str,
        text: str,
        attributes: Mapping[str, Any],
        refs: Iterable[Ref],
    ) -> Record:
        """A new record with its first version; an id is never reused by a write (only by a restore)."""
        assert record_id not in self.records and record_id not in self.gone, "the driver writes fresh ids"
        first = Version(1, "active", text, dict(attributes), tuple(refs), writer)
        record = Record(record_id, memory, kind, [first])
        self.records[record_id] = record
        return record

    def revise(self, record_id: str, writer: str, text: str | None, refs: list[Ref] | None) -> Version:
        """The next version, built on the current one: what the change does not name stays.

        References given are restated whole, except that a reviser cannot drop or restate one it is
        shown only as a bare id (docs/SECURITY.md): those stay, after the ones asked for.
        """
        record = self.records[record_id]
        current = record.current
        if current.status == "forgotten":
            raise Refused("invalid", "a forgotten record cannot be revised")
        kept = current.refs
        if refs is not None:
            unseen = [r for r in current.refs if not self.readable(writer, r.target)]
            hidden = {r.target for r in unseen}
            kept = tuple([r for r in refs if r.target not in hidden] + unseen)
        record.append(_next(current, writer, text=current.text if text is None else text, refs=kept))
        return record.current

    def forget(self, record_id: str) -> Version:
        """Closes the record: its current version becomes forgotten; forgetting it again changes nothing."""
        record = self.records[record_id]
        record.versions[-1] = replace(record.current, status="forgotten")
        return record.current

    def erase(self, member: str, memory: str, named: list[str]) -> Erased:
        """Removes the named records of `memory` and what is derived only from them, everywhere.

        An id is known here when its record is in the memory, or when an earlier erase of this memory
        named it (so a retry finds it done); any other id refuses the whole erase, and nothing goes.
        """
        once = list(dict.fromkeys(named))
        before = self.erasures.get(memory, set())
        missing = [
            r
            for r in once
            if not (r in self.records and self.records[r].memory == memory) and r not in before
        ]
        if missing:
            raise Refused("not_found", f"not in this memory: {missing}")
        doomed = self.doomed(once)
        shown = frozenset(
            r for r in doomed if r not in once and self.may(member, self.records[r].memory, "read")
        )
        for r in doomed:
            self.gone[r] = self.records.pop(r).memory
        self.erasures.setdefault(memory, set()).update(once)
        return Erased(once, shown)

    def merge(self, member: str, kept_id: str, duplicate_id: str) -> int:
        """Folds a duplicate person into the kept one (docs/API.md, "Operations"); how many referrers moved.

        The kept record's next version takes the duplicate's names as aliases, its missing fields and its
        references (once each, none to either of the two); each active record with an edge to the
        duplicate, in a memory the merger may write, gets a version pointing at the kept record instead;
        and the duplicate's last version is forgotten, its one reference `merged_into` the kept record.
        """
        kept, duplicate = self.records[kept_id], self.records[duplicate_id]
        ends = {kept_id, duplicate_id}
        folded = _folded(kept.current.attributes, duplicate.current.attributes)
        refs = [ref for ref in kept.current.refs if ref.target not in ends]
        present = {(ref.rel, ref.target) for ref in refs}
        for ref in duplicate.current.refs:
            if ref.target not in ends and ref.rel != MERGED_INTO and (ref.rel, ref.target) not in present:
                present.add((ref.rel, ref.target))
                refs.append(ref)
        kept.append(_next(kept.current, member, attributes=folded, refs=tuple(refs)))
        moved = [
            r
            for r in self.referrers(duplicate_id)
            if r not in ends and self.may(member, self.records[r].memory, "write")
        ]
        for r in moved:
            referrer = self.records[r]
            pointed = _repointed(referrer.current.refs, duplicate_id, kept_id)
            referrer.append(_next(referrer.current, member, refs=pointed))
        duplicate.append(
            _next(duplicate.current, member, status="forgotten", refs=(Ref(MERGED_INTO, kept_id),))
        )
        return len(moved)

    def export(self, memory: str) -> Archive:
        """The memory's records as they stand: every version, forgotten records too."""
        held = {r.id: copy.deepcopy(r) for r in self.records.values() if r.memory == memory}
        return Archive(memory, held)

    def restore(self, archive: Archive) -> int:
        """Writes back what the archive holds and is not here; how many records came back.

        A record that is here already must be the same (same memory, same versions), or the restore is
        a clash (docs/EXPORT.md). A clash stops the restore where it is; the records of an archive this
        small are one batch, compared before any is written, so here a clash writes no record. A record
        restored keeps its id, versions and writers, and every reference to it, from anywhere, is an
        edge again.
        """
        for record_id, archived in archive.records.items():
            here = self.records.get(record_id)
            if here is not None and (here.memory != archived.memory or here.versions != archived.versions):
                raise Refused("clash", record_id)
        back = [r for r in archive.records if r not in self.records]
        for record_id in back:
            self.records[record_id] = copy.deepcopy(archive.records[record_id])
            self.gone.pop(record_id, None)
        return len(back)

    # -- reads -------------------------------------------------------------------------------------

    def readable(self, reader: str, record_id: str) -> bool:
        """Whether the record exists and the reader may read its memory."""
        record = self.records.get(record_id)
        return record is not None and self.may(reader, record.memory, "read")

    def shown(self, reader: str, ref: Ref) -> dict[str, Any]:
        """A reference as the reader sees it: whole when it can follow it, else a bare id."""
        if self.readable(reader, ref.target):
            target = self.records[ref.target].memory
            return {"rel": ref.rel, "memory_id": target, "record_id": ref.target, "available": True}
        return {"record_id": ref.target, "available": False}

    def seen(self, reader: str, record: Record, version: Version) -> Seen:
        return Seen(
            record_id=record.id,
            memory_id=record.memory,
            version=version.number,
            supersedes=version.number - 1 if version.number > 1 else None,
            status=version.status,
            type=record.type,
            text=version.text,
            attributes=dict(version.attributes),
            references=tuple(self.shown(reader, r) for r in version.refs),
            writer=version.writer,
        )

    def read(self, reader: str, record_id: str) -> Seen:
        """The record now (forgotten ones too: a read by id still finds them)."""
        record = self.records[record_id]
        return self.seen(reader, record, record.current)

    def history(self, reader: str, record_id: str) -> list[Seen]:
        record = self.records[record_id]
        return [self.seen(reader, record, v) for v in record.versions]

    def listing(self, reader: str, memory: str, *, include_all: bool) -> list[Seen]:
        """The memory's records now, by id; a forgotten one only with include=all."""
        found = sorted((r for r in self.records.values() if r.memory == memory), key=lambda r: r.id)
        return [
            self.seen(reader, r, r.current) for r in found if include_all or r.current.status != "forgotten"
        ]


def _next(current: Version, writer: str, **changed: Any) -> Version:
    """The version after `current`, by `writer`: active unless told otherwise, the rest as changed."""
    return replace(current, **{"status": "active", **changed, "number": current.number + 1, "writer": writer})


def _folded(kept: Mapping[str, Any], duplicate: Mapping[str, Any]) -> dict[str, Any]:
    """The kept person's attributes with the duplicate's name and aliases among its aliases, and any
    field it lacks taken from the duplicate (names compared without case)."""
    result = dict(kept)
    aliases = list(kept.get("aliases") or [])
    seen = {str(kept.get("name", "")).lower(), *(a.lower() for a in aliases)}
    for name in [duplicate.get("name"), *(duplicate.get("aliases") or [])]:
        if isinstance(name, str) and name.lower() not in seen:
            seen.add(name.lower())
            aliases.append(name)
    if aliases:
        result["aliases"] = aliases
    for key, value in duplicate.items():
        result.setdefault(key, value)
    return result


def _repointed(refs: Iterable[Ref], duplicate: str, kept: str) -> tuple[Ref, ...]:
    """References with the duplicate replaced by the kept record, each (rel, target) once."""
    out: list[Ref] = []
    for r in refs:
        moved = Ref(r.rel, kept) if r.target == duplicate else r
        if moved not in out:
            out.append(moved)
    return tuple(out)
