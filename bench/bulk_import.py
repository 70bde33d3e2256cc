"""Bulk import throughput: JSON Lines through `python -m provider import`'s importer, embeddings included.

Run from the repository root: `python -m bench.bulk_import [--records 100000] [--batch 512]`.
Neo4j from NEO4J_URI, else provisioned like the tests. It writes a JSON Lines file of realistic
records (bench/corpus.py), creates a member and a memory, imports the file in-process with the
service's own validation, embedding and batched UNWIND writes, then replays it (every line already
there: the resume path). Prints a table and writes bench/results/bulk_import.json; the memory is
deleted afterwards.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from pydantic import SecretStr

from bench.corpus import items
from provider.api.app import build_services
from provider.config import Settings
from provider.embeddings import OnnxEmbedder
from provider.models import Caller
from provider.services.bulk_import import BulkImporter
from provider.services.tree import MemoryDraft
from provider.store.driver import Neo4jStore
from provider.store.schema import apply_schema
from tests.neo4j_target import provision

RESULTS = Path(__file__).resolve().parent / "results" / "bulk_import.json"


def write_lines(path: Path, count: int) -> None:
    """One record body per line."""
    with path.open("w", encoding="utf-8") as out:
        for item in items(count):
            out.write(
                json.dumps({"type": item.type, "content": item.text, "attributes": item.attributes}) + "\n"
            )


async def measure(settings: Settings, path: Path, batch: int) -> dict[str, Any]:
    """Imports twice (fresh, then replayed) and reports records per second for each."""
    embedder = OnnxEmbedder(settings.embedding_model, cache_dir=settings.cache_dir / "onnx", batch_size=batch)
    await asyncio.to_thread(embedder.load)
    store = Neo4jStore.from_settings(settings)
    services = build_services(settings, store, embedder)
    await apply_schema(store, embedder.dimension)
    member = await services.admin.create_member("agent", "bulk bench")
    caller = Caller(member_id=member["id"], member_type="agent")
    memory = await services.tree.create(caller, MemoryDraft(name="bulk import bench"))
    importer = BulkImporter(services.records, batch_size=batch, progress=sys.stderr)
    results: dict[str, Any] = {}
    try:
        for label in ("import", "replay"):
            started = time.perf_counter()
            summary = await importer.run(caller, memory.node.id, path, resume=False)
            seconds = time.perf_counter() - started
            handled = summary.created + summary.skipped_existing
            results[label] = {
                "records": handled,
                "created": summary.created,
                "seconds": round(seconds, 2),
                "records_per_s": round(handled / seconds, 1),
                "rejected": len(summary.rejected),
            }
            # Said at once: the numbers survive a failure of what follows (the clean-up included).
            print(f"{label}: {json.dumps(results[label])}", file=sys.stderr, flush=True)
        importer.state_path(path, memory.node.id).unlink(missing_ok=True)
    finally:
        await services.tree.delete(caller, memory.node.id)
        await store.close()
    return results


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--records", type=int, default=100_000)
    parser.add_argument("--batch", type=int, default=512)
    args = parser.parse_args()
    target = None if os.environ.get("NEO4J_URI") else provision()
    settings = Settings(
        environment="test",
        neo4j_uri=target.uri if target else os.environ["NEO4J_URI"],
        neo4j_user=target.user if target else os.environ.get("NEO4J_USER", "neo4j"),
        neo4j_password=SecretStr(target.password if target else os.environ.get("NEO4J_PASSWORD", "")),
    )
    try:
        with tempfile.TemporaryDirectory() as folder:
            path = Path(folder) / "records.jsonl"
            write_lines(path, args.records)
            results = asyncio.run(measure(settings, path, args.batch))
    finally:
        if target is not None:
            target.close()
    cores = os.cpu_count()
    print(f"\nbulk import of {args.records:,} records (batch {args.batch}, ONNX embeddings, {cores} cores)")
    print(f"{'run':<8} {'records':>9} {'created':>9} {'seconds':>9} {'records/s':>10}")
    for label, row in results.items():
        count, created, rate = row["records"], row["created"], row["records_per_s"]
        print(f"{label:<8} {count:>9,} {created:>9,} {row['seconds']:>9} {rate:>10,}")
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(json.dumps({"records": args.records, "batch": args.batch, **results}, indent=2))


if __name__ == "__main__":
    main()
