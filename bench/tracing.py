"""What tracing costs recall: the same questions with tracing off, on into memory, and on over OTLP.

Run from the repository root: `python -m bench.tracing [--otlp http://127.0.0.1:4318/v1/traces]`.
Neo4j comes from NEO4J_URI (with NEO4J_USER, NEO4J_PASSWORD), else tests/neo4j_target.py provisions
one. A member writes --records facts into one memory through the API; then recalls (query and text,
as a harness asks) run in blocks of ten, the modes taken in turn block by block so drift in the
machine hits them alike. `memory`: the SDK's batch processor into its in-memory exporter (the span
work in the request, none of the sending); `otlp` (with --otlp): the batch processor sending to a
collector, as a deployment runs it. The app runs in-process behind Starlette's TestClient.

Prints a table of median and p95 per mode and writes bench/results/tracing.json.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from fastapi.testclient import TestClient
from opentelemetry.sdk.trace.export import SpanExporter
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from bench.embeddings import percentile
from bench.report import aligned, report
from bench.service import bench_settings
from provider import tracing
from provider.api.app import create_app
from provider.client import MemoryClient
from provider.embeddings import configured_embedder
from tests.neo4j_target import provision

RESULTS = Path(__file__).resolve().parent / "results" / "tracing.json"
BLOCK = 10
TOPICS = ("harbour", "orchard", "glacier", "workshop", "library", "market", "observatory", "vineyard")


def exporters(otlp: str | None) -> dict[str, Callable[[], SpanExporter] | None]:
    """Each mode's exporter, made fresh per block; None: tracing off."""
    modes: dict[str, Callable[[], SpanExporter] | None] = {"off": None, "memory": InMemorySpanExporter}
    if otlp:
        from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter

        modes["otlp"] = lambda: OTLPSpanExporter(endpoint=otlp)
    return modes


def seed(client: TestClient, admin_key: str, records: int) -> tuple[MemoryClient, str]:
    """A member's typed client (writes unkeyed, as a bench's raw posts were) and its filled memory."""
    with MemoryClient(http=client, key=admin_key) as operator:
        member = operator.create_member("agent", "bench")
        key = operator.issue_key(member.id)
    memory = MemoryClient(http=client, key=key.key, idempotency=False)
    memory_id = memory.create_memory("bench-tracing").id
    for i in range(records):
        topic = TOPICS[i % len(TOPICS)]
        memory.remember(memory_id, f"Visit {i} to the {topic} noted detail number {i * 7}.", type="fact")
    return memory, memory_id


def measure(
    client: TestClient, admin_key: str, records: int, blocks: int, otlp: str | None
) -> dict[str, Any]:
    memory, memory_id = seed(client, admin_key, records)
    modes = exporters(otlp)
    timings: dict[str, list[float]] = {mode: [] for mode in modes}
    spans = 0
    try:
        for block in range(blocks):
            for mode, make in modes.items():
                exporter = make() if make else None
                if exporter is not None:
                    tracing.install(exporter)
                try:
                    for i in range(BLOCK):
                        question = f"what happened at the {TOPICS[(block + i) % len(TOPICS)]}"
                        began = time.perf_counter()  # one request, as a raw post: no extra round trip
                        memory.recall(memory_id, query=question)
                        timings[mode].append((time.perf_counter() - began) * 1000)
                finally:
                    tracing.shutdown()
                if isinstance(exporter, InMemorySpanExporter):
                    spans = len(exporter.get_finished_spans()) // BLOCK
    finally:
        memory.delete_memory(memory_id)
    return {
        "records": records,
        "requests_per_mode": blocks * BLOCK,
        "spans_per_recall": spans,
        "modes": {
            mode: {"p50_ms": round(percentile(t, 0.5), 2), "p95_ms": round(percentile(t, 0.95), 2)}
            for mode, t in timings.items()
        },
    }


def table(result: dict[str, Any]) -> str:
    off = result["modes"]["off"]["p50_ms"]
    rows = [["tracing", "p50 ms", "p95 ms", "p50 vs off"]]
    for mode, figures in result["modes"].items():
        rows.append(
            [mode, f"{figures['p50_ms']:.2f}", f"{figures['p95_ms']:.2f}", f"{figures['p50_ms'] - off:+.2f}"]
        )
    head = f"recall, {result['records']} records, {result['requests_per_mode']} requests per mode, "
    return "\n".join([head + f"{result['spans_per_recall']} spans per recall", *aligned(rows)])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--records", type=int, default=200)
    parser.add_argument("--blocks", type=int, default=20, help="blocks of ten requests per mode")
    parser.add_argument("--otlp", help="an OTLP/HTTP traces endpoint (a collector) for the `otlp` mode")
    parser.add_argument("--out", default=str(RESULTS))
    args = parser.parse_args()
    target = provision()
    try:
        settings = bench_settings(target)
        embedder = configured_embedder(settings)
        with TestClient(create_app(settings, embedder=embedder)) as client:
            admin_key = settings.admin_key.get_secret_value()
            result = measure(client, admin_key, args.records, args.blocks, args.otlp)
        report(result | {"neo4j": target.describe()}, table, args.out)
    finally:
        target.close()


if __name__ == "__main__":
    main()
