"""What a recall sees while `reembed` moves a memory from one model to the other (docs/MODELS.md).

Run from the repository root: `python -m bench.mixed_models`. No Neo4j: the models alone, on the 60
facts and 52 answerable questions of bench/abstain_set.py. For every pairing of the model the records
were embedded with and the model the question is embedded with, it reports the median cosine of a
question with the fact that answers it and how often that fact comes first; then a memory half
re-embedded (the first half of the facts still MiniLM's, the rest bge-small's) asked in bge-small.
Writes bench/results/mixed_models.json.
"""

from __future__ import annotations

import argparse
from typing import Any

import numpy as np

from bench import abstain_set
from bench.corpus import RESULTS
from bench.report import report
from provider.embeddings import onnx_embedder

OLD, NEW = "all-MiniLM-L6-v2", "bge-small-en-v1.5"


def ranked(questions: Any, records: Any, answers: Any) -> dict[str, float]:
    """The right fact's median cosine, the best cosine's median, and the share answered first."""
    scores = questions @ records.T
    right = scores[np.arange(len(answers)), answers]
    return {
        "right_cosine_median": round(float(np.median(right)), 3),
        "best_cosine_median": round(float(np.median(scores.max(axis=1))), 3),
        "right_first": round(float((scores.argmax(axis=1) == answers).mean()), 3),
    }


def measure() -> dict[str, Any]:
    facts = list(abstain_set.FACTS)
    questions = [q for q, _ in abstain_set.ANSWERABLE]
    answers = np.array([i for _, i in abstain_set.ANSWERABLE])
    embedders = {name: onnx_embedder(name) for name in (OLD, NEW)}
    records = {name: np.array(e.embed_sync(facts)) for name, e in embedders.items()}
    asked = {name: np.array(e.questions_sync(questions)) for name, e in embedders.items()}
    pairs = {
        f"records {r} / question {q}": ranked(asked[q], records[r], answers) for r in records for q in asked
    }
    half = len(facts) // 2
    mixed = np.vstack([records[OLD][:half], records[NEW][half:]])
    first = (asked[NEW] @ mixed.T).argmax(axis=1)
    return {
        "pairs": pairs,
        "half_reembedded": {
            "right_first": round(float((first == answers).mean()), 3),
            "first_from_new_half": round(float((first >= half).mean()), 3),
            "answers_in_new_half": round(float((answers >= half).mean()), 3),
        },
    }


def table(result: dict[str, Any]) -> str:
    lines = [f"{'pairing':>56}  right cos  best cos  right first"]
    for name, row in result["pairs"].items():
        cosines = f"{row['right_cosine_median']:>9}  {row['best_cosine_median']:>8}"
        lines.append(f"{name:>56}  {cosines}  {row['right_first']:>11}")
    mixed = result["half_reembedded"]
    lines.append(
        f"half re-embedded, asked in {NEW}: right first {mixed['right_first']}, first hit from the "
        f"re-embedded half {mixed['first_from_new_half']} (answers there: {mixed['answers_in_new_half']})"
    )
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--out", default=str(RESULTS / "mixed_models.json"))
    report(measure(), table, parser.parse_args().out)


if __name__ == "__main__":
    main()
