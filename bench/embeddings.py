"""Embedding cost on this machine: single-sentence latency and batch throughput of the real model.

Run from the repository root: `python -m bench.embeddings`. Writes bench/results/embeddings.json.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import platform
import random
import statistics
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from bench.report import report
from provider.embeddings import OnnxEmbedder, onnx_embedder

MODEL = "all-MiniLM-L6-v2"
RESULTS = Path(__file__).resolve().parent / "results" / "embeddings.json"

SUBJECTS = [
    "Quillon Freight",
    "Harlow Mills",
    "Ines Varga",
    "The Vellacourt account",
    "Our Lisbon office",
    "The support team",
    "Marta from finance",
    "The night shift",
    "Acme Logistics",
    "The new intern",
    "Dr. Okafor",
    "The warehouse in Rotterdam",
    "Customer 4471",
    "The billing service",
    "Priya",
]
VERBS = [
    "renews its contract",
    "pays invoices",
    "prefers email",
    "asked for a refund",
    "moved the meeting",
    "reported an outage",
    "needs a new quote",
    "signed the agreement",
    "escalated the ticket",
    "switched carriers",
    "requested a demo",
    "approved the budget",
    "changed the delivery address",
    "wants weekly reports",
    "cancelled the order",
]
WHENS = [
    "every March",
    "on the first Monday of the month",
    "before the end of the quarter",
    "yesterday",
    "last week",
    "within thirty days",
    "after the audit",
    "at 9am Lisbon time",
    "twice a year",
    "since January",
    "by Friday",
    "during the holidays",
    "next Tuesday",
    "each spring",
    "overnight",
]
TAILS = [
    "",
    "",
    " because of the price change",
    " and expects a reply",
    ", according to the call notes",
    " so plan ahead",
    " (confirmed by phone)",
    " after two reminders",
    ", which is unusual",
    " per the signed contract",
]


def sentences(count: int, seed: int = 7) -> list[str]:
    """Short, varied, realistic memory sentences; seeded so every run embeds the same text."""
    rng = random.Random(seed)
    return [
        f"{rng.choice(SUBJECTS)} {rng.choice(VERBS)} {rng.choice(WHENS)}{rng.choice(TAILS)}."
        for _ in range(count)
    ]


def percentile(samples: Sequence[float], fraction: float) -> float:
    """Nearest-rank percentile."""
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, max(0, round(fraction * len(ordered)) - 1))]


async def single_latency(embedder: OnnxEmbedder, texts: Sequence[str]) -> dict[str, float]:
    """One sentence per call, through the async path the service uses (worker thread)."""
    timings = []
    for text in texts:
        start = time.perf_counter()
        await embedder.embed([text])
        timings.append((time.perf_counter() - start) * 1000)
    return {
        "calls": len(timings),
        "p50_ms": percentile(timings, 0.50),
        "p95_ms": percentile(timings, 0.95),
        "mean_ms": statistics.fmean(timings),
        "max_ms": max(timings),
    }


async def batch_throughput(embedder: OnnxEmbedder, texts: Sequence[str], batch: int) -> dict[str, float]:
    """Batches of `batch` sentences back to back; sentences per second over the whole corpus."""
    timings = []
    start = time.perf_counter()
    for offset in range(0, len(texts), batch):
        began = time.perf_counter()
        await embedder.embed(texts[offset : offset + batch])
        timings.append((time.perf_counter() - began) * 1000)
    elapsed = time.perf_counter() - start
    return {
        "sentences": len(texts),
        "batch_size": batch,
        "batches": len(timings),
        "seconds": elapsed,
        "sentences_per_s": len(texts) / elapsed,
        "batch_p50_ms": percentile(timings, 0.50),
        "batch_p95_ms": percentile(timings, 0.95),
    }


def environment() -> dict[str, Any]:
    """What the numbers were measured on."""
    import onnxruntime

    return {
        "model": MODEL,
        "python": platform.python_version(),
        "machine": platform.machine(),
        "cpus": os.cpu_count(),
        "onnxruntime": onnxruntime.__version__,
    }


async def run(singles: int, corpus: int, batch: int) -> dict[str, Any]:
    """Loads the model, warms it up, then measures."""
    began = time.perf_counter()
    embedder = onnx_embedder(MODEL, batch_size=batch)
    await asyncio.to_thread(embedder.load)
    load_s = time.perf_counter() - began
    texts = sentences(corpus)
    await embedder.embed(texts[:batch])
    return {
        "environment": {**environment(), "dimension": embedder.dimension, "load_s": load_s},
        "single": await single_latency(embedder, sentences(singles, seed=11)),
        "batch": await batch_throughput(embedder, texts, batch),
    }


def table(result: dict[str, Any]) -> str:
    """The numbers as a small table."""
    single, batch, env = result["single"], result["batch"], result["environment"]
    rows = [
        ("model", f"{env['model']} ({env['dimension']} dims), load {env['load_s']:.1f} s"),
        ("machine", f"{env['machine']}, {env['cpus']} CPUs, onnxruntime {env['onnxruntime']}"),
        ("single p50", f"{single['p50_ms']:.1f} ms over {single['calls']} calls"),
        ("single p95", f"{single['p95_ms']:.1f} ms"),
        (
            "batch throughput",
            f"{batch['sentences_per_s']:.0f} sentences/s "
            f"({batch['sentences']} in batches of {batch['batch_size']})",
        ),
        ("batch p50 / p95", f"{batch['batch_p50_ms']:.0f} / {batch['batch_p95_ms']:.0f} ms per batch"),
    ]
    width = max(len(name) for name, _ in rows)
    return "\n".join(f"{name:<{width}}  {value}" for name, value in rows)


def main() -> None:
    """CLI entry."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--singles", type=int, default=100, help="single-sentence calls to time")
    parser.add_argument("--corpus", type=int, default=2000, help="sentences for the throughput run")
    parser.add_argument("--batch", type=int, default=64, help="sentences per batch")
    parser.add_argument("--out", type=Path, default=RESULTS, help="where to write the JSON")
    args = parser.parse_args()
    result = asyncio.run(run(args.singles, args.corpus, args.batch))
    report(result, table, args.out)


if __name__ == "__main__":
    main()
