"""Recall latency over HTTP with 100,000 records in 50 memories: each signal alone, fused, and the floor.

Run from the repository root: `python -m bench.recall`. Neo4j comes from NEO4J_URI (with NEO4J_USER,
NEO4J_PASSWORD), else tests/neo4j_target.py provisions one. The bench makes a member, a root memory and
49 children through the API, writes --records synthetic records (bench/corpus.py: real sentences, real
model vectors cached in bench/results/*.npy) into them in the service's shape (sizes from 670 to
~15,000 per memory), then calls the app in-process (httpx.AsyncClient over ASGITransport, lifespan run
by hand, so no network but everything else: routing, auth, access, embedding, Cypher, hydration):

- after the load, it waits for Neo4j to settle (index merges and checkpoints use the cores for a while);
- 50 sequential questions per mode, on the root (the whole 100,000: the index path) and on one child
  of ~2,000 records (the exact path): query only, text only, filters only, all three fused; beside
  them the floor: one query embedding alone, and one raw `db.index.vector.queryNodes` alone. Modes,
  scopes and floors are taken in turn, question by question, so drift in the machine hits them alike;
- the child is asked a third time with the vector cache set aside (`scan`): the exact scan in Cypher,
  so the cache's gain is measured in the same run;
- beside them, every fifth question, the exhaustive scan Graphiti's design runs on Neo4j (a cosine in
  Cypher for every record of the root's scope, sorted; no vector index);
- then 8 concurrent clients, 25 questions each, per mode, on the root.

The service runs at its defaults (the cross-encoder on) but for the cross-encoder's cache of scores,
which is off: each question is asked of three scopes and in two modes, and a user's new question
finds nothing in the cache. Under the table, the share of each mode's time spent waiting for the
cross-encoder (its queue and its runs).

Prints a table, writes bench/results/recall.json, and deletes what it wrote.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import platform
import random
import secrets
import statistics
import time
import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import httpx
import numpy as np
from fastapi import FastAPI
from prometheus_client import REGISTRY

from bench import corpus
from bench.embeddings import percentile
from bench.report import on_neo4j, report
from bench.service import bench_settings
from provider.api.app import create_app
from provider.client import AsyncMemoryClient, UhpError
from provider.embeddings import Embedder, configured_embedder, onnx_embedder
from provider.models import Writer
from provider.store.recall import Neo4jRecallStore
from tests.neo4j_target import Neo4jTarget

RESULTS = corpus.RESULTS / "recall.json"
MEMORIES = 50
CLIENTS = 8
PER_CLIENT = 25
MODES = ("query", "text", "filters", "fused")
RAW_INDEX = """
CALL db.index.vector.queryNodes('record_embedding', $k, $vector) YIELD node, score
RETURN node.id AS id, score
"""
# Graphiti's way on Neo4j: no vector index, a cosine for every node of the caller's groups, sorted.
EXHAUSTIVE_SCAN = """
MATCH (r:Record) WHERE r.memory_id IN $scope
WITH r, vector.similarity.cosine(r.embedding, $vector) AS score
RETURN r.id AS id, score ORDER BY score DESC LIMIT $k
"""
SCAN_EVERY = 5  # the exhaustive scan takes seconds at 100,000 records: every fifth question


def memory_sizes(total: int, count: int) -> list[int]:
    """Very different sizes: a Zipf-like spread, the root holding the smallest share."""
    weights = [1.0 / (i + 1) ** 0.8 for i in range(count)]
    scale = total / sum(weights)
    sizes = [max(1, int(w * scale)) for w in weights]
    sizes[0] += total - sum(sizes)
    return list(reversed(sizes))


def bodies(mode: str, count: int, seed: int) -> list[dict[str, Any]]:
    """Recall bodies for one mode, built from questions in the corpus's vocabulary."""
    made = []
    for question, slots in corpus.questions(count, seed):
        word = slots["company"].split()[0]
        account = {"field": "attributes.account", "op": "eq", "value": corpus.slug(slots["company"])}
        signals: dict[str, dict[str, Any]] = {
            "query": {"query": question},
            "text": {"text": word},
            "filters": {"filters": account},
            "fused": {"query": question, "text": word, "filters": account},
        }
        made.append({**signals[mode], "limit": 10})
    return made


def summary(timings: Sequence[float], wall_s: float | None = None) -> dict[str, float]:
    result = {
        "calls": len(timings),
        "p50_ms": percentile(timings, 0.50),
        "p95_ms": percentile(timings, 0.95),
        "mean_ms": statistics.fmean(timings),
    }
    if wall_s:
        result["throughput_per_s"] = len(timings) / wall_s
    return result


@dataclass
class Bench:
    """The member, the memories and the client the modes are timed through."""

    memory: AsyncMemoryClient
    driver: Any
    member_id: str
    root: str
    children: list[str]

    async def recall(self, memory_id: str, body: dict[str, Any]) -> float:
        # One request through the typed client, as a raw post would be: no extra round trip, only
        # the answer read into its model (well under a millisecond beside the recall's own time).
        began = time.perf_counter()
        try:
            await self.memory.recall(memory_id, **body)
        except UhpError as refused:
            raise SystemExit(f"bench: {refused}") from refused
        return (time.perf_counter() - began) * 1000


async def setup(client: httpx.AsyncClient, driver: Any, admin_key: str) -> Bench:
    operator = AsyncMemoryClient(http=client, key=admin_key)
    member = await operator.create_member("agent", "bench")
    key = await operator.issue_key(member.id)
    memory = AsyncMemoryClient(http=client, key=key.key)
    root = await memory.create_memory(f"bench-{secrets.token_hex(4)}")
    children = []
    for i in range(MEMORIES - 1):
        made = await memory.create_memory(f"account {i}", description=f"bench memory {i}", parent_id=root.id)
        children.append(made.id)
    return Bench(memory=memory, driver=driver, member_id=member.id, root=root.id, children=children)


def reused(
    base: list[corpus.Item], matrix: np.ndarray, total: int, seed: int
) -> tuple[list[corpus.Item], np.ndarray]:
    """`total` records from `len(base)` embedded ones: record i repeats base record i mod n, its vector
    moved by Gaussian noise (0.01 a dimension, about 0.98 cosine to the original) and normalised again,
    so the index holds `total` distinct vectors without embedding them all."""
    count = len(base)
    rng = np.random.default_rng(seed)
    grown = np.empty((total, matrix.shape[1]), dtype=np.float32)
    grown[:count] = matrix
    for start in range(count, total, count):
        end = min(total, start + count)
        moved = matrix[: end - start] + rng.normal(0.0, 0.01, (end - start, matrix.shape[1])).astype(
            np.float32
        )
        grown[start:end] = moved / np.linalg.norm(moved, axis=1, keepdims=True)
    return [base[i % count] for i in range(total)], grown


async def load(
    target_driver: Any, bench: Bench, items: list[corpus.Item], seed: int, matrix: np.ndarray
) -> dict[str, Any]:
    total = len(items)
    memories = [bench.root, *bench.children]
    sizes = memory_sizes(total, MEMORIES)
    owner = [m for m, size in enumerate(sizes) for _ in range(size)]
    random.Random(seed).shuffle(owner)
    prefix = f"hrec_{uuid.uuid4().hex[:8]}"
    placement = [(f"{prefix}{i:024x}", memories[m]) for i, m in enumerate(owner)]
    writer = Writer(kind="member", id=bench.member_id, type="agent")
    began = time.perf_counter()
    rate = await corpus.write_records(target_driver, items, matrix, placement, writer)
    await target_driver.execute_query("CALL db.awaitIndexes(1800)")
    return {
        "prefix": prefix,
        "sizes": dict(zip(memories, sizes, strict=True)),
        "load_s": time.perf_counter() - began,
        "records_per_s": rate,
    }


async def settle(driver: Any, vector: list[float], limit_s: float = 600) -> float:
    """Waits until Neo4j has digested the load (index merges and checkpoints eat the 2 cores for a
    while): a raw index query, once a second, until 10 in a row run within twice the fastest seen."""
    began, fastest, calm = time.perf_counter(), float("inf"), 0
    while calm < 10 and time.perf_counter() - began < limit_s:
        started = time.perf_counter()
        await driver.execute_query(RAW_INDEX, k=20, vector=vector)
        elapsed = time.perf_counter() - started
        fastest = min(fastest, elapsed)
        calm = calm + 1 if elapsed <= 2 * fastest else 0
        await asyncio.sleep(1)
    return time.perf_counter() - began


async def sequential(
    bench: Bench, child: str, embedder: Embedder, count: int, seed: int, recall_store: Neo4jRecallStore
) -> dict[str, Any]:
    """One question at a time, the modes, scopes and floors taken in turn so drift hits them alike.

    `child_scan` asks the child again with the vector cache set aside: the exact scan in Cypher."""
    requests = {mode: bodies(mode, count, seed) for mode in MODES}
    asked = [question for question, _ in corpus.questions(count, seed)]
    driver = bench.driver
    timings: dict[str, list[float]] = {}
    reranking: dict[str, list[float]] = {}  # where/mode: [ms waiting for the cross-encoder, ms in all]
    scans: list[float] = []
    root_scope = [bench.root, *bench.children]
    for i in range(-3, count):  # three rounds of warm-up
        for mode in MODES:
            for where, memory_id in (("root", bench.root), ("child", child), ("child_scan", child)):
                cache = recall_store.vectors
                if where == "child_scan":
                    recall_store.vectors = None
                waited = rerank_seconds()
                try:
                    elapsed = await bench.recall(memory_id, requests[mode][i % count])
                finally:
                    recall_store.vectors = cache
                timings.setdefault(f"{where}/{mode}", []).append(elapsed)
                if i >= 0:
                    share = reranking.setdefault(f"{where}/{mode}", [0.0, 0.0])
                    share[0] += (rerank_seconds() - waited) * 1000
                    share[1] += elapsed
        began = time.perf_counter()
        vector = (await embedder.embed([asked[i % count]]))[0]
        timings.setdefault("floor/query_embedding", []).append((time.perf_counter() - began) * 1000)
        began = time.perf_counter()
        await driver.execute_query(RAW_INDEX, k=20, vector=vector)
        timings.setdefault("floor/raw_vector_index_k20", []).append((time.perf_counter() - began) * 1000)
        if i >= 0 and i % SCAN_EVERY == 0:
            began = time.perf_counter()
            await driver.execute_query(EXHAUSTIVE_SCAN, k=20, vector=vector, scope=root_scope)
            scans.append((time.perf_counter() - began) * 1000)
    result: dict[str, Any] = {
        "sequential_root": {},
        "sequential_child": {},
        "sequential_child_scan": {},
        "floor": {},
        "beside": {"exhaustive_cosine_scan_root": summary(scans)},
    }
    for key, values in timings.items():
        where, name = key.split("/")
        part = "floor" if where == "floor" else f"sequential_{where}"
        result[part][name] = summary(values[3:])
    for key, (waited, total) in reranking.items():
        where, name = key.split("/")
        result[f"sequential_{where}"][name]["rerank_share"] = waited / total if total else 0.0
    return result


def rerank_seconds() -> float:
    """Seconds recalls have waited for the cross-encoder in this process so far."""
    return REGISTRY.get_sample_value("uhp_rerank_seconds_sum") or 0.0


async def concurrent(bench: Bench, mode: str, seed: int) -> dict[str, float]:
    """CLIENTS clients on the root, PER_CLIENT questions each, all at once."""
    requests = bodies(mode, CLIENTS * PER_CLIENT, seed)
    timings: list[float] = []

    async def client(offset: int) -> None:
        for body in requests[offset * PER_CLIENT : (offset + 1) * PER_CLIENT]:
            timings.append(await bench.recall(bench.root, body))

    began = time.perf_counter()
    await asyncio.gather(*(client(i) for i in range(CLIENTS)))
    return summary(timings, time.perf_counter() - began)


async def measure(
    bench: Bench, child: str, embedder: Embedder, count: int, seed: int, recall_store: Neo4jRecallStore
) -> dict[str, Any]:
    result = await sequential(bench, child, embedder, count, seed, recall_store)
    result["concurrent_root"] = {}
    for mode in MODES:
        result["concurrent_root"][mode] = await concurrent(bench, mode, seed)
        print(f"  {mode}: 8 clients p50 {result['concurrent_root'][mode]['p50_ms']:.0f} ms", flush=True)
    return result


async def run(
    target: Neo4jTarget, total: int, count: int, seed: int, vectors_from: int | None = None
) -> dict[str, Any]:
    corpus_embedder = onnx_embedder(corpus.MODEL)
    await asyncio.to_thread(corpus_embedder.load)
    began = time.perf_counter()
    embedded = corpus.items(min(total, vectors_from or total), seed)
    matrix = corpus.vectors([item.text for item in embedded], corpus_embedder)
    items = embedded
    if total > len(embedded):
        items, matrix = reused(embedded, matrix, total, seed)
    vectors_s = time.perf_counter() - began
    admin_key = "adm_" + secrets.token_urlsafe(24)
    # The defaults, but for the cross-encoder's cache of scores: every question here is asked of three
    # scopes and in two modes, and a user's new question finds nothing in the cache.
    settings = bench_settings(target, admin_key, recall_rerank_cache_pairs=0)
    # The service's own runtime (ONNX by default) embeds the questions, as in production; the corpus's
    # cached vectors came from sentence-transformers, whose vectors it matches (cosine > 0.9999).
    embedder = configured_embedder(settings)
    await asyncio.to_thread(embedder.load)
    app: FastAPI = create_app(settings, embedder=embedder)
    async with app.router.lifespan_context(app):
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://bench", timeout=600) as client:
            driver = app.state.services.store.driver
            bench = await setup(client, driver, admin_key)
            loaded: dict[str, Any] = {}
            try:
                loaded = await load(driver, bench, items, seed, matrix)
                sizes = loaded["sizes"]
                child = min(bench.children, key=lambda m: abs(sizes[m] - 2000))
                print(f"loaded {total:,} records in {loaded['load_s']:.0f} s", flush=True)
                loaded["settle_s"] = await settle(driver, matrix[0].tolist())
                print(f"settled in {loaded['settle_s']:.0f} s", flush=True)
                recall_store = app.state.services.recall.store
                timings = await measure(bench, child, embedder, count, seed + 1, recall_store)
            finally:
                if target.source != "local":  # a local server is deleted whole afterwards
                    if loaded:
                        await corpus.remove(driver, loaded["prefix"], None)
                    await bench.memory.delete_memory(bench.root)
    return {
        "environment": {
            "neo4j": target.describe(),
            "python": platform.python_version(),
            "cpus": os.cpu_count(),
            "model": corpus.MODEL,
            "embedding_runtime": settings.embedding.runtime,
        },
        "settings": {
            "records": total,
            "memories": MEMORIES,
            "sizes_min_max": [min(loaded["sizes"].values()), max(loaded["sizes"].values())],
            "child_records": loaded["sizes"][child],
            "questions_sequential": count,
            "concurrent_clients": CLIENTS,
            "per_client": PER_CLIENT,
        },
        "timings": {
            "vectors_s": vectors_s,
            "load_s": loaded["load_s"],
            "load_records_per_s": loaded["records_per_s"],
        },
        **timings,
    }


def table(result: dict[str, Any]) -> str:
    settings = result["settings"]
    header = (
        f"{'mode':<10} {'root p50':>9} {'root p95':>9} {'child p50':>10} {'child p95':>10} "
        f"{'scan p50':>9} {'scan p95':>9} {'8x p50':>8} {'8x p95':>8} {'8x req/s':>9}"
    )
    lines = [
        f"{settings['records']:,} records in {settings['memories']} memories; root = all of them, "
        f"child = {settings['child_records']:,} records; milliseconds",
        header,
        "-" * len(header),
    ]
    for mode in MODES:
        root, child, scan, many = (
            result[part][mode]
            for part in ("sequential_root", "sequential_child", "sequential_child_scan", "concurrent_root")
        )
        lines.append(
            f"{mode:<10} {root['p50_ms']:>9.1f} {root['p95_ms']:>9.1f} {child['p50_ms']:>10.1f} "
            f"{child['p95_ms']:>10.1f} {scan['p50_ms']:>9.1f} {scan['p95_ms']:>9.1f} "
            f"{many['p50_ms']:>8.1f} {many['p95_ms']:>8.1f} {many['throughput_per_s']:>9.1f}"
        )
    shares = [
        f"{where} {mode} {result[f'sequential_{where}'][mode].get('rerank_share', 0.0):.0%}"
        for where in ("root", "child")
        for mode in ("query", "fused")
    ]
    lines.append("the cross-encoder's share of the time (its queue and runs): " + ", ".join(shares))
    for name, row in result["floor"].items():
        lines.append(f"floor: {name:<22} p50 {row['p50_ms']:.1f}  p95 {row['p95_ms']:.1f}")
    floor = result["floor"]
    p50 = floor["query_embedding"]["p50_ms"] + floor["raw_vector_index_k20"]["p50_ms"]
    p95 = floor["query_embedding"]["p95_ms"] + floor["raw_vector_index_k20"]["p95_ms"]
    for where in ("root", "child"):
        fused = result[f"sequential_{where}"]["fused"]
        lines.append(
            f"fused / floor, {where}: p50 {fused['p50_ms'] / p50:.2f}x ({p50:.1f} ms), "
            f"p95 {fused['p95_ms'] / p95:.2f}x ({p95:.1f} ms)"
        )
    scan = result.get("beside", {}).get("exhaustive_cosine_scan_root")
    if scan:
        query = result["sequential_root"]["query"]
        lines.append(
            f"beside: an exhaustive cosine scan of the root in Cypher (Graphiti's way), {scan['calls']} "
            f"questions: p50 {scan['p50_ms']:.1f}  p95 {scan['p95_ms']:.1f}; recall by meaning at the root "
            f"takes {query['p50_ms'] / scan['p50_ms']:.3f}x its p50"
        )
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--records", type=int, default=100_000)
    parser.add_argument("--questions", type=int, default=50, help="sequential questions per mode")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument(
        "--vectors-from",
        type=int,
        default=None,
        help="embed only this many records and reuse them, vectors moved by noise, for the rest (1,000,000)",
    )
    parser.add_argument("--out", default=str(RESULTS))
    args = parser.parse_args()
    result = on_neo4j(
        lambda target: asyncio.run(run(target, args.records, args.questions, args.seed, args.vectors_from))
    )
    report(result, table, args.out)


if __name__ == "__main__":
    main()
