"""The erase rule as a pure judgement: the named, then whatever was derived only from what goes.

Written from the chapter's words (erase reaches records "derived only from them") and docs/SECURITY.md
"Erase": a record survives while any of its derived_from sources survives, at any depth.
"""

from __future__ import annotations

import itertools

from provider.services.records.erase_plan import doomed_records


def sources_of(edges: dict[str, list[str]]) -> dict[str, frozenset[str]]:
    return {record: frozenset(of) for record, of in edges.items()}


def test_a_record_with_a_surviving_source_survives_and_so_does_what_was_derived_from_it() -> None:
    # T a statement, O an observation, M a summary of both, L a note drawn from M alone.
    sources = sources_of({"M": ["T", "O"], "L": ["M"]})
    assert doomed_records({"T"}, sources) == {"T"}


def test_a_chain_of_any_depth_goes_whole() -> None:
    chain = [f"r{i}" for i in range(40)]
    sources = sources_of({later: [earlier] for earlier, later in itertools.pairwise(chain)})
    assert doomed_records({"r0"}, sources) == set(chain)
    assert doomed_records({"r20"}, sources) == set(chain[20:]), "nothing above the named goes"


def test_a_diamond_goes_when_both_sides_go_and_stays_when_one_side_survives() -> None:
    sources = sources_of({"left": ["top"], "right": ["top"], "bottom": ["left", "right"]})
    assert doomed_records({"top"}, sources) == {"top", "left", "right", "bottom"}
    kept_side = sources_of({"left": ["top"], "right": ["top", "other"], "bottom": ["left", "right"]})
    assert doomed_records({"top"}, kept_side) == {"top", "left"}


def test_a_cycle_ends_and_goes_only_when_everything_feeding_it_goes() -> None:
    closed = sources_of({"a": ["named", "b"], "b": ["a"]})
    assert doomed_records({"named"}, closed) == {"named"}, "a and b still lean on each other"
    fed = sources_of({"a": ["named"], "b": ["a"], "c": ["b"], "a2": ["c", "named"]})
    assert doomed_records({"named"}, fed) == {"named", "a", "b", "c", "a2"}
    self_loop = sources_of({"s": ["s", "named"]})
    assert doomed_records({"named"}, self_loop) == {"named"}


def test_a_source_in_another_memory_or_out_of_the_callers_sight_counts_like_any_other() -> None:
    # The rule is over records, not memories: a derived copy elsewhere goes with its only source; a
    # record with a source the caller cannot read keeps it (that source is not erased) and survives.
    sources = sources_of({"copy_elsewhere": ["T"], "mixed": ["T", "unreadable_source"]})
    assert doomed_records({"T"}, sources) == {"T", "copy_elsewhere"}


def test_named_records_go_whatever_their_own_sources() -> None:
    sources = sources_of({"named": ["kept"], "child": ["named"]})
    assert doomed_records({"named"}, sources) == {"named", "child"}
    assert doomed_records(set(), sources) == set()
