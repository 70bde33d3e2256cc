"""A cheap probe of `UHP_DUPLICATE_SIMILARITY` per model: how similar restatements and near misses are.

Run from the repository root: `python -m bench.duplicate_probe`. No Neo4j: the models alone. For each
model it reports the cosines of 12 restatements of one fact (consolidation should forget the later
one), of 6 near misses (same subject, another fact: it must keep both), and of the 60 distinct facts
of bench/abstain_set.py with one another. Written for this bench; no outside data.
Writes bench/results/duplicate_probe.json.
"""

from __future__ import annotations

import argparse
from typing import Any

import numpy as np

from bench import abstain_set
from bench.corpus import RESULTS
from bench.report import report
from provider.embeddings import onnx_embedder
from provider.model_files import MODELS

THRESHOLD = 0.95  # the setting's default, the one judged here
RESTATED = (
    ("Alice works at Acme Corp as a data engineer.", "Alice is a data engineer at Acme Corp."),
    ("The team meeting is on Tuesdays at 10am.", "Team meetings happen every Tuesday at 10 am."),
    ("Bob prefers tea over coffee.", "Bob likes tea more than coffee."),
    ("The project deadline is March 15.", "The deadline for the project is the 15th of March."),
    ("Carol lives in Berlin.", "Carol's home is in Berlin."),
    ("The server runs Ubuntu 22.04.", "Ubuntu 22.04 is the server's operating system."),
    ("Dave is allergic to peanuts.", "Dave has a peanut allergy."),
    ("The office Wi-Fi password changed last week.", "Last week the office Wi-Fi password was changed."),
    ("Eve's birthday is on July 3rd.", "Eve was born on the 3rd of July."),
    ("The budget for Q3 is 50,000 euros.", "Q3's budget is EUR 50,000."),
    ("Frank moved to the sales team.", "Frank now works in sales."),
    ("The API rate limit is 100 requests per minute.", "The API allows 100 requests a minute."),
)
NEAR_MISSES = (
    ("Alice works at Acme Corp as a data engineer.", "Alice works at Acme Corp as a product manager."),
    ("The team meeting is on Tuesdays at 10am.", "The team meeting is on Thursdays at 10am."),
    ("The project deadline is March 15.", "The project deadline is April 15."),
    ("Carol lives in Berlin.", "Carol lives in Munich."),
    ("Bob prefers tea over coffee.", "Bob prefers coffee over tea."),
    ("The budget for Q3 is 50,000 euros.", "The budget for Q4 is 50,000 euros."),
)


def pair_cosines(name: str, pairs: tuple[tuple[str, str], ...]) -> list[float]:
    """Cosine of each pair's two texts (the vectors are unit length)."""
    embedder = onnx_embedder(name)
    first = np.array(embedder.embed_sync([a for a, _ in pairs]))
    second = np.array(embedder.embed_sync([b for _, b in pairs]))
    return sorted(round(float(x), 3) for x in (first * second).sum(axis=1))


def probe(name: str) -> dict[str, Any]:
    """One model's three distributions and how many of each pass the threshold."""
    facts = np.array(onnx_embedder(name).embed_sync(list(abstain_set.FACTS)))
    distinct = (facts @ facts.T)[np.triu_indices(len(facts), 1)]
    restated, near = pair_cosines(name, RESTATED), pair_cosines(name, NEAR_MISSES)
    return {
        "restated": restated,
        "restated_at_or_above": sum(x >= THRESHOLD for x in restated),
        "near_misses": near,
        "near_misses_at_or_above": sum(x >= THRESHOLD for x in near),
        "distinct_max": round(float(distinct.max()), 3),
        "distinct_p99": round(float(np.percentile(distinct, 99)), 3),
    }


def table(result: dict[str, Any]) -> str:
    lines = [f"threshold {result['threshold']}: restated (should pass) / near misses (should not)"]
    for name, row in result["models"].items():
        lines.append(
            f"{name:>20}  restated {row['restated_at_or_above']}/{len(row['restated'])} "
            f"{row['restated'][0]}-{row['restated'][-1]}  near misses {row['near_misses_at_or_above']}/"
            f"{len(row['near_misses'])} {row['near_misses'][0]}-{row['near_misses'][-1]}  "
            f"distinct facts max {row['distinct_max']} (p99 {row['distinct_p99']})"
        )
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--out", default=str(RESULTS / "duplicate_probe.json"))
    args = parser.parse_args()
    result = {"threshold": THRESHOLD, "models": {name: probe(name) for name in MODELS}}
    report(result, table, args.out)


if __name__ == "__main__":
    main()
