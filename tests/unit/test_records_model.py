"""The records rules against their reference model (tests/model), through the real services on the fakes.

Issue 48's cases first, step by step, then a Hypothesis walk of random creates, imports, revisions,
forgets and erases by two members across four memories, every answer and every read compared with the
model after each step. Merge, export and restore need stores the fakes do not have: they walk in
tests/integration/test_records_model_neo4j.py. Vectors play no part, so a flat embedder stands in.
"""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from hypothesis import Phase, settings
from hypothesis.stateful import run_state_machine_as_test

from provider.blobs.directory import DirectoryBlobStore
from provider.models import UsageLimits
from provider.services.records import EraseService, FileQuota, FileService, RecordService, ReferenceResolver
from provider.services.tree import AdminService, GrantService, TreeService
from provider.services.vectors import VectorModels
from tests.fakes.files import FakeFileStore
from tests.fakes.records import FakeRecordStore, FakeVectorState
from tests.fakes.tree import FakeTree, fake_tree
from tests.fakes.usage import UsageLedger
from tests.model import records_cases as cases
from tests.model.records_machine import RecordsMachine
from tests.model.records_model import DERIVED_FROM, RecordsModel, Ref
from tests.model.records_world import Bench, FlatEmbedder, World

# 80 walks of up to 30 steps: about 2,200 steps, each followed by every read (about 20 calls). On
# the 2-core machine a passing walk takes 8 s (13 s with another suite running beside it); a failing
# one is shrunk to its shortest sequence in about a second.
EXAMPLES = 80
STEPS = 30


@pytest.fixture
def runner() -> Iterator[asyncio.Runner]:
    with asyncio.Runner() as loop:
        yield loop


def _root_of(stores: FakeTree) -> Callable[[str], str | None]:
    def root(memory_id: str) -> str | None:
        return stores.data.chain(memory_id)[0].id if memory_id in stores.data.memories else None

    return root


# What the walk must have reached at least once, so that a pass says more than the easy paths held.
REACHED = {
    "create",
    "import",
    "revise",
    "revise refused (invalid)",
    "forget",
    "erase",
    "erase refused (not_found)",
    "erase took derived records",
}


def worlds(runner: asyncio.Runner, folder: Path, tally: Counter[str]) -> Callable[[], World]:
    """Makes a fresh world on fresh fakes each time it is called (one per Hypothesis example)."""

    def open_world() -> World:
        stores = fake_tree()
        tree = TreeService(stores.memories, "neo4j")
        store = FakeRecordStore(_root_of(stores), UsageLedger(UsageLimits()))
        blobs = DirectoryBlobStore(folder / "blobs")
        files = FileService(FakeFileStore(store), blobs, ["text/*"], FileQuota(10_000, 10, orphan_grace_ms=0))
        vectors = VectorModels(FakeVectorState(), FlatEmbedder(), "all-MiniLM-L6-v2", refresh_seconds=60.0)
        references = ReferenceResolver(tree, store)
        bench = Bench(
            runner=runner,
            tree=tree,
            grants=GrantService(tree, stores.grants),
            admin=AdminService(stores.principals, stores.usage),
            records=RecordService(tree, store, vectors, files, references),
            erasing=EraseService(tree, store, files, references, batch_records=2),
            folder=folder,
            tally=tally,
        )
        return World(bench)

    return open_world


@pytest.mark.parametrize(
    "case",
    [
        cases.erase_keeps_what_has_a_surviving_source,
        cases.erase_follows_a_chain_to_its_end,
        cases.a_target_written_later_is_an_edge,
    ],
    ids=lambda case: case.__name__,
)
def test_issue_48_case(case: Callable[[World], None], runner: asyncio.Runner, tmp_path: Path) -> None:
    case(worlds(runner, tmp_path, Counter())())


def test_the_model_erases_to_a_fixed_point_and_ends_on_a_cycle() -> None:
    """The model alone, on the rule as issue 48 states it: doomed starts as the named records and takes,
    until nothing changes, each record with a source whose sources are all doomed. A cycle cannot loop
    the walk (the set only grows); and as the rule reads, a cycle the erased record feeds stays, since
    each record on it keeps a source (the other) that is never doomed first."""
    model = RecordsModel({("w", "m"): frozenset({"read", "write"})})
    model.create("t", "m", "w", "fact", "", {}, [])
    model.create("x", "m", "w", "fact", "", {}, [Ref(DERIVED_FROM, "t"), Ref(DERIVED_FROM, "y")])
    model.create("y", "m", "w", "fact", "", {}, [Ref(DERIVED_FROM, "x")])
    model.create("z", "m", "w", "fact", "", {}, [Ref(DERIVED_FROM, "nowhere")])
    assert model.doomed(["t"]) == {"t"}, "x keeps y as a source, and y hangs on x"
    model.revise("x", "w", None, [Ref(DERIVED_FROM, "t")])
    assert model.doomed(["t"]) == {"t", "x", "y"}, "x now derives from t alone, and y from x"
    assert model.doomed(["nowhere"]) == set(), "a reference to no record is no source, and names nothing"


def test_the_records_rules_hold_on_any_sequence(runner: asyncio.Runner, tmp_path: Path) -> None:
    tally: Counter[str] = Counter()

    class OnTheFakes(RecordsMachine):
        def __init__(self) -> None:
            super().__init__(worlds(runner, tmp_path, tally))

    run_state_machine_as_test(
        OnTheFakes,
        settings=settings(
            max_examples=EXAMPLES,
            stateful_step_count=STEPS,
            deadline=None,
            derandomize=True,
            database=None,
            # Shrinking stays; the explain phase, which replays the shortest failure many times over to
            # name the lines it ran, took 25 of a failing run's 26 s.
            phases=[phase for phase in Phase if phase != Phase.explain],
        ),
    )
    missing = REACHED - set(tally)
    assert not missing, f"the walk never reached {sorted(missing)}: {dict(tally)}"
