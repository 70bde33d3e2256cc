"""Export and restore rates beside the bulk import's, in one run (docs/EXPORT.md, docs/PERFORMANCE.md).

Run from the repository root: `python -m bench.export [--records 10000] [--batch 256]`.
Neo4j from NEO4J_URI, else provisioned like the tests. It imports a JSON Lines file of realistic
records (bench/corpus.py) with the bulk importer, exports the memory to a tar on disk, deletes the
memory (so every id is free, as in a fresh deployment), restores the archive below a new root, then
restores it again (everything there: the retry path). The run has an archive key of its own, so the
export is signed and restore keeps the vectors it carries (same model): unlike import it does not
embed. Prints a table and writes bench/results/export.json; what it made is deleted afterwards.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import secrets
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from pydantic import SecretStr

from bench.bulk_import import write_lines
from bench.service import bench_settings
from provider.cli_import import BulkImporter
from provider.config import Settings
from provider.embeddings import OnnxEmbedder
from provider.models import Caller
from provider.runtime import running
from provider.services.tree.memories import MemoryDraft
from tests.neo4j_target import provision

RESULTS = Path(__file__).resolve().parent / "results" / "export.json"


def _row(records: int, seconds: float, **more: Any) -> dict[str, Any]:
    return {
        "records": records,
        "seconds": round(seconds, 2),
        "records_per_s": round(records / seconds, 1),
        **more,
    }


async def measure(settings: Settings, lines: Path, archive: Path, batch: int) -> dict[str, Any]:
    """Import, export, restore and restore again; each timed on its own."""
    embedder = OnnxEmbedder(settings.embedding.model, cache_dir=settings.cache_dir / "onnx", batch_size=batch)
    async with running(settings, embedder=embedder) as runtime:
        services = runtime.services
        member = await services.admin.create_member("agent", "export bench")
        caller = Caller(member_id=member.id, member_type="agent")
        source = (await services.tree.create(caller, MemoryDraft(name="export bench"))).node.id
        target = (await services.tree.create(caller, MemoryDraft(name="restore bench"))).node.id
        results: dict[str, Any] = {}
        try:
            started = time.perf_counter()
            summary = await BulkImporter(services.records, batch_size=batch).run(
                caller, source, lines, resume=False
            )
            results["import"] = _row(summary.created, time.perf_counter() - started)
            print(f"import: {json.dumps(results['import'])}", file=sys.stderr, flush=True)
            started = time.perf_counter()
            plan = await services.export.plan(caller, source)
            with archive.open("wb") as out:
                async for piece in plan.stream():
                    out.write(piece)
            results["export"] = _row(
                plan.counts.records, time.perf_counter() - started, mb=archive.stat().st_size >> 20
            )
            print(f"export: {json.dumps(results['export'])}", file=sys.stderr, flush=True)
            await services.tree.delete(caller, source)
            for label in ("restore", "restore_again"):
                started = time.perf_counter()
                restored = await services.restore.restore(caller, target, archive)
                handled = restored.created.records + restored.present.records
                results[label] = _row(
                    handled, time.perf_counter() - started, created=restored.created.records
                )
                print(f"{label}: {json.dumps(results[label])}", file=sys.stderr, flush=True)
        finally:
            await services.tree.delete(caller, target)
        return results


def table(results: dict[str, Any], records: int, batch: int) -> str:
    cores = os.cpu_count()
    lines = [
        f"\nexport and restore of {records:,} records (batch {batch}, ONNX embeddings, {cores} cores)",
        f"{'run':<14} {'records':>9} {'seconds':>9} {'records/s':>10}",
    ]
    for label in ("import", "export", "restore", "restore_again"):
        row = results[label]
        lines.append(f"{label:<14} {row['records']:>9,} {row['seconds']:>9} {row['records_per_s']:>10,}")
    lines.append(f"archive: {results['export']['mb']} MiB")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--records", type=int, default=10_000)
    parser.add_argument("--batch", type=int, default=256)
    args = parser.parse_args()
    target = provision()
    key = SecretStr(secrets.token_urlsafe(32))  # signs the export, so the restore keeps its vectors
    settings = bench_settings(target, restore_batch_records=args.batch, archive_key=key)
    try:
        with tempfile.TemporaryDirectory() as folder:
            lines, archive = Path(folder) / "records.jsonl", Path(folder) / "export.tar"
            write_lines(lines, args.records)
            results = asyncio.run(measure(settings, lines, archive, args.batch))
    finally:
        target.close()
    print(table(results, args.records, args.batch))
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(json.dumps({"records": args.records, "batch": args.batch, **results}, indent=2))


if __name__ == "__main__":
    main()
