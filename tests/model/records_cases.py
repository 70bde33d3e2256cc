"""Issue 48's cases, written out step by step on a World; both tiers run them before the random walk.

Each step is compared with the model as the machine compares it, and each case also says in plain
asserts what the model must conclude, so a wrong model cannot pass them either.
"""

from __future__ import annotations

import itertools

from tests.model.records_model import DERIVED_FROM, MERGED_INTO, PERSON
from tests.model.records_world import World


def erase_keeps_what_has_a_surviving_source(world: World) -> None:
    """(a) T a statement, O an observation, M derived from both, L from M alone: erasing T keeps M and L."""
    t, o, m, lone = world.pool[:4]
    world.create("alice", "a", t, "fact", [])
    world.create("alice", "a", o, "fact", [])
    world.create("alice", "a", m, "fact", [(DERIVED_FROM, t), (DERIVED_FROM, o)])
    world.create("alice", "a", lone, "fact", [(DERIVED_FROM, m)])
    world.erase("alice", "a", [t])
    world.check()
    assert set(world.model.records) == {o, m, lone}


def erase_follows_a_chain_to_its_end(world: World) -> None:
    """(b) Eight records, each derived from the one before, from the one erased: all nine go."""
    chain = world.pool[:9]
    world.create("alice", "a", chain[0], "fact", [])
    for before, record_id in itertools.pairwise(chain):
        who, memory = ("bob", "b") if len(world.model.records) % 2 else ("alice", "a")
        world.create(who, memory, record_id, "fact", [(DERIVED_FROM, before)])
    world.erase("alice", "a", [chain[0]])
    world.check()
    assert not set(chain) & set(world.model.records)


def a_target_written_later_is_an_edge(world: World) -> None:
    """(c) A record naming an id written after it: erasing that later target erases the earlier record.

    Written one by one, then imported: one batch whose first line names its second, and a batch naming
    a record a later batch (in another member's memory) brings.
    """
    d, t, d1, t1, d2, t2 = world.pool[:6]
    world.create("alice", "a", d, "fact", [(DERIVED_FROM, t)])
    world.create("alice", "a2", t, "fact", [])
    world.check()
    world.erase("alice", "a2", [t])
    assert d not in world.model.records
    world.import_("alice", "a", [(d1, "fact", [(DERIVED_FROM, t1)]), (t1, "fact", [])])
    world.import_("alice", "a", [(d2, "fact", [(DERIVED_FROM, t2)])])
    world.import_("bob", "b", [(t2, "fact", [])])
    world.check()
    world.erase("alice", "a", [t1])
    world.erase("bob", "b", [t2])
    world.check()
    assert not {d1, t1, d2, t2} & set(world.model.records)


def a_restore_in_reverse_order_draws_its_edges(world: World) -> None:
    """(c) Restored in reverse order: the derived record first, its source after; the edge is drawn."""
    d, t = world.pool[:2]
    world.create("alice", "a2", t, "fact", [])
    world.create("alice", "a", d, "fact", [(DERIVED_FROM, t)])
    derived, source = world.export("alice", "a"), world.export("alice", "a2")
    world.erase("alice", "a2", [t])
    assert not {d, t} & set(world.model.records)
    world.restore(derived)
    world.check()
    world.restore(source)
    world.restore(source)  # a retry finds everything there and writes nothing
    world.check()
    world.erase("alice", "a2", [t])
    world.check()
    assert not {d, t} & set(world.model.records)


def a_merge_repoints_what_it_may_write(world: World) -> None:
    """A merge moves to the kept person every active reference to the duplicate the merger may write,
    one written before the duplicate existed too; one in a memory it cannot write stays, and still leads
    to the kept person through the duplicate's `merged_into`."""
    kept, dup, early, note, elsewhere, closed = world.pool[:6]
    world.create("alice", "a", early, "fact", [("about", dup)])
    world.create("alice", "a", kept, PERSON, [])
    world.create("alice", "a", dup, PERSON, [("about", kept)])
    world.create("bob", "a", note, "fact", [("about", dup), ("about", kept)])
    world.create("bob", "b2", elsewhere, "fact", [("about", dup)])
    world.create("alice", "a2", closed, "fact", [("about", dup)])
    world.forget("alice", closed)
    world.merge("alice", kept, dup)
    world.check()
    model = world.model
    assert [len(model.records[r].versions) for r in (early, note, elsewhere, closed)] == [2, 2, 1, 1]
    assert [(r.rel, r.target) for r in model.records[dup].current.refs] == [(MERGED_INTO, kept)]
