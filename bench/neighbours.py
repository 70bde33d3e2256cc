"""Noisy neighbours: a victim's own reads beside each attack another member makes, in one run.

Run from the repository root: `python -m bench.neighbours [--calls 60]`. The service runs for real
(uvicorn in a thread, a query sandbox service of its own) on NEO4J_URI or what
tests.neo4j_target.provision finds. The victim reads its memory, its record and queries its memory in
turn, `--calls` times with no attack (the floor), then the same while the attacker repeats each
attack of tests/neighbours.py from two threads. Last, the sandbox's JVM is killed with SIGKILL and
the seconds until the victim's query answers again are measured. Target: the victim's p99 under
attack at most 2x its p99 alone, and no error. Writes bench/results/neighbours.json.
"""

from __future__ import annotations

import argparse
from collections import Counter
from typing import Any

from bench.embeddings import MODEL, percentile
from bench.report import aligned, on_neo4j, report
from bench.service import bench_settings
from devtools.sandbox_service import LocalSandbox
from provider.api.app import create_app
from provider.embeddings import build_embedder
from tests import neighbours, sandboxes
from tests.neighbours import ATTACKS, Run
from tests.neo4j_target import Neo4jTarget
from tests.serving import served_in_thread

TARGET_RATIO = 2.0


def figures(run: Run) -> dict[str, Any]:
    ms = [s * 1000 for s in run.latencies]
    return {
        "calls": len(ms),
        "p50_ms": percentile(ms, 0.50),
        "p99_ms": percentile(ms, 0.99),
        "max_ms": max(ms),
        "errors": len(run.failures),
        "attacker": dict(Counter(run.hostile)),
    }


def measure(target: Neo4jTarget, calls: int) -> dict[str, Any]:
    with sandboxes.start() as sandbox:
        return measure_on(target, sandbox, calls)


def measure_on(target: Neo4jTarget, sandbox: LocalSandbox, calls: int) -> dict[str, Any]:
    settings = sandboxes.wired(bench_settings(target, **neighbours.SETTINGS), sandbox)
    embedder = build_embedder("onnx", MODEL, cache_dir=settings.cache_dir, batch_size=64)
    app = create_app(settings, embedder=embedder)
    result: dict[str, Any] = {"calls": calls, "attacks": {}}
    for url in served_in_thread(app):
        live = neighbours.world(url, app, sandbox, settings.admin_key.get_secret_value())
        neighbours.victim(live, Run(), 9)  # warm: the victim's copy loaded, connections open
        alone = Run()
        neighbours.victim(live, alone, calls)
        result["alone"] = figures(alone)
        for hostile in ATTACKS:
            print(f"attack: {hostile.__name__}", flush=True)
            result["attacks"][hostile.__name__] = figures(neighbours.under_attack(live, hostile, calls))
        seconds, statuses = neighbours.kill_sandbox_and_wait(
            live, 120.0, under=neighbours.copy_again_and_again
        )
        result["sandbox_back_s"] = seconds
        result["sandbox_back_answers"] = dict(Counter(statuses))
    return result


def table(result: dict[str, Any]) -> str:
    alone = result["alone"]
    rows = [["attack", "p50 ms", "p99 ms", "max ms", "p99 / alone", "errors", "attacker's answers"]]
    rows.append(
        [
            "(none)",
            f"{alone['p50_ms']:.0f}",
            f"{alone['p99_ms']:.0f}",
            f"{alone['max_ms']:.0f}",
            "1.0",
            "0",
            "",
        ]
    )
    for name, seen in result["attacks"].items():
        ratio = seen["p99_ms"] / alone["p99_ms"]
        answers = " ".join(f"{k}:{v}" for k, v in sorted(seen["attacker"].items()))
        mark = "" if ratio <= TARGET_RATIO and not seen["errors"] else " (missed)"
        rows.append([
            name, f"{seen['p50_ms']:.0f}", f"{seen['p99_ms']:.0f}", f"{seen['max_ms']:.0f}",
            f"{ratio:.1f}{mark}", str(seen["errors"]), answers,
        ])  # fmt: skip
    lines = [f"victim: {result['calls']} calls per row; target p99 / alone <= {TARGET_RATIO}, no error", ""]
    lines += aligned(rows)
    back, seconds = result["sandbox_back_answers"], result["sandbox_back_s"]
    lines += ["", "sandbox killed (SIGKILL) while copy_again_and_again ran:"]
    lines += [f"the victim's query answered again after {seconds:.1f} s"]
    lines += [f"(answers meanwhile {back}; target 10 s)"]
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=60)
    parser.add_argument("--out", default="bench/results/neighbours.json")
    args = parser.parse_args()
    report(on_neo4j(lambda target: measure(target, args.calls)), table, args.out)


if __name__ == "__main__":
    main()
