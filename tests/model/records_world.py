"""One world of records driven through the real services and through the model, side by side.

Every write goes to both, and its answer (or refusal) is compared; `check` then compares every read a
reader can make: each memory's listing as each reader sees it (and the active one as its owner does),
each record's history, and that erased records are gone. The services are given, so the same world
runs on the fakes (the fast tier) and on Neo4j (the full tier); merge and restore need stores the fakes
do not have.

Two members: alice owns A with a and a2 below it, bob owns B with b and b2. Bob may read and write a,
alice may read b; neither sees the other's second memory. Records live in a, a2, b and b2.
"""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import Callable, Coroutine, Iterable, Sequence
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any, TypeVar

from provider import ids
from provider.errors import MemoryInvalidError, ProviderError, RecordNotFoundError, RestoreClashError
from provider.models import Caller, OperationAsk, ReadRecord, RecordChanges, RecordDraft
from provider.services.archive.export import ExportService
from provider.services.archive.restore import RestoreService
from provider.services.lifecycle.type_operations import TypeService
from provider.services.records import EraseService, RecordService
from provider.services.tree import AdminService, GrantService, TreeService
from provider.services.tree.memories import MemoryDraft
from tests.model.records_model import PERSON, Archive, RecordsModel, Ref, Refused, Seen

T = TypeVar("T")
M = TypeVar("M")

MEMBERS = ("alice", "bob")
OWNERS = {"A": "alice", "a": "alice", "a2": "alice", "B": "bob", "b": "bob", "b2": "bob"}
PARENTS = {"a": "A", "a2": "A", "b": "B", "b2": "B"}
HOLDING = ("a", "a2", "b", "b2")  # the memories records are written to
SHARED = {("bob", "a"): ("read", "write"), ("alice", "b"): ("read",)}
ALL = frozenset({"read", "write", "create", "delete"})
DIMENSION = 384  # the vector index the Neo4j schema is applied with


class FlatEmbedder:
    """The same unit vector for every text: these rules never look at vectors, so no model is loaded."""

    dimension = DIMENSION

    async def embed(self, texts: Sequence[str]) -> list[list[float]]:
        return [[1.0] + [0.0] * (DIMENSION - 1) for _ in texts]

    async def embed_questions(self, texts: Sequence[str]) -> list[list[float]]:
        return await self.embed(texts)


@dataclass
class Bench:
    """The real services a world runs on, and the loop that runs them; None where no store backs one.

    `tally` counts the outcomes the worlds reached (a refusal, an erase that took derived records, a
    restore that clashed), so a walk can show it did more than the easy paths.
    """

    runner: asyncio.Runner
    tree: TreeService
    grants: GrantService
    admin: AdminService
    records: RecordService
    erasing: EraseService
    folder: Path  # where archives are written
    types: TypeService | None = None
    export: ExportService | None = None
    restore: RestoreService | None = None
    tally: Counter[str] = field(default_factory=Counter)
    members: dict[str, Caller] = field(default_factory=dict)  # made by the first world, shared by all

    def run(self, work: Coroutine[Any, Any, T]) -> T:
        return self.runner.run(work)

    @property
    def archives(self) -> bool:
        """Whether merge, export and restore can run here."""
        return self.types is not None and self.export is not None and self.restore is not None


def kind_of(error: ProviderError) -> str:
    """A refusal in the model's words."""
    if isinstance(error, RecordNotFoundError):
        return "not_found"
    if isinstance(error, MemoryInvalidError):
        return "invalid"
    if isinstance(error, RestoreClashError):
        return "clash"
    return error.code


def seen_of(read: ReadRecord) -> Seen:
    """What a real answer says, in the model's terms."""
    assert not read.withheld, "every reader here may read what it is shown"
    v = read.version
    return Seen(
        record_id=v.record_id,
        memory_id=v.memory_id,
        version=v.version,
        supersedes=v.supersedes,
        status=v.status,
        type=v.type,
        text=" ".join(p["text"] for p in v.content if p.get("type") == "text"),
        attributes=v.attributes,
        references=tuple(read.references),
        writer=v.writer.id,
    )


def difference(got: object, expected: object) -> str:
    """What differs, and only that: the fields of two versions, the versions of two lists alike in length."""
    if isinstance(got, Seen) and isinstance(expected, Seen):
        names = [f.name for f in fields(Seen) if getattr(got, f.name) != getattr(expected, f.name)]
        told = (f"{n}: service {getattr(got, n)!r}, model {getattr(expected, n)!r}" for n in names)
        return f"{expected.record_id} version {expected.version}: " + "; ".join(told)
    if isinstance(got, list) and isinstance(expected, list) and len(got) == len(expected):
        return "\n  ".join(difference(g, e) for g, e in zip(got, expected, strict=True) if g != e)
    return f"service: {got!r}\n  model:   {expected!r}"


@dataclass
class Saved:
    """An export taken: by whom, of which memory, where its tar is, and what the model says it holds."""

    member: str
    memory: str
    path: Path
    archive: Archive


@dataclass
class World:
    """Members, memories, a pool of record ids, the model, and the services; see the module's docstring."""

    bench: Bench
    pool_size: int = 12
    callers: dict[str, Caller] = field(default_factory=dict)
    memories: dict[str, str] = field(default_factory=dict)  # name -> id
    pool: list[str] = field(default_factory=list)
    saved: list[Saved] = field(default_factory=list)
    model: RecordsModel = field(init=False)

    def __post_init__(self) -> None:
        self.pool = [ids.new_id(ids.RECORD) for _ in range(self.pool_size)]
        self.bench.run(self._furnish())
        self.model = RecordsModel(self._privileges())
        self._labels = {
            **{rid: f"r{i}" for i, rid in enumerate(self.pool)},
            **{c.member_id: name for name, c in self.callers.items()},
            **{m: name for name, m in self.memories.items()},
        }

    async def _furnish(self) -> None:
        """Fresh trees and their shared grants (the members are the bench's, made once).

        The first world also checks each member's view of its memories against the table the model
        is given. Nothing is deleted afterwards: as everywhere in the suite, each world's ids are its
        own, and a shrinking run replays many worlds, each faster for it.
        """
        first = not self.bench.members
        for name in MEMBERS if first else ():
            made = await self.bench.admin.create_member("human", name)
            self.bench.members[name] = Caller(member_id=made.id, member_type="human")
        self.callers = dict(self.bench.members)
        for name, owner in OWNERS.items():  # parents first
            draft = MemoryDraft(name=name, parent_id=self.memories.get(PARENTS.get(name, "")))
            self.memories[name] = (await self.bench.tree.create(self.callers[owner], draft)).node.id
        for (member, memory), privileges in SHARED.items():
            grantor, grantee = self.callers[OWNERS[memory]], self.callers[member]
            await self.bench.grants.create(
                grantor, self.memories[memory], grantee.principal, list(privileges)
            )
        for name, caller in self.callers.items() if first else ():
            views = await self.bench.tree.views(caller, list(self.memories.values()))
            held = {v.node.id: frozenset(v.privileges) for v in views if v.privileges}
            table = {m: p for (who, m), p in self._privileges().items() if who == caller.member_id}
            assert held == table, f"{name} holds {held}, not {table}"

    def _privileges(self) -> dict[tuple[str, str], frozenset[str]]:
        table: dict[tuple[str, str], frozenset[str]] = {}
        for name, owner in OWNERS.items():
            table[self.callers[owner].member_id, self.memories[name]] = ALL
        for (member, memory), privileges in SHARED.items():
            table[self.callers[member].member_id, self.memories[memory]] = frozenset(privileges)
        return table

    # -- naming, for the machine and for messages --------------------------------------------------

    def label(self, value: object) -> str:
        """`value`'s text with every id of this world replaced by its short name (r3, alice, a2)."""
        text = value if isinstance(value, str) else repr(value)
        for long, short in self._labels.items():
            text = text.replace(long, short)
        return text

    def may(self, member: str, memory: str, privilege: str) -> bool:
        return self.model.may(self.callers[member].member_id, self.memories[memory], privilege)

    def places(self, member: str, privilege: str) -> list[str]:
        """The memories holding records where the member holds `privilege`."""
        return [m for m in HOLDING if self.may(member, m, privilege)]

    def unused(self) -> list[str]:
        """Pool ids no write has taken yet (erased ones stay taken: only a restore brings an id back)."""
        return [r for r in self.pool if r not in self.model.records and r not in self.model.gone]

    def memory_of(self, record_id: str) -> str:
        memory_id = self.model.records[record_id].memory
        return next(name for name, m in self.memories.items() if m == memory_id)

    def existing(self) -> list[str]:
        """The records now, in pool order."""
        return [r for r in self.pool if r in self.model.records]

    def erasable(self, memory: str) -> list[str]:
        """Ids an erase in `memory` may name: its records, and those an erase there named before."""
        before = self.model.erasures.get(self.memories[memory], set())
        return [
            r for r in self.pool if r in before or (r in self.model.records and self.memory_of(r) == memory)
        ]

    def restorable(self) -> list[int]:
        """The saved exports a restore would act on: one of their records is gone or has changed since."""
        now = self.model.records
        return [
            i
            for i, saved in enumerate(self.saved)
            if any(
                r not in now or now[r].versions != kept.versions for r, kept in saved.archive.records.items()
            )
        ]

    def mergeable(self) -> list[tuple[str, str, str]]:
        """(member, kept, duplicate): two active people, the member writing both and reading the duplicate."""
        people = [
            r
            for r in self.existing()
            if self.model.records[r].type == PERSON and self.model.records[r].current.status == "active"
        ]
        return [
            (m, kept, dup)
            for m in MEMBERS
            for kept in people
            for dup in people
            if kept != dup
            and self.may(m, self.memory_of(kept), "write")
            and all(self.may(m, self.memory_of(dup), p) for p in ("read", "write"))
        ]

    # -- writes, each to both sides ----------------------------------------------------------------

    def both(
        self, what: str, real: Callable[[], Coroutine[Any, Any, T]], model: Callable[[], M]
    ) -> tuple[T, M] | None:
        """Runs the write on the model and on the services; both refuse alike, or both answer.

        `what` starts with the write's name, which the tally counts by.
        """
        action = what.split()[0]
        try:
            expected = model()
        except Refused as refused:
            self.bench.tally[f"{action} refused ({refused.why})"] += 1
            try:
                self.bench.run(real())
            except ProviderError as e:
                assert kind_of(e) == refused.why, self.label(
                    f"{what}: the model refuses {refused}, got {e!r}"
                )
                return None
            raise AssertionError(
                self.label(f"{what}: the model refuses ({refused}); the service answered")
            ) from None
        try:
            got = self.bench.run(real())
        except ProviderError as e:
            raise AssertionError(self.label(f"{what}: the service refused ({e!r}); the model answers")) from e
        self.bench.tally[action] += 1
        return got, expected

    def agree(self, got: object, expected: object, what: str) -> None:
        assert got == expected, self.label(f"{what}:\n  {difference(got, expected)}")

    def _draft(self, record_id: str, kind: str, refs: Iterable[Ref]) -> RecordDraft:
        name = self._labels[record_id]
        attributes = {"name": f"Person {name}"} if kind == PERSON else {}
        return RecordDraft(
            type=kind,
            content=[{"type": "text", "text": f"{name} as first written"}],
            attributes=attributes,
            references=[{"rel": r.rel, "record_id": r.target} for r in refs],
        )

    def _model_create(self, member: str, memory: str, record_id: str, draft: RecordDraft) -> None:
        refs = [Ref(r["rel"], r["record_id"]) for r in draft.references]
        text = draft.content[0]["text"]
        writer = self.callers[member].member_id
        self.model.create(record_id, self.memories[memory], writer, draft.type, text, draft.attributes, refs)

    def create(
        self, member: str, memory: str, record_id: str, kind: str, refs: Iterable[tuple[str, str]]
    ) -> None:
        """remember, with the id given (as an Idempotency-Key derives one)."""
        draft = self._draft(record_id, kind, [Ref(rel, target) for rel, target in refs])
        caller = self.callers[member]
        got = self.bench.run(
            self.bench.records.remember(caller, self.memories[memory], draft, record_id=record_id)
        )
        self._model_create(member, memory, record_id, draft)
        self.bench.tally["create"] += 1
        what = f"create {self._labels[record_id]} in {memory} by {member}"
        self.agree(seen_of(got), self.model.read(caller.member_id, record_id), what)

    def import_(self, member: str, memory: str, rows: list[tuple[str, str, list[tuple[str, str]]]]) -> None:
        """A bulk import's batch, as `python -m provider import` writes one: prepared, then stored at once."""
        drafts = [(rid, self._draft(rid, kind, [Ref(rel, t) for rel, t in refs])) for rid, kind, refs in rows]
        caller, memory_id = self.callers[member], self.memories[memory]
        prepared = self.bench.run(self.bench.records.prepare_many(caller, memory_id, drafts))
        assert not prepared.refused, prepared.refused
        made = self.bench.run(self.bench.records.store_prepared(prepared))
        for rid, draft in drafts:
            self._model_create(member, memory, rid, draft)
        self.bench.tally["import"] += 1
        self.agree(made, len(rows), "records an import made")

    def revise(self, member: str, record_id: str, text: bool, refs: list[tuple[str, str]] | None) -> None:
        """A revision naming new words, new references (restated whole), both, or neither."""
        caller, name = self.callers[member], self._labels[record_id]
        number = len(self.model.records[record_id].versions) + 1
        words = f"{name} as revised to version {number}" if text else None
        given = {f for f, on in (("content", text), ("references", refs is not None)) if on}
        changes = RecordChanges(
            frozenset(given),
            content=[{"type": "text", "text": words}] if words else [],
            references=[{"rel": rel, "record_id": t} for rel, t in refs or []],
        )
        asked = None if refs is None else [Ref(rel, t) for rel, t in refs]
        memory_id = self.memories[self.memory_of(record_id)]
        outcome = self.both(
            f"revise {name} by {member}",
            lambda: self.bench.records.revise(caller, memory_id, record_id, changes),
            lambda: self.model.revise(record_id, caller.member_id, words, asked),
        )
        if outcome is not None:
            self.agree(seen_of(outcome[0]), self.model.read(caller.member_id, record_id), f"revise {name}")

    def forget(self, member: str, record_id: str) -> None:
        caller, name = self.callers[member], self._labels[record_id]
        got = self.bench.run(
            self.bench.records.forget(caller, self.memories[self.memory_of(record_id)], record_id)
        )
        self.model.forget(record_id)
        self.bench.tally["forget"] += 1
        self.agree(seen_of(got), self.model.read(caller.member_id, record_id), f"forget {name} by {member}")

    def erase(self, member: str, memory: str, named: list[str]) -> None:
        """The answer names the ids asked for, in order and once each, then the derived ones readable."""
        caller, memory_id = self.callers[member], self.memories[memory]
        what = f"erase {[self._labels[r] for r in named]} in {memory} by {member}"
        there, named_there = len(self.model.records), len({r for r in named if r in self.model.records})
        outcome = self.both(
            what,
            lambda: self.bench.erasing.erase(caller, memory_id, named),
            lambda: self.model.erase(caller.member_id, memory_id, named),
        )
        if outcome is None:
            return
        got, expected = outcome
        if there - len(self.model.records) > named_there:
            self.bench.tally["erase took derived records"] += 1
        head, rest = got.erased[: len(expected.named)], got.erased[len(expected.named) :]
        self.agree(head, expected.named, f"{what}: the ids named")
        self.agree(sorted(rest), sorted(expected.derived), f"{what}: the derived ids shown")
        assert got.unreachable, "an erase always says what it cannot reach"

    def merge(self, member: str, kept: str, duplicate: str) -> None:
        """The `merge` operation on the kept person, naming the duplicate."""
        assert self.bench.types is not None
        caller = self.callers[member]
        what = f"merge {self._labels[duplicate]} into {self._labels[kept]} by {member}"
        ask = OperationAsk(name="merge", duplicate=duplicate)
        types, memory_id = self.bench.types, self.memories[self.memory_of(kept)]
        outcome = self.both(
            what,
            lambda: types.operate(caller, memory_id, kept, ask),
            lambda: self.model.merge(caller.member_id, kept, duplicate),
        )
        assert outcome is not None
        got, moved = outcome
        if moved:
            self.bench.tally["merge moved references"] += 1
        self.agree(seen_of(got.records["record"]), self.model.read(caller.member_id, kept), f"{what}: kept")
        self.agree(
            seen_of(got.records["duplicate"]), self.model.read(caller.member_id, duplicate), f"{what}: dup"
        )
        self.agree(got.facts["references_moved"], moved, f"{what}: references moved")

    def export(self, member: str, memory: str) -> int:
        """An export of one memory to a tar on disk; its number, for `restore`."""
        assert self.bench.export is not None
        exporter = self.bench.export
        path = self.bench.folder / f"{ids.new_id('archive')}.tar"

        async def written() -> None:
            plan = await exporter.plan(self.callers[member], self.memories[memory])
            with path.open("wb") as out:
                async for piece in plan.stream():
                    out.write(piece)

        self.bench.run(written())
        self.saved.append(Saved(member, memory, path, self.model.export(self.memories[memory])))
        self.bench.tally["export"] += 1
        return len(self.saved) - 1

    def restore(self, number: int) -> None:
        """Restores a saved export below its memory's parent, by whoever exported it (the owner)."""
        assert self.bench.restore is not None
        saved, restorer = self.saved[number], self.bench.restore
        under = self.memories[PARENTS[saved.memory]]
        outcome = self.both(
            f"restore export {number} of {saved.memory}",
            lambda: restorer.restore(self.callers[saved.member], under, saved.path),
            lambda: self.model.restore(saved.archive),
        )
        if outcome is not None:
            if outcome[1]:
                self.bench.tally["restore brought records back"] += 1
            self.agree(outcome[0].created.records, outcome[1], f"records restore {number} wrote")

    # -- every read, compared ----------------------------------------------------------------------

    def check(self) -> None:
        """Listings as each reader sees them, every record's history, and the erased ones gone."""
        for member in MEMBERS:
            for memory in self.places(member, "read"):
                self._check_listing(member, memory, "all")  # each reader sees references its own way
                if OWNERS[memory] == member:
                    self._check_listing(member, memory, "active")
        records = self.bench.records
        for record_id in self.existing():
            memory = self.memory_of(record_id)
            owner = self.callers[OWNERS[memory]]
            history = self.bench.run(records.history(owner, self.memories[memory], record_id))
            expected = self.model.history(owner.member_id, record_id)
            self.agree([seen_of(h) for h in history], expected, f"history of {self._labels[record_id]}")
        for record_id, memory_id in self.model.gone.items():
            owner = self.callers[OWNERS[self._labels[memory_id]]]
            try:
                self.bench.run(records.get(owner, memory_id, record_id, None))
            except RecordNotFoundError:
                continue
            raise AssertionError(self.label(f"{record_id} was erased from {memory_id} and still reads"))

    def _check_listing(self, member: str, memory: str, include: str) -> None:
        caller, memory_id = self.callers[member], self.memories[memory]
        page, _ = self.bench.run(
            self.bench.records.page(
                caller, memory_id, kind=None, include=include, as_of=None, cursor=None, limit=100
            )
        )
        got = sorted((seen_of(r) for r in page), key=lambda s: s.record_id)
        expected = self.model.listing(caller.member_id, memory_id, include_all=include == "all")
        self.agree(got, expected, f"{memory} listed ({include}) to {member}")
