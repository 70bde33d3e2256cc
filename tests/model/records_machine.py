"""The records rules as a Hypothesis state machine: random writes, each answer and then every read
compared with the model (tests/model/records_model.py) through a World (tests/model/records_world.py).

Every choice is a small integer naming a place in a fixed list (the pool of record ids, the members,
the memories), moved on to the next place that fits when the one named does not. A choice then means
the same record whatever other steps came before, so the shrinker can drop steps without changing
what the rest do, and a failing sequence comes out short, in small numbers.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TypeVar

from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, precondition, rule

from tests.model.records_model import DERIVED_FROM, PERSON
from tests.model.records_world import HOLDING, MEMBERS, OWNERS, World

T = TypeVar("T")

picks = st.integers(min_value=0, max_value=255)
# derived_from first: it is what the shrinker falls back to, and what erase follows
rels = st.sampled_from((DERIVED_FROM, "about"))
ref_picks = st.lists(st.tuples(rels, picks), max_size=3)
rows = st.lists(st.tuples(ref_picks, st.booleans()), min_size=1, max_size=3)


def nearest(pick: int, among: Sequence[T], fits: Callable[[T], bool]) -> T | None:
    """The item at `pick` (modulo the length) if it fits, else the next one that does, wrapping round."""
    for step in range(len(among)):
        item = among[(pick + step) % len(among)]
        if fits(item):
            return item
    return None


def chosen(pick: int, among: Sequence[T], fits: Callable[[T], bool]) -> T:
    """`nearest`, where a precondition has made sure something fits."""
    found = nearest(pick, among, fits)
    assert found is not None, "the rule's precondition promised a choice"
    return found


class RecordsMachine(RuleBasedStateMachine):
    """Create, import, revise, forget and erase, by either member, with references to any pool id."""

    def __init__(self, open_world: Callable[[], World]):
        super().__init__()
        self.world = open_world()

    def targets(self, refs: list[tuple[str, int]]) -> list[tuple[str, str]]:
        """References to pool ids: records that exist, that were erased, or that are not written yet."""
        return [(rel, self.world.pool[p % len(self.world.pool)]) for rel, p in refs]

    def kind(self, person: bool) -> str:
        """People only where merges run (their schema check runs in worker processes)."""
        return PERSON if person and self.world.bench.archives else "fact"

    def writer_of(self, who: int, record_id: str) -> str:
        able = [m for m in MEMBERS if self.world.may(m, self.world.memory_of(record_id), "write")]
        return able[who % len(able)]

    @precondition(lambda self: bool(self.world.unused()))
    @rule(who=picks, memory=picks, slot=picks, refs=ref_picks, person=st.booleans())
    def create(self, who: int, memory: int, slot: int, refs: list[tuple[str, int]], person: bool) -> None:
        member = MEMBERS[who % len(MEMBERS)]
        places = self.world.places(member, "write")
        fresh = self.world.unused()
        record_id = chosen(slot, self.world.pool, lambda r: r in fresh)
        self.world.create(
            member, places[memory % len(places)], record_id, self.kind(person), self.targets(refs)
        )

    @precondition(lambda self: bool(self.world.unused()))
    @rule(who=picks, memory=picks, slot=picks, batch=rows)
    def import_batch(
        self, who: int, memory: int, slot: int, batch: list[tuple[list[tuple[str, int]], bool]]
    ) -> None:
        """One batch of up to three lines, taking fresh ids from `slot` on; a line may name any other."""
        member = MEMBERS[who % len(MEMBERS)]
        places = self.world.places(member, "write")
        fresh = self.world.unused()  # in pool order
        start = chosen(slot, self.world.pool, lambda r: r in fresh)
        ids = (fresh[fresh.index(start) :] + fresh[: fresh.index(start)])[: len(batch)]
        written = [
            (r, self.kind(person), self.targets(refs)) for r, (refs, person) in zip(ids, batch, strict=False)
        ]
        self.world.import_(member, places[memory % len(places)], written)

    @precondition(lambda self: bool(self.world.existing()))
    @rule(record=picks, who=picks, text=st.booleans(), refs=st.none() | ref_picks)
    def revise(self, record: int, who: int, text: bool, refs: list[tuple[str, int]] | None) -> None:
        record_id = chosen(record, self.world.pool, lambda r: r in self.world.model.records)
        member = self.writer_of(who, record_id)
        self.world.revise(member, record_id, text, None if refs is None else self.targets(refs))

    @precondition(lambda self: bool(self.world.existing()))
    @rule(record=picks, who=picks)
    def forget(self, record: int, who: int) -> None:
        record_id = chosen(record, self.world.pool, lambda r: r in self.world.model.records)
        self.world.forget(self.writer_of(who, record_id), record_id)

    @precondition(lambda self: bool(self.world.model.records or self.world.model.erasures))
    @rule(where=picks, names=st.lists(picks, min_size=1, max_size=3), aim=st.integers(0, 3))
    def erase(self, where: int, names: list[int], aim: int) -> None:
        """By the owner: ids of a memory's records, or ones erased from it before (a retry); with `aim`
        3, any pool ids, in any memory the owner holds (mostly refused as unknown there)."""
        place = nearest(where, HOLDING, lambda m: aim < 3 and bool(self.world.erasable(m)))
        if place is None:
            place = HOLDING[where % len(HOLDING)]
            named = [self.world.pool[n % len(self.world.pool)] for n in names]
        else:
            here = self.world.erasable(place)
            named = [chosen(n, self.world.pool, lambda r: r in here) for n in names]
        self.world.erase(OWNERS[place], place, named)

    @invariant()
    def agrees(self) -> None:
        self.world.check()


class ArchiveMachine(RecordsMachine):
    """The records machine with people merged, memories exported and archives restored (Neo4j only)."""

    @precondition(lambda self: bool(self.world.mergeable()))
    @rule(kept=picks, duplicate=picks, who=picks)
    def merge(self, kept: int, duplicate: int, who: int) -> None:
        triples = self.world.mergeable()
        kept_id = chosen(kept, self.world.pool, lambda r: any(k == r for _, k, _ in triples))
        dup_id = chosen(
            duplicate, self.world.pool, lambda r: any((k, d) == (kept_id, r) for _, k, d in triples)
        )
        able = [m for m, k, d in triples if (k, d) == (kept_id, dup_id)]
        self.world.merge(able[who % len(able)], kept_id, dup_id)

    @precondition(lambda self: len(self.world.saved) < 4 and bool(self.world.model.records))
    @rule(where=picks)
    def export(self, where: int) -> None:
        """By its owner, a memory that holds records (an archive of nothing restores nothing)."""
        place = chosen(
            where, HOLDING, lambda m: any(self.world.memory_of(r) == m for r in self.world.existing())
        )
        self.world.export(OWNERS[place], place)

    @precondition(lambda self: bool(self.world.restorable()))
    @rule(pick=picks)
    def restore(self, pick: int) -> None:
        """An export whose records have since gone (they come back) or changed (a clash)."""
        self.world.restore(chosen(pick, range(len(self.world.saved)), lambda i: i in self.world.restorable()))
