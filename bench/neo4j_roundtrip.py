"""Neo4j round-trip cost from Python: `RETURN 1` through the async driver, plus the local server's start.

Run from the repository root: `python -m bench.neo4j_roundtrip` (or `python bench/neo4j_roundtrip.py`).
Neo4j comes from NEO4J_URI, else a Docker engine, else a local server (tests/neo4j_target.py); for a
local server it also reports seconds from start() to answering and the JVM's resident memory.
Writes bench/results/neo4j_roundtrip.json.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import platform
import statistics
import sys
import time
from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:  # run as a file, Python puts bench/ on the path, not the repository
    sys.path.insert(0, str(ROOT))

from neo4j import AsyncDriver, AsyncGraphDatabase  # noqa: E402

from bench.report import on_neo4j, report  # noqa: E402
from tests.neo4j_target import Neo4jTarget  # noqa: E402

RESULTS = ROOT / "bench" / "results" / "neo4j_roundtrip.json"


def percentile(samples: Sequence[float], fraction: float) -> float:
    """Nearest-rank percentile."""
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, max(0, round(fraction * len(ordered)) - 1))]


def rss_mb(pid: int) -> dict[str, float]:
    """Resident memory of a process now and at its peak (VmRSS, VmHWM), in MB."""
    fields = {}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        name, _, value = line.partition(":")
        if name in {"VmRSS", "VmHWM"}:
            fields[name] = int(value.split()[0]) / 1024
    return {"rss_mb": fields["VmRSS"], "peak_rss_mb": fields["VmHWM"]}


async def timed(calls: int, call: Callable[[], Awaitable[object]]) -> dict[str, float]:
    """Latency of `calls` sequential calls."""
    timings = []
    began = time.perf_counter()
    for _ in range(calls):
        start = time.perf_counter()
        await call()
        timings.append((time.perf_counter() - start) * 1000)
    elapsed = time.perf_counter() - began
    return {
        "calls": calls,
        "p50_ms": percentile(timings, 0.50),
        "p95_ms": percentile(timings, 0.95),
        "mean_ms": statistics.fmean(timings),
        "max_ms": max(timings),
        "per_s": calls / elapsed,
    }


async def measure(driver: AsyncDriver, calls: int, warmup: int) -> dict[str, dict[str, float]]:
    """Auto-commit `session.run` and managed `execute_query` (what the service uses), after a warm-up."""
    async with driver.session() as session:

        async def auto_commit() -> object:
            return await (await session.run("RETURN 1")).consume()

        async def managed() -> object:
            return await driver.execute_query("RETURN 1")

        await timed(warmup, auto_commit)
        await timed(warmup, managed)
        return {"session.run": await timed(calls, auto_commit), "execute_query": await timed(calls, managed)}


async def run(target: Neo4jTarget, calls: int, warmup: int) -> dict[str, Any]:
    """The measurements and what they were measured on."""
    async with AsyncGraphDatabase.driver(target.uri, auth=(target.user, target.password)) as driver:
        latency = await measure(driver, calls, warmup)
    server: dict[str, Any] = {"version": target.version, "edition": target.edition, "source": target.source}
    if target.pid is not None:
        server |= {"start_s": target.start_seconds, **rss_mb(target.pid)}
    machine = {"python": platform.python_version(), "machine": platform.machine(), "cpus": os.cpu_count()}
    return {"server": server, "machine": machine, "roundtrip": latency}


def table(result: dict[str, Any]) -> str:
    """The numbers as a small table."""
    server = result["server"]
    lines = [f"neo4j {server['version']} {server['edition']} ({server['source']})"]
    if "start_s" in server:
        lines.append(
            f"local server: ready {server['start_s']:.1f} s after start(); "
            f"RSS {server['rss_mb']:.0f} MB (peak {server['peak_rss_mb']:.0f} MB)"
        )
    lines.append(f"{'RETURN 1':<14} {'calls':>6} {'p50 ms':>8} {'p95 ms':>8} {'mean ms':>8} {'per s':>8}")
    for name, row in result["roundtrip"].items():
        lines.append(
            f"{name:<14} {row['calls']:>6} {row['p50_ms']:>8.2f} {row['p95_ms']:>8.2f} "
            f"{row['mean_ms']:>8.2f} {row['per_s']:>8.0f}"
        )
    return "\n".join(lines)


def main() -> None:
    """CLI entry."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--calls", type=int, default=500, help="timed round trips per method")
    parser.add_argument("--warmup", type=int, default=50, help="untimed round trips first")
    parser.add_argument("--out", type=Path, default=RESULTS, help="where to write the JSON")
    args = parser.parse_args()
    result = on_neo4j(lambda target: asyncio.run(run(target, args.calls, args.warmup)))
    report(result, table, args.out)


if __name__ == "__main__":
    main()
