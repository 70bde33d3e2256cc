"""Noisy neighbour: one member attacks the parts every member shares, another keeps working.

tests/neighbours.py holds the world, the attacks and the victim's calls. The victim first works
alone, which sets its own latency; then once per attack, while the attacker repeats it from two
threads. Asserted per attack: every victim call answers 2xx, and its slowest call stays within
max(FACTOR x its slowest call alone, FLOOR_S), "alone" measured again just before each attack, so a
load beside the tests (another test run, a benchmark) raises the bound as it raises the calls.

FLOOR_S is generous on purpose. The attacker's threads, uvicorn, Neo4j and the sandbox's JVM share
2 cores. With two more heavy jobs beside them, a victim's query once took 6.4 s while the attacker
filled the sandbox's heap (its collector starved of a core as much as the query). What this test
exists to catch is a shared part taken away: a stall of 20 s (an answer built on the loop) or a
refused call.
How slow the victim gets is a measure, and `python -m bench.neighbours` takes it.

Then the sandbox's JVM is killed with SIGKILL and the victim's query must answer again (the test
allows BACK_WITHIN_S; `bench.neighbours` measures it).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator

import httpx
import pytest

from provider.api.app import create_app
from provider.config import Settings
from provider.embeddings import Embedder
from tests import neighbours, sandboxes
from tests.neighbours import ATTACKS, FLOOD_CONNECTIONS, FLOODS, Hostile, Live, Run
from tests.serving import served_in_thread

FACTOR = 8.0
FLOOR_S = 8.0
VICTIM_CALLS = 12
BACK_WITHIN_S = 60.0


@pytest.fixture(scope="module")
def live(settings: Settings, embedder: Embedder, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Live]:
    with sandboxes.start(work=tmp_path_factory.mktemp("neighbours-sandbox")) as sandbox:
        tuned = sandboxes.wired(settings, sandbox).changed(**neighbours.SETTINGS)
        app = create_app(tuned, embedder=embedder)
        for url in served_in_thread(app):
            yield neighbours.world(url, app, sandbox, settings.admin_key.get_secret_value())


@pytest.fixture(scope="module")
def alone(live: Live) -> float:
    """The victim's slowest call with nobody else about (after one warming round)."""
    neighbours.victim(live, Run(), 6)
    run = Run()
    neighbours.victim(live, run, VICTIM_CALLS)
    assert not run.failures, run.failures
    return max(run.latencies)


@pytest.mark.parametrize("hostile", ATTACKS)
def test_the_victim_keeps_working_while_another_member_attacks(
    live: Live, alone: float, hostile: Hostile
) -> None:
    now = Run()
    neighbours.victim(live, now, VICTIM_CALLS // 2)
    assert not now.failures, now.failures
    alone = max(alone, *now.latencies)
    run = neighbours.under_attack(live, hostile, VICTIM_CALLS)
    bound = max(FACTOR * alone, FLOOR_S)
    slowest = max(run.latencies)
    print(f"{hostile.__name__}: victim alone {alone * 1000:.0f} ms, under attack max {slowest * 1000:.0f} ms;"
          f" attacker saw {dict(Counter(run.hostile))}")  # fmt: skip
    assert not run.failures, run.failures
    assert slowest <= bound, f"the victim's slowest call took {slowest:.2f} s (bound {bound:.2f} s)"
    # The attacker is told 4xx; while its own statements fill the sandbox's heap, one of them may be
    # told 503 instead (docs/QUERIES.md), never 500.
    assert run.hostile and all(a == "503" or not a.isdigit() or int(a) < 500 for a in run.hostile), (
        run.hostile
    )
    assert sum(1 for a in run.hostile if a != "503") > len(run.hostile) / 2, run.hostile


@pytest.mark.parametrize("flood", FLOODS)
def test_the_quiet_member_is_served_while_a_busy_one_floods_16_connections(
    live: Live, flood: Hostile
) -> None:
    """Ordinary requests as fast as 16 connections carry them: the busy member is told 2xx or 429, the
    quiet member's calls all answer 2xx."""
    run = neighbours.under_attack(live, flood, VICTIM_CALLS, workers=FLOOD_CONNECTIONS)
    told = Counter(run.hostile)
    print(f"{flood.__name__}: victim max {max(run.latencies) * 1000:.0f} ms; busy member told {dict(told)}")
    assert not run.failures, run.failures
    assert set(told) <= {"200", "202", "429"}, told
    assert told["200"] + told["202"] > 0, told


def test_the_victim_queries_again_soon_after_the_sandbox_is_killed_under_load(live: Live) -> None:
    seconds, statuses = neighbours.kill_sandbox_and_wait(
        live, BACK_WITHIN_S, under=neighbours.copy_again_and_again
    )
    print(f"sandbox back after {seconds:.1f} s; answers meanwhile {Counter(statuses)}")
    assert statuses[-1] == 200, statuses
    assert set(statuses) <= {200, 503}, statuses
    read = httpx.get(f"{live.url}/v1/memories/{live.victim_memory}", headers=live.victim.headers, timeout=60)
    assert read.status_code == 200, "no route but the queries noticed"
