"""Record latency over HTTP on the real Neo4j and model: remember, get and revise, one call at a time.

Run from the repository root: `python -m bench.records`. The database is NEO4J_URI (with NEO4J_USER and
NEO4J_PASSWORD) or whatever tests.neo4j_target.provision finds; the app runs in-process behind
Starlette's TestClient, so the numbers include routing, auth, access checks, embedding and Cypher but no
network. Beside each timed remember the floor is measured on the same text, the two taken in turn so
the machine's drift hits both alike: one embedding by the service's own embedder, and one indexed
write (a node in a managed write transaction on a throwaway label with a Record's kinds of index:
unique id, vector and full-text). The table gives remember / floor at p50 and p95. Writes
bench/results/records.json.
"""

from __future__ import annotations

import argparse
import os
import platform
import random
import secrets
import statistics
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TypeVar

from fastapi.testclient import TestClient
from neo4j import Driver, GraphDatabase, ManagedTransaction

from bench.embeddings import MODEL, percentile, sentences
from bench.report import aligned, report
from bench.service import bench_settings
from provider.api.app import create_app
from provider.client import MemoryClient, UhpError
from provider.config import Settings
from provider.embeddings import OnnxEmbedder, SentenceTransformerEmbedder, configured_embedder
from tests.neo4j_target import Neo4jTarget, provision

RESULTS = Path(__file__).resolve().parent / "results" / "records.json"
# Issue 17: a remember's median at most this many times the floor's.
TARGET_OVER_FLOOR = 1.5
T = TypeVar("T")

# A Record's kinds of index (cypher/schema_007_record_id, schema_009_record_embedding and
# schema_010_record_words) on a throwaway label, so one write of the floor updates what a remember's does.
FLOOR_SCHEMA = (
    "CREATE CONSTRAINT bench_floor_id IF NOT EXISTS FOR (n:BenchFloor) REQUIRE n.id IS UNIQUE",
    "CREATE VECTOR INDEX bench_floor_embedding IF NOT EXISTS FOR (n:BenchFloor) ON (n.embedding) "
    "OPTIONS {indexConfig: {`vector.dimensions`: $dimensions, `vector.similarity_function`: 'cosine'}}",
    "CREATE FULLTEXT INDEX bench_floor_words IF NOT EXISTS FOR (n:BenchFloor) ON EACH [n.text]",
)
FLOOR_DROP = (
    "MATCH (n:BenchFloor) DETACH DELETE n",
    "DROP CONSTRAINT bench_floor_id IF EXISTS",
    "DROP INDEX bench_floor_embedding IF EXISTS",
    "DROP INDEX bench_floor_words IF EXISTS",
)
FLOOR_WRITE = "CREATE (n:BenchFloor {id: $id, text: $text, embedding: $embedding})"


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
    """One call's wall time in milliseconds and its answer; a refusal stops the run."""
    began = time.perf_counter()
    try:
        answer = call()
    except UhpError as refused:
        raise SystemExit(f"bench: {refused}") from refused
    return (time.perf_counter() - began) * 1000, answer


class Bench:
    """One member, one memory, and the three operations timed against it.

    Through the typed client: one request per call, as before, and no Idempotency-Key, so a timed
    write is the write alone (no key claimed in Neo4j beside it).
    """

    def __init__(self, client: TestClient, admin_key: str):
        with MemoryClient(http=client, key=admin_key) as operator:
            member = operator.create_member("agent", "bench")
            key = operator.issue_key(member.id)
        self.memory = MemoryClient(http=client, key=key.key, idempotency=False)
        self.memory_id = self.memory.create_memory(f"bench-{secrets.token_hex(4)}").id

    def remember(self, text: str) -> tuple[float, str]:
        elapsed, record = timed(lambda: self.memory.remember(self.memory_id, text, type="fact"))
        return elapsed, record.id

    def get(self, record_id: str) -> float:
        return timed(lambda: self.memory.get_record(self.memory_id, record_id))[0]

    def revise(self, record_id: str, text: str) -> float:
        return timed(lambda: self.memory.revise(self.memory_id, record_id, content=text))[0]

    def close(self) -> None:
        self.memory.delete_memory(self.memory_id)


class Floor:
    """What a remember cannot go below: one embedding of its text, then one indexed write of both."""

    def __init__(self, driver: Driver, embedder: OnnxEmbedder | SentenceTransformerEmbedder):
        self.driver = driver
        self.embedder = embedder

    def measure(self, text: str) -> tuple[float, float]:
        """Milliseconds of the embedding and of the write."""
        began = time.perf_counter()
        vector = self.embedder.embed_sync([text])[0]
        embedded = time.perf_counter()
        with self.driver.session() as session:  # a session per transaction, as the service's store opens
            session.execute_write(floor_write, "flr_" + secrets.token_hex(16), text, vector)
        return (embedded - began) * 1000, (time.perf_counter() - embedded) * 1000


def floor_write(tx: ManagedTransaction, node_id: str, text: str, embedding: list[float]) -> None:
    tx.run(FLOOR_WRITE, id=node_id, text=text, embedding=embedding).consume()


@contextmanager
def floor(target: Neo4jTarget, embedder: OnnxEmbedder | SentenceTransformerEmbedder) -> Iterator[Floor]:
    """The throwaway label's indexes made and online first; its nodes, indexes and constraint gone after."""
    with GraphDatabase.driver(target.uri, auth=(target.user, target.password)) as driver:
        try:
            for statement in FLOOR_DROP:  # what a killed run left (a vector index of another dimension)
                driver.execute_query(statement)
            for statement in FLOOR_SCHEMA:
                driver.execute_query(statement, dimensions=embedder.dimension)
            driver.execute_query("CALL db.awaitIndexes(300)")
            yield Floor(driver, embedder)
        finally:
            for statement in FLOOR_DROP:
                driver.execute_query(statement)


def remember_beside_floor(
    bench: Bench, ground: Floor, texts: Sequence[str]
) -> tuple[list[tuple[float, str]], list[tuple[float, float]]]:
    """Each text remembered and its floor measured, in turn, the floor first every other time.

    Drift in the machine then hits both alike, and neither always runs right after the other's work.
    """
    written: list[tuple[float, str]] = []
    floors: list[tuple[float, float]] = []
    for index, text in enumerate(texts):
        if index % 2:
            floors.append(ground.measure(text))
            written.append(bench.remember(text))
        else:
            written.append(bench.remember(text))
            floors.append(ground.measure(text))
    return written, floors


def measure(bench: Bench, ground: Floor, count: int, warmup: int) -> dict[str, dict[str, float]]:
    """Warm-up calls of each kind and of the floor (model, driver pools, query plans), then `count` each."""
    texts = sentences(warmup + count, seed=23)
    edits = sentences(warmup + count, seed=29)
    for text, edit in zip(texts[:warmup], edits[:warmup], strict=True):
        _, record_id = bench.remember(text)
        ground.measure(text)
        bench.get(record_id)
        bench.revise(record_id, edit)
    written, floors = remember_beside_floor(bench, ground, texts[warmup:])
    ids = [record_id for _, record_id in written]
    order = random.Random(5).sample(ids, len(ids))
    remember = summary([elapsed for elapsed, _ in written])
    # The floor of a call is its embedding and its write together; its percentiles are of those sums.
    ground_total = summary([embedding + write for embedding, write in floors])
    return {
        "remember": remember,
        "floor": ground_total,
        "floor_embedding": summary([embedding for embedding, _ in floors]),
        "floor_write": summary([write for _, write in floors]),
        "remember_over_floor": {
            "p50": remember["p50_ms"] / ground_total["p50_ms"],
            "p95": remember["p95_ms"] / ground_total["p95_ms"],
            "target_p50": TARGET_OVER_FLOOR,
        },
        "get": summary([bench.get(record_id) for record_id in order]),
        "revise": summary([bench.revise(r, e) for r, e in zip(order, edits[warmup:], strict=True)]),
    }


def environment(target: Neo4jTarget, runtime: str, load_s: float) -> dict[str, Any]:
    """What the numbers were measured on."""
    return {
        "neo4j": f"{target.version} {target.edition} ({target.source})",
        "model": MODEL,
        "embedding_runtime": runtime,
        "model_load_s": load_s,
        "python": platform.python_version(),
        "machine": platform.machine(),
        "cpus": os.cpu_count(),
        "transport": "in-process (Starlette TestClient), no network",
        # Other work on the host slows the model most (it is CPU-bound): say how busy the host was.
        "load_average_1m_at_end": os.getloadavg()[0],
    }


def runtime_settings(target: Neo4jTarget, admin_key: str, files: Path, runtime: str | None) -> Settings:
    """The service's settings on this database; the embedding runtime is the service's unless named."""
    settings = bench_settings(target, admin_key, files)
    return settings.changed(embedding_runtime=runtime) if runtime else settings


def run(count: int, warmup: int, runtime: str | None) -> dict[str, Any]:
    """Provisions Neo4j, starts the app with the real model, measures, cleans up what it made."""
    target = provision()
    admin_key = "adm_" + secrets.token_urlsafe(24)
    try:
        with tempfile.TemporaryDirectory(prefix="uhp-bench-files-") as files:
            settings = runtime_settings(target, admin_key, Path(files), runtime)
            began = time.perf_counter()
            embedder = configured_embedder(settings)
            embedder.load()
            about = environment(target, settings.embedding.runtime, time.perf_counter() - began)
            with (
                TestClient(create_app(settings, embedder=embedder)) as client,
                floor(target, embedder) as ground,
            ):
                bench = Bench(client, admin_key)
                try:
                    timings = measure(bench, ground, count, warmup)
                finally:
                    bench.close()
    finally:
        target.close()
    about["load_average_1m_at_end"] = os.getloadavg()[0]
    return {"environment": about, "records": count, "warmup": warmup, **timings}


ROWS = (
    ("remember", "remember"),
    ("floor", "floor: embedding + write"),
    ("floor_embedding", "  embedding"),
    ("floor_write", "  indexed write"),
    ("get", "get"),
    ("revise", "revise"),
)


def table(result: dict[str, Any]) -> str:
    """The numbers as a small table."""
    rows = [["operation", "calls", "p50 ms", "p95 ms", "mean ms", "max ms"]]
    for name, label in ROWS:
        s = result[name]
        rows.append(
            [label, str(s["calls"]), *(f"{s[k]:.1f}" for k in ("p50_ms", "p95_ms", "mean_ms", "max_ms"))]
        )
    lines = aligned(rows)
    ratio = result["remember_over_floor"]
    lines.append(
        f"\nremember / floor (same texts, same run): p50 {ratio['p50']:.2f}x, p95 {ratio['p95']:.2f}x "
        f"(target: p50 <= {ratio['target_p50']}x)"
    )
    env = result["environment"]
    lines.append(
        f"neo4j {env['neo4j']}; {env['model']} ({env['embedding_runtime']}); {env['cpus']} CPUs; "
        f"{env['transport']}"
    )
    lines.append(f"host load average (1 min) at the end: {env['load_average_1m_at_end']:.2f}")
    return "\n".join(lines)


def main() -> None:
    """CLI entry."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--records", type=int, default=300, help="timed calls of each operation")
    parser.add_argument("--warmup", type=int, default=20, help="untimed calls of each operation first")
    parser.add_argument(
        "--runtime",
        choices=["onnx", "torch"],
        default=None,
        help="embedding runtime (default: the service's)",
    )
    parser.add_argument("--out", type=Path, default=RESULTS, help="where to write the JSON")
    args = parser.parse_args()
    result = run(args.records, args.warmup, args.runtime)
    report(result, table, args.out)


if __name__ == "__main__":
    main()
