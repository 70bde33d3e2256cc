"""Filtered ANN: recall@10 of the service's scoped vector search against brute-force cosine, by scope size.

Run from the repository root: `python -m bench.filtered_ann`. Neo4j comes from NEO4J_URI (with NEO4J_USER,
NEO4J_PASSWORD), else tests/neo4j_target.py provisions one. The bench writes --records synthetic records
(bench/corpus.py: real sentences, real model vectors, cached) over seven memories of very different
sizes (50 to 50,000 at the default 100,000), in the shape the service writes. For each scope, from one
memory of 50 records to all of them, it asks 30 questions through `Neo4jRecallStore.vector` (which
picks an exact scan, or the index with over-fetch and an exact fallback) with the k the service uses
for limit 10, and compares the top 10 with exact cosine in numpy over the same scope; a few scopes are
asked again with a filter, which is where an index search starves. Recall counts a hit that scores at
least the exact 10th best as found (ties between near-identical sentences are arbitrary); recall by
id alone is in the JSON. Prints a table, writes
bench/results/filtered_ann.json, and deletes everything it wrote (ids share a run prefix).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import platform
import random
import statistics
import time
import uuid
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from bench import corpus
from bench.embeddings import percentile
from bench.report import on_neo4j, report
from provider.embeddings import onnx_embedder
from provider.models import Writer
from provider.services.recall.filters import compile_filters
from provider.store import recall as recall_store
from provider.store.driver import Neo4jStore
from provider.store.recall import Neo4jRecallStore
from provider.store.schema import apply_schema
from tests.neo4j_target import Neo4jTarget

RESULTS = corpus.RESULTS / "filtered_ann.json"
SIZES = (50, 150, 800, 4_000, 15_000, 30_000, 50_000)  # per memory, at 100,000 records
LIMIT = 10
K = max(LIMIT * 2, 20)  # what RecallService._current asks the store for at limit 10
WARMUP = 3


@dataclass(frozen=True)
class Scope:
    """A set of memories asked together, optionally with a filter."""

    name: str
    memories: tuple[int, ...]
    filters: Any = None


SCOPES = (
    Scope("m50", (0,)),
    Scope("m150", (1,)),
    Scope("m50+m150", (0, 1)),
    Scope("m800", (2,)),
    Scope("m50..m800", (0, 1, 2)),
    Scope("m4k", (3,)),
    Scope("m50..m4k", (0, 1, 2, 3)),
    Scope("m15k", (4,)),
    Scope("m50..m15k", (0, 1, 2, 3, 4)),
    Scope("m30k", (5,)),
    Scope("m50k", (6,)),
    Scope("m30k+m50k", (5, 6)),
    Scope("all", (0, 1, 2, 3, 4, 5, 6)),
    Scope("m30k, type=procedure", (5,), {"field": "type", "op": "eq", "value": "procedure"}),
    Scope("all, type=procedure", (0, 1, 2, 3, 4, 5, 6), {"field": "type", "op": "eq", "value": "procedure"}),
    Scope(
        "all, episode & priority=5",
        (0, 1, 2, 3, 4, 5, 6),
        {
            "and": [
                {"field": "type", "op": "eq", "value": "episode"},
                {"field": "attributes.priority", "op": "eq", "value": 5},
            ]
        },
    ),
)


def sizes_for(total: int) -> list[int]:
    """SIZES scaled to `total`, the largest memory taking the remainder."""
    scaled = [max(1, round(size * total / 100_000)) for size in SIZES[:-1]]
    return [*scaled, total - sum(scaled)]


def passes(item: corpus.Item, filters: Any) -> bool:
    """The bench's own reading of the few filters it uses (type eq, attribute eq, and)."""
    if filters is None:
        return True
    if "and" in filters:
        return all(passes(item, part) for part in filters["and"])
    field, value = filters["field"], filters["value"]
    actual = item.type if field == "type" else item.attributes.get(field.removeprefix("attributes."))
    return bool(actual == value)


@dataclass
class World:
    """What this run wrote: memory ids, record ids, and which memory each record is in."""

    prefix: str
    memory_ids: list[str]
    record_ids: list[str]
    memory_of: list[int]


def build(total: int, seed: int) -> World:
    prefix = uuid.uuid4().hex[:8]
    memory_ids = [f"hmem_{prefix}{i:024x}" for i in range(len(SIZES))]
    record_ids = [f"hrec_{prefix}{i:024x}" for i in range(total)]
    memory_of = [m for m, size in enumerate(sizes_for(total)) for _ in range(size)]
    random.Random(seed).shuffle(memory_of)
    return World(prefix=prefix, memory_ids=memory_ids, record_ids=record_ids, memory_of=memory_of)


async def load(store: Neo4jStore, world: World, items: Sequence[corpus.Item], matrix: np.ndarray) -> float:
    rows = [
        {"id": memory_id, "name": f"bench m{i}", "description": "filtered ANN bench"}
        for i, memory_id in enumerate(world.memory_ids)
    ]
    await corpus.create_memories(store.driver, rows)
    placement = [(world.record_ids[i], world.memory_ids[m]) for i, m in enumerate(world.memory_of)]
    rate = await corpus.write_records(
        store.driver, items, matrix, placement, Writer(kind="member", id="bench")
    )
    await store.driver.execute_query("CALL db.awaitIndexes(1800)")
    return rate


def scope_rows(world: World, items: Sequence[corpus.Item], scope: Scope) -> list[int]:
    """Indices of the records a scope (and its filter) covers."""
    wanted = set(scope.memories)
    return [i for i, m in enumerate(world.memory_of) if m in wanted and passes(items[i], scope.filters)]


def recall_at(
    hits: list[str], truth: list[str], position: dict[str, int], scores: np.ndarray
) -> tuple[float, float]:
    """Recall@10 by id, and counting ties: a hit scoring at least the exact 10th best is as good as it.

    Near-identical sentences score alike, and which of them a search returns is arbitrary.
    """
    if not truth:
        return 1.0, 1.0
    kth = scores[position[truth[-1]]] - 1e-6
    by_id = len(set(hits) & set(truth)) / len(truth)
    tied = sum(1 for h in hits if h in position and scores[position[h]] >= kth) / len(truth)
    return by_id, min(1.0, tied)


def exact_top(world: World, rows: list[int], scores: np.ndarray) -> list[str]:
    """Brute-force cosine (vectors are unit length) over the scope, ties broken by id as Neo4j does."""
    best = np.argsort(-scores, kind="stable")[: LIMIT * 3]
    order = sorted(best, key=lambda j: (-scores[j], world.record_ids[rows[j]]))
    return [world.record_ids[rows[j]] for j in order[:LIMIT]]


async def measure_scope(
    recall: Neo4jRecallStore,
    world: World,
    items: Sequence[corpus.Item],
    matrix: np.ndarray,
    scope: Scope,
    queries: np.ndarray,
) -> dict[str, Any]:
    ids = [world.memory_ids[m] for m in scope.memories]
    dnf = compile_filters(scope.filters)
    rows = scope_rows(world, items, scope)
    scoped = matrix[rows].astype(np.float64)
    position = {world.record_ids[r]: j for j, r in enumerate(rows)}
    for query in queries[:WARMUP]:
        await recall.vector(ids, query.tolist(), dnf, K)
    timings, recalls, by_ids, strategies = [], [], [], Counter[str]()
    for query in queries:
        began = time.perf_counter()
        hits, strategy = await recall.vector(ids, query.tolist(), dnf, K)
        timings.append((time.perf_counter() - began) * 1000)
        strategies[strategy] += 1
        scores = scoped @ query.astype(np.float64)
        got = [record_id for record_id, _, _ in hits[:LIMIT]]
        by_id, tied = recall_at(got, exact_top(world, rows, scores), position, scores)
        recalls.append(tied)
        by_ids.append(by_id)
    return {
        "scope": scope.name,
        "memories": len(ids),
        "records_in_scope": len(rows),
        "filters": scope.filters,
        "strategies": dict(strategies),
        "recall_at_10_mean": statistics.fmean(recalls),
        "recall_at_10_min": min(recalls),
        "recall_at_10_by_id_mean": statistics.fmean(by_ids),
        "p50_ms": percentile(timings, 0.50),
        "p95_ms": percentile(timings, 0.95),
        "queries": len(timings),
    }


def table(result: dict[str, Any]) -> str:
    header = (
        f"{'scope':<28} {'records':>8} {'strategy':<24} {'recall@10':>9} {'min':>5} "
        f"{'p50 ms':>8} {'p95 ms':>8}"
    )
    lines = [header, "-" * len(header)]
    for row in result["scopes"]:
        strategy = ",".join(
            f"{name}x{n}" if n != row["queries"] else name for name, n in row["strategies"].items()
        )
        lines.append(
            f"{row['scope']:<28} {row['records_in_scope']:>8,} {strategy:<24} "
            f"{row['recall_at_10_mean']:>9.3f} {row['recall_at_10_min']:>5.2f} "
            f"{row['p50_ms']:>8.1f} {row['p95_ms']:>8.1f}"
        )
    return "\n".join(lines)


async def run(target: Neo4jTarget, total: int, count: int, seed: int, keep: bool) -> dict[str, Any]:
    embedder = onnx_embedder(corpus.MODEL)
    await asyncio.to_thread(embedder.load)
    items = corpus.items(total, seed)
    began = time.perf_counter()
    matrix = corpus.vectors([item.text for item in items], embedder)
    embed_s = time.perf_counter() - began
    asked = [text for text, _ in corpus.questions(count, seed + 1)]
    queries = np.asarray(embedder.embed_sync(asked), dtype=np.float32)
    world = build(total, seed)
    store = Neo4jStore.connect(target.uri, target.user, target.password, "neo4j")
    try:
        await apply_schema(store, embedder.dimension)
        began = time.perf_counter()
        rate = await load(store, world, items, matrix)
        load_s = time.perf_counter() - began
        print(f"loaded {total:,} records in {load_s:.0f} s ({rate:.0f}/s)", flush=True)
        recall = Neo4jRecallStore(store)
        scopes = []
        for scope in SCOPES:
            scopes.append(await measure_scope(recall, world, items, matrix, scope, queries))
            print(f"  {scope.name}: recall@10 {scopes[-1]['recall_at_10_mean']:.3f}", flush=True)
        total_nodes = (await store.read("recall_scope_size", scope=[]))[0]["total"]
    finally:
        removed = (
            0 if keep else await corpus.remove(store.driver, f"hrec_{world.prefix}", f"hmem_{world.prefix}")
        )
        await store.close()
    return {
        "environment": {
            "neo4j": target.describe(),
            "python": platform.python_version(),
            "cpus": os.cpu_count(),
            "model": corpus.MODEL,
        },
        "settings": {
            "records": total,
            "memory_sizes": sizes_for(total),
            "records_in_database": total_nodes,
            "queries_per_scope": count,
            "k": K,
            "limit": LIMIT,
            "exact_max_records": recall_store.EXACT_MAX_RECORDS,
            "index_fetch_max": recall_store.INDEX_FETCH_MAX,
        },
        "timings": {"embed_or_cache_s": embed_s, "load_s": load_s, "load_records_per_s": rate},
        "scopes": scopes,
        "removed_records": removed,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--records", type=int, default=100_000, help="records to write")
    parser.add_argument("--queries", type=int, default=30, help="questions per scope")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--keep", action="store_true", help="leave the data in Neo4j")
    parser.add_argument("--out", default=str(RESULTS), help="where to write the JSON")
    args = parser.parse_args()
    result = on_neo4j(
        lambda target: asyncio.run(run(target, args.records, args.queries, args.seed, args.keep))
    )
    report(result, table, args.out)


if __name__ == "__main__":
    main()
