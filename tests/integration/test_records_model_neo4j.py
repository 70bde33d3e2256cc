"""The records rules against their reference model (tests/model) on Neo4j, through the app's services.

The fast tier's cases and walk (tests/unit/test_records_model.py) again, on the real stores and their
Cypher, with the three writes the fakes cannot take: people merged, memories exported, archives
restored. Vectors play no part, so a flat embedder of the schema's dimension stands in for the model.
"""

from __future__ import annotations

import asyncio
import secrets
from collections.abc import Callable, Iterator

import pytest
from hypothesis import Phase, settings
from hypothesis.stateful import run_state_machine_as_test
from pydantic import SecretStr

from provider.composition import build_services
from provider.config import Settings
from provider.store.driver import Neo4jStore
from provider.store.schema import apply_schema
from tests.model import records_cases as cases
from tests.model.records_machine import ArchiveMachine
from tests.model.records_world import DIMENSION, Bench, FlatEmbedder, World
from tests.neo4j_target import Neo4jTarget

# What the walk must have reached at least once, so that a pass says more than the easy paths held.
# The rarer outcomes (an erase taking derived records, a merge moving references, a restore bringing
# records back) take only a few steps of so short a walk, so are not required of it: the cases above
# reach each of them on purpose.
REACHED = {"create", "import", "revise", "forget", "erase", "merge", "export", "restore refused (clash)"}

# 4 walks of up to 20 steps, each step followed by every read (about 25 statements). On the 2-core
# machine a passing walk takes 40-50 s (the most with another suite running beside it); a failing one
# takes about 2 minutes more, shrinking its sequence on the database.
EXAMPLES = 4
STEPS = 20


@pytest.fixture(scope="module")
def bench(neo4j_target: Neo4jTarget, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Bench]:
    """The app's services on the session's Neo4j, with one event loop for the module."""
    folder = tmp_path_factory.mktemp("records-model")
    config = Settings(
        environment="test",
        admin_key=SecretStr("adm_" + secrets.token_urlsafe(24)),
        neo4j_uri=neo4j_target.uri,
        neo4j_user=neo4j_target.user,
        neo4j_password=SecretStr(neo4j_target.password),
        file_dir=folder / "files",
        query_sandbox=False,
    )
    with asyncio.Runner() as runner:
        store = Neo4jStore.from_settings(config)
        services = build_services(config, store, FlatEmbedder())
        runner.run(apply_schema(store, DIMENSION))
        try:
            yield Bench(
                runner=runner,
                tree=services.tree,
                grants=services.grants,
                admin=services.admin,
                records=services.records,
                erasing=services.erase,
                folder=folder,
                types=services.types,
                export=services.export,
                restore=services.restore,
            )
        finally:
            runner.run(store.close())


@pytest.mark.parametrize(
    "case",
    [
        cases.erase_keeps_what_has_a_surviving_source,
        cases.erase_follows_a_chain_to_its_end,
        cases.a_target_written_later_is_an_edge,
        cases.a_restore_in_reverse_order_draws_its_edges,
        cases.a_merge_repoints_what_it_may_write,
    ],
    ids=lambda case: case.__name__,
)
def test_issue_48_case(case: Callable[[World], None], bench: Bench) -> None:
    case(World(bench))


def test_the_records_rules_hold_on_any_sequence(bench: Bench) -> None:
    bench.tally.clear()  # the cases above counted into it too

    class OnNeo4j(ArchiveMachine):
        def __init__(self) -> None:
            super().__init__(lambda: World(bench))

    run_state_machine_as_test(
        OnNeo4j,
        settings=settings(
            max_examples=EXAMPLES,
            stateful_step_count=STEPS,
            deadline=None,
            derandomize=True,
            database=None,
            # Shrinking stays; the explain phase, which replays the shortest failure many times over to
            # name the lines it ran, costs minutes here (see the fast tier's walk).
            phases=[phase for phase in Phase if phase != Phase.explain],
        ),
    )
    missing = REACHED - set(bench.tally)
    assert not missing, f"the walk never reached {sorted(missing)}: {dict(bench.tally)}"
