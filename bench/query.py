"""Free-query latency on a 10,000-record scope: the first call (the copy loaded into a sandbox) and repeats.

Run from the repository root: `python -m bench.query [--records 10000] [--repeats 60]`. The database is
NEO4J_URI (with NEO4J_USER, NEO4J_PASSWORD) or whatever tests.neo4j_target.provision finds; the app runs
in-process behind Starlette's TestClient with one query sandbox, called through the typed client
(provider.client), so the numbers include routing, auth, the access walk, the scope's fingerprint, the
gate (lexical and EXPLAIN), the sandbox and reading the answer into its model, but no network.
The records are written straight through the store (no embeddings: the sandbox holds none), in one
memory owned by a member made for the run, and deleted at the end. Writes bench/results/query.json.

Measured: the sandbox service's start and warm-up (not part of a query: at boot in production), the
first call on the scope (fingerprint, read of the copy from the main database, the copy sent to the
service and loaded into a new database, EXPLAIN, run), repeats of one statement, repeats with
changing params, a statement answering records (hydrated from the main store), the floor (the same
member reading the memory: auth and access, no sandbox), the first call after a write in the scope
(a new copy), a call on another, one-record scope (a second database beside the first), and the
first call back on the 10,000-record scope after it (still held).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import statistics
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, TypeVar

from fastapi.testclient import TestClient

from bench.embeddings import MODEL, percentile
from bench.service import bench_settings
from provider import ids
from provider.api.app import create_app
from provider.client import MemoryClient, UhpError
from provider.config import Settings
from provider.embeddings import build_embedder
from provider.models import EmbeddedRow, RecordVersion, UsageLimits, Writer
from provider.protocol.answers.queries import QueryRecordsOut, QueryRowsOut
from provider.store.driver import Neo4jStore
from provider.store.records import Neo4jRecordStore
from provider.store.usage import Neo4jUsageStore
from tests import sandboxes
from tests.neo4j_target import provision

RESULTS = Path(__file__).resolve().parent / "results" / "query.json"
STATEMENT = (
    "MATCH (r:Record) WHERE r.`attr.bucket` = $bucket "
    "RETURN r.type AS type, count(*) AS n, max(r.written_at) AS newest ORDER BY type"
)
RECORDS_STATEMENT = (
    "MATCH (r:Record)-[:REFERENCES]->(t:Record) WHERE r.`attr.bucket` = $bucket RETURN t LIMIT 10"
)
TYPES = ("fact", "note", "procedure", "episode")
T = TypeVar("T")


def summary(timings: Sequence[float]) -> dict[str, float]:
    """Milliseconds: p50, p95, mean, max over the calls."""
    return {
        "calls": len(timings),
        "p50_ms": percentile(timings, 0.50),
        "p95_ms": percentile(timings, 0.95),
        "mean_ms": statistics.fmean(timings),
        "max_ms": max(timings),
    }


def timed(call: Callable[[], T]) -> tuple[float, T]:
    """One call's wall time in milliseconds (reading the answer into its model included) and the
    answer; a refusal stops the run."""
    began = time.perf_counter()
    try:
        answer = call()
    except UhpError as refused:
        raise SystemExit(f"bench: {refused}") from refused
    return (time.perf_counter() - began) * 1000, answer


async def seed(settings: Settings, memory_id: str, writer_id: str, count: int) -> None:
    """`count` records in the memory, each tenth referencing the one before, batched like bulk import."""
    store = Neo4jStore.connect(
        settings.neo4j.uri, settings.neo4j.user, settings.neo4j.password.get_secret_value(), "neo4j"
    )
    records = Neo4jRecordStore(store, Neo4jUsageStore(store, UsageLimits()))
    now = ids.now_ms()
    made: list[str] = []
    try:
        for start in range(0, count, 1000):
            batch: list[EmbeddedRow] = []
            for i in range(start, min(count, start + 1000)):
                record_id = ids.new_id(ids.RECORD)
                refs = (
                    [{"rel": "about", "memory_id": memory_id, "record_id": made[-1]}] if i % 10 == 9 else []
                )
                text = f"Record {i} of the benchmark: account {i % 97}, region {i % 13}."
                version = RecordVersion(
                    record_id=record_id, memory_id=memory_id, type=TYPES[i % len(TYPES)],
                    title=f"record {i}", content=[{"type": "text", "text": text}],
                    attributes={"bucket": i % 10, "account": i % 97},
                    references=refs, version=1, status="active", supersedes=None, valid_from=None,
                    valid_to=None, written_at=now + i, invalidated_at=None, superseded_at=None,
                    forgotten_at=None, writer=Writer(kind="member", id=writer_id, type="human"),
                )  # fmt: skip
                batch.append(EmbeddedRow(version, f"record {i}\n{text}", None))
                made.append(record_id)
            await records.create_many(batch)
    finally:
        await store.close()


def run(records: int, repeats: int) -> dict[str, Any]:
    target = provision()
    try:
        began = time.perf_counter()
        with sandboxes.start() as sandbox:
            launch_s = time.perf_counter() - began
            settings = sandboxes.wired(bench_settings(target), sandbox)
            embedder = build_embedder("onnx", MODEL, cache_dir=settings.cache_dir, batch_size=64)
            with TestClient(create_app(settings, embedder=embedder)) as client:
                return measure(client, settings, records, repeats, launch_s) | {"neo4j": target.describe()}
    finally:
        target.close()


def measure(
    client: TestClient, settings: Settings, count: int, repeats: int, launch_s: float
) -> dict[str, Any]:
    with MemoryClient(http=client, key=settings.admin_key.get_secret_value()) as operator:
        member = operator.create_member("human", "bench")
        key = operator.issue_key(member.id)
    # No Idempotency-Key: a write here is set-up, and the timed queries are reads.
    memory = MemoryClient(http=client, key=key.key, idempotency=False)
    scope = memory.create_memory("bench-query").id
    try:
        began = time.perf_counter()
        asyncio.run(seed(settings, scope, member.id, count))
        seeded_s = time.perf_counter() - began
        pool = client.app.state.services.queries.pool  # type: ignore[attr-defined]
        began = time.perf_counter()
        assert client.portal is not None, "the app runs inside the TestClient's portal"
        client.portal.call(pool.warm)
        start_s = launch_s + time.perf_counter() - began  # the JVM's launch, then its warm-up

        def ask(statement: str, bucket: int) -> Callable[[], QueryRowsOut | QueryRecordsOut]:
            return lambda: memory.free_query(scope, statement, params={"bucket": bucket})

        first_ms, answer = timed(ask(STATEMENT, 0))
        assert isinstance(answer, QueryRowsOut), answer
        assert sum(row[1] for row in answer.rows) == count // 10, answer
        same = [timed(ask(STATEMENT, 0))[0] for _ in range(repeats)]
        varied = [timed(ask(STATEMENT, i % 10))[0] for i in range(repeats)]
        hydrated = [timed(ask(RECORDS_STATEMENT, i % 10))[0] for i in range(repeats)]
        # The floor, in the same run: the same route's authentication and access walk without a sandbox.
        floor = [timed(lambda: memory.get_memory(scope))[0] for _ in range(repeats)]
        note = "written during the benchmark"
        memory.remember(scope, note, type="note")
        reload_ms, _ = timed(ask(STATEMENT, 0))
        # Another scope: a new database in the service beside the first, which stays held.
        other = memory.create_memory("bench-other").id
        memory.remember(other, note, type="note")
        switch_ms, _ = timed(lambda: memory.free_query(other, "RETURN 1 AS one"))
        back_ms, _ = timed(ask(STATEMENT, 0))
        memory.delete_memory(other)
        loads = pool.stats.loads
    finally:
        memory.delete_memory(scope)
    return {
        "records": count,
        "seed_s": round(seeded_s, 2),
        "sandbox_start_s": round(start_s, 2),
        "first_call_ms": first_ms,
        "repeat_same_statement": summary(same),
        "repeat_varied_params": summary(varied),
        "repeat_records_answer": summary(hydrated),
        "floor_memory_read": summary(floor),
        "first_call_after_write_ms": reload_ms,
        "first_call_on_a_one_record_scope_after_it_ms": switch_ms,
        "first_call_back_on_the_scope_ms": back_ms,
        "copies_loaded": loads,
    }


def table(result: dict[str, Any]) -> str:
    rows = [
        ("sandbox start (boot, not per query)", f"{result['sandbox_start_s'] * 1000:.0f}", "", ""),
        ("first call on the scope (load + run)", f"{result['first_call_ms']:.0f}", "", "≤ 2000"),
        ("first call after a write (reload)", f"{result['first_call_after_write_ms']:.0f}", "", "≤ 2000"),
        (
            "another scope (new database, 1 record)",
            f"{result['first_call_on_a_one_record_scope_after_it_ms']:.0f}",
            "",
            "",
        ),
        (
            "back on the scope (held: run only)",
            f"{result['first_call_back_on_the_scope_ms']:.0f}",
            "",
            "≤ 2000",
        ),
    ]
    for name, key in [
        ("repeat, same statement", "repeat_same_statement"),
        ("repeat, params varied", "repeat_varied_params"),
        ("repeat, records answer (hydrated)", "repeat_records_answer"),
        ("floor: GET the memory (no sandbox)", "floor_memory_read"),
    ]:
        s = result[key]
        rows.append((name, f"{s['p50_ms']:.1f}", f"{s['p95_ms']:.1f}", "≤ 50 (p50)"))
    load = result.get("machine", {}).get("load_average_1m")
    lines = [f"free query on a {result['records']}-record scope ({result['neo4j']}; load average {load})"]
    lines.append(f"{'measure':40} {'ms / p50':>10} {'p95':>8} {'target':>12}")
    lines += [f"{a:40} {b:>10} {c:>8} {d:>12}" for a, b, c, d in rows]
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--records", type=int, default=10_000)
    parser.add_argument("--repeats", type=int, default=60)
    args = parser.parse_args()
    before = os.getloadavg()[0]
    result = run(args.records, args.repeats)
    # The machine is shared: the load average says how much of its two cores the run had.
    result["machine"] = {
        "cpus": os.cpu_count(),
        "python": platform.python_version(),
        "load_average_1m": [round(before, 2), round(os.getloadavg()[0], 2)],
    }
    print(table(result))
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(json.dumps(result, indent=2) + "\n")
    print(f"wrote {RESULTS.relative_to(Path.cwd()) if RESULTS.is_relative_to(Path.cwd()) else RESULTS}")


if __name__ == "__main__":
    main()
