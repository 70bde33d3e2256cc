"""Recall right after a write, as an agent asks: the vector cache's load against Cypher's scan.

Run from the repository root: `python -m bench.write_then_recall [--records 500] [--questions 20]`.
Neo4j comes from NEO4J_URI (with NEO4J_USER, NEO4J_PASSWORD), else tests/neo4j_target.py provisions
one. A member fills one memory with --records generated facts (observed 100 at a time); then, for
each setting of `UHP_RECALL_VECTOR_CACHE_LOAD_AFTER` (1: a memory is loaded at its first question at
a version; 2: at its second, the default) and with the cache off, an app of its own asks the same
questions two ways: with nothing written since the last question, and each right after one
remember. The floor beside them: one embedding of the question and one raw vector index query.

Prints a table of median and p95 per row and writes bench/results/write_then_recall.json.
"""

from __future__ import annotations

import argparse
import secrets
import time
from pathlib import Path
from typing import Any

from fastapi.testclient import TestClient
from neo4j import GraphDatabase

from bench import corpus
from bench.quality import RAW_INDEX, summary
from bench.report import aligned, on_neo4j, report
from bench.service import bench_settings
from provider.api.app import create_app
from provider.client import MemoryClient
from provider.config import Settings
from provider.embeddings import onnx_embedder
from tests.neo4j_target import Neo4jTarget

RESULTS = Path(__file__).resolve().parent / "results" / "write_then_recall.json"
OBSERVE_BATCH = 100


def timed(memory: MemoryClient, memory_id: str, question: str) -> float:
    began = time.perf_counter()
    memory.recall(memory_id, query=question, limit=10)
    return (time.perf_counter() - began) * 1000


def ask(app: TestClient, key: str, memory_id: str, questions: list[str]) -> dict[str, Any]:
    """The questions with nothing written between them, then each right after a remember."""
    memory = MemoryClient(http=app, key=key, idempotency=False)
    timed(memory, memory_id, questions[0])  # the app's first request pays its own start-up
    timed(memory, memory_id, questions[0])  # and at load-after 2 the memory is loaded here
    unchanged = [timed(memory, memory_id, q) for q in questions]
    written = []
    for number, question in enumerate(questions):
        memory.remember(memory_id, f"One more note, number {number}: {secrets.token_hex(4)}.", type="note")
        written.append(timed(memory, memory_id, question))
    return {"unchanged": summary(unchanged), "after_a_write": summary(written)}


def measure(target: Neo4jTarget, records: int, count: int) -> dict[str, Any]:
    embedder = onnx_embedder(corpus.MODEL)
    embedder.load()
    admin_key = "adm_" + secrets.token_urlsafe(24)
    base = bench_settings(target, admin_key)
    variants: dict[str, Settings] = {
        "load after 1 question": base.changed(recall_vector_cache_load_after=1),
        "load after 2 questions": base.changed(recall_vector_cache_load_after=2),
        "cache off (Cypher scan)": base.changed(recall_vector_cache_mb=0),
    }
    questions = [text for text, _ in corpus.questions(count)]
    result: dict[str, Any] = {"records": records, "questions": count, "rows": {}}
    driver = GraphDatabase.driver(target.uri, auth=(target.user, target.password))
    with TestClient(create_app(base, embedder=embedder)) as client:
        with MemoryClient(http=client, key=admin_key) as operator:
            member = operator.create_member("agent", "bench")
            key = operator.issue_key(member.id).key
        memory = MemoryClient(http=client, key=key, idempotency=False)
        memory_id = memory.create_memory("bench-write-then-recall").id
        texts = [item.text for item in corpus.items(records)]
        try:
            for start in range(0, len(texts), OBSERVE_BATCH):
                memory.observe(memory_id, [{"content": t} for t in texts[start : start + OBSERVE_BATCH]])
            for name, settings in variants.items():
                with TestClient(create_app(settings, embedder=embedder)) as app:
                    result["rows"][name] = ask(app, key, memory_id, questions)
            floors = []
            for question in questions:
                began = time.perf_counter()
                vector = embedder.questions_sync([question])[0]
                driver.execute_query(RAW_INDEX, vector=list(vector))
                floors.append((time.perf_counter() - began) * 1000)
            result["floor"] = summary(floors)
        finally:
            memory.delete_memory(memory_id)
            driver.close()
    return result


def table(result: dict[str, Any]) -> str:
    floor = result["floor"]
    rows = [["recall (query, k = 10)", "unchanged p50", "p95", "after a write p50", "p95", "x floor p50"]]
    for name, row in result["rows"].items():
        unchanged, written = row["unchanged"], row["after_a_write"]
        rows.append(
            [
                name,
                f"{unchanged['p50_ms']:.1f}",
                f"{unchanged['p95_ms']:.1f}",
                f"{written['p50_ms']:.1f}",
                f"{written['p95_ms']:.1f}",
                f"{written['p50_ms'] / floor['p50_ms']:.2f}x",
            ]
        )
    rows.append(
        ["floor: 1 embedding + 1 raw index query", f"{floor['p50_ms']:.1f}", f"{floor['p95_ms']:.1f}"]
    )
    rows[-1] += ["", "", ""]
    head = f"{result['records']} records in one memory, {result['questions']} questions per row, ms"
    return "\n".join([head, *aligned(rows)])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--records", type=int, default=500)
    parser.add_argument("--questions", type=int, default=20)
    parser.add_argument("--out", default=str(RESULTS))
    args = parser.parse_args()
    result = on_neo4j(lambda target: measure(target, args.records, args.questions))
    report(result, table, args.out)


if __name__ == "__main__":
    main()
