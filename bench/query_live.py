"""Analysts on a live memory: Cypher answers while an agent keeps writing (issue 49).

Run from the repository root: `python -m bench.query_live [--records 20000 100000] [--rates 1 10]
[--seconds 30]`. For each scope size, a memory is seeded through the store (like bulk import), then
for each write rate an agent remembers records over HTTP at that rate (each embedded, as users' are)
while an analyst, another member with `read`, asks (ten questions a second at most, within the
default query rate) in turn a count, a group-by on type and an
attribute, a two-hop pattern and a full-text query, each answer checked to reflect every write
acknowledged before it was asked. Printed: the first load, the analyst's p50/p95 per statement
beside the floor (the same analyst reading the memory, no sandbox) in the same run, each answer's
staleness (what `data.stale_ms` says, and how many writes acknowledged before the question an answer
missed: must be 0), and the copies loaded and brought up to date. The app runs in-process behind
Starlette's TestClient with one query sandbox (as bench.query). Writes bench/results/query_live.json.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import threading
import time
from pathlib import Path
from typing import Any

from fastapi.testclient import TestClient

from bench.embeddings import MODEL
from bench.query import seed, summary, timed
from bench.service import bench_settings
from provider.api.app import create_app
from provider.client import MemoryClient
from provider.embeddings import build_embedder
from provider.protocol.answers.queries import QueryRowsOut
from tests import sandboxes
from tests.neo4j_target import provision

RESULTS = Path(__file__).resolve().parent / "results" / "query_live.json"
# The analyst's pace: half the default per-member query rate (UHP_RATE_QUERIES, 20 a second).
ASKED_PER_SECOND = 10
STATEMENTS = {
    "count": "MATCH (r:Record) WHERE r.status = 'active' RETURN count(r) AS n",
    "group-by": "MATCH (r:Record) WHERE r.status = 'active' "
    "RETURN r.type AS type, r.`attr.bucket` AS bucket, count(*) AS n ORDER BY type, bucket",
    "two-hop": "MATCH (a:Record)-[:REFERENCES]->(b:Record)-[:IN]->(m:Memory) "
    "RETURN m.name AS memory, count(a) AS n ORDER BY memory",
    "full-text": "CALL db.index.fulltext.queryNodes('record_words', 'account AND region') YIELD node "
    "RETURN count(node) AS n",
}


class Agent(threading.Thread):
    """Remembers one record every 1/rate seconds until stopped; counts what was acknowledged."""

    def __init__(self, memory: MemoryClient, scope: str, rate: float):
        super().__init__(daemon=True)
        self.memory, self.scope, self.rate = memory, scope, rate
        self.acknowledged = 0
        self.stop = threading.Event()

    def run(self) -> None:
        began = time.perf_counter()
        while not self.stop.is_set():
            self.memory.remember(
                self.scope, f"Live note {self.acknowledged}: account 1, region 2.", type="note",
                attributes={"bucket": self.acknowledged % 10},
            )  # fmt: skip
            self.acknowledged += 1
            wait = began + self.acknowledged / self.rate - time.perf_counter()
            if wait > 0:
                self.stop.wait(wait)


def analyst_round(
    analyst: MemoryClient, agent: Agent, scope: str, seeded: int, seconds: float
) -> dict[str, Any]:
    """Asks the statements in turn for `seconds`; latency, staleness and missed writes per answer."""
    timings: dict[str, list[float]] = {name: [] for name in STATEMENTS}
    stale: list[int] = []
    missed = 0
    asked = time.perf_counter()
    deadline = asked + seconds
    turn = 0
    while time.perf_counter() < deadline:
        name = list(STATEMENTS)[turn % len(STATEMENTS)]
        turn += 1
        # At most ASKED_PER_SECOND questions a second (after a slow answer too, no burst to catch up):
        # within the analyst's default query rate.
        time.sleep(max(0.0, asked + 1 / ASKED_PER_SECOND - time.perf_counter()))
        asked = time.perf_counter()
        before = agent.acknowledged
        ms, answer = timed(lambda name=name: analyst.free_query(scope, STATEMENTS[name]))  # type: ignore[misc]
        assert isinstance(answer, QueryRowsOut), answer
        timings[name].append(ms)
        assert answer.data is not None, "every answer says what data it reflects"
        stale.append(answer.data.stale_ms)
        if name == "count" and answer.rows[0][0] < seeded + before:
            missed += seeded + before - answer.rows[0][0]
    every = [t for found in timings.values() for t in found]
    return {
        "answers": len(every),
        "all": summary(every),
        **{name: summary(found) for name, found in timings.items() if found},
        "stale_ms_max": max(stale, default=0),
        "writes_missed": missed,
    }


def run(sizes: list[int], rates: list[float], seconds: float) -> dict[str, Any]:
    target = provision()
    results: dict[str, Any] = {"neo4j": target.describe(), "runs": []}
    try:
        with sandboxes.start() as sandbox:
            settings = sandboxes.wired(bench_settings(target, query_max_records=max(sizes) + 10_000), sandbox)
            embedder = build_embedder("onnx", MODEL, cache_dir=settings.cache_dir, batch_size=64)
            with TestClient(create_app(settings, embedder=embedder)) as client:
                assert client.portal is not None
                pool = client.app.state.services.queries.pool  # type: ignore[attr-defined]
                client.portal.call(pool.warm)
                for size in sizes:
                    results["runs"] += measure(client, settings, size, rates, seconds)
    finally:
        target.close()
    return results


def measure(
    client: TestClient, settings: Any, size: int, rates: list[float], seconds: float
) -> list[dict[str, Any]]:
    with MemoryClient(http=client, key=settings.admin_key.get_secret_value()) as operator:
        owner, reader = operator.create_member("agent", "writer"), operator.create_member("human", "analyst")
        owner_key, reader_key = operator.issue_key(owner.id), operator.issue_key(reader.id)
    memory = MemoryClient(http=client, key=owner_key.key, idempotency=False)
    analyst = MemoryClient(http=client, key=reader_key.key, idempotency=False)
    scope = memory.create_memory("bench-live").id
    memory.create_grant(scope, f"member:{reader.id}", ["read"])
    pool = client.app.state.services.queries.pool  # type: ignore[attr-defined]
    found: list[dict[str, Any]] = []
    try:
        began = time.perf_counter()
        asyncio.run(seed(settings, scope, owner.id, size))
        seed_s = time.perf_counter() - began
        loads = pool.stats.loads
        first_ms, _ = timed(lambda: analyst.free_query(scope, STATEMENTS["count"]))
        assert pool.stats.loads == loads + 1
        written = 0
        for rate in rates:
            floor = [timed(lambda: analyst.get_memory(scope))[0] for _ in range(30)]
            agent = Agent(memory, scope, rate)
            loads, applies = pool.stats.loads, pool.stats.applies
            agent.start()
            try:
                round_ = analyst_round(analyst, agent, scope, size + written, seconds)
            finally:
                agent.stop.set()
                agent.join()
            written += agent.acknowledged
            found.append({
                "records": size, "rate": rate, "seed_s": round(seed_s, 1), "first_load_ms": first_ms,
                "floor": summary(floor), "writes": agent.acknowledged, **round_,
                "copies_loaded": pool.stats.loads - loads,
                "copies_brought_up_to_date": pool.stats.applies - applies,
            })  # fmt: skip
            print(line(found[-1]), flush=True)
    finally:
        memory.delete_memory(scope)
    return found


HEADER = (
    f"{'records':>8} {'w/s':>4} {'first load':>10} {'answers':>7} {'p50':>7} {'p95':>7} {'floor p50':>9} "
    f"{'ratio':>6} {'count':>7} {'group':>7} {'2-hop':>7} {'text':>7} {'missed':>6} {'stale':>5} "
    f"{'loads':>5} {'applies':>7}"
)


def line(r: dict[str, Any]) -> str:
    p50 = r["all"]["p50_ms"]
    floor = r["floor"]["p50_ms"]
    per = [f"{r[n]['p50_ms']:7.0f}" if n in r else f"{'-':>7}" for n in STATEMENTS]
    return (
        f"{r['records']:>8} {r['rate']:>4g} {r['first_load_ms']:>10.0f} {r['answers']:>7} {p50:>7.0f} "
        f"{r['all']['p95_ms']:>7.0f} {floor:>9.1f} {p50 / floor:>6.1f} {' '.join(per)} "
        f"{r['writes_missed']:>6} {r['stale_ms_max']:>5} {r['copies_loaded']:>5} "
        f"{r['copies_brought_up_to_date']:>7}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--records", type=int, nargs="+", default=[20_000, 100_000])
    parser.add_argument("--rates", type=float, nargs="+", default=[1.0, 10.0])
    parser.add_argument("--seconds", type=float, default=30.0)
    args = parser.parse_args()
    before = os.getloadavg()[0]
    print(
        "ms; p50/p95 over every answer, per statement the p50; missed: writes acknowledged before a question"
    )
    print("that its answer did not reflect (must be 0); stale: the largest data.stale_ms (0 by default)")
    print(HEADER, flush=True)
    result = run(args.records, args.rates, args.seconds)
    result["machine"] = {
        "cpus": os.cpu_count(),
        "python": platform.python_version(),
        "load_average_1m": [round(before, 2), round(os.getloadavg()[0], 2)],
    }
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(json.dumps(result, indent=2) + "\n")
    print(f"{result['neo4j']}; load average {result['machine']['load_average_1m']}; wrote {RESULTS}")


if __name__ == "__main__":
    main()
