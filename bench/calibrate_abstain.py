"""Calibrates `abstain`: which best-similarity threshold best tells answerable questions from the rest.

Run from the repository root: `python -m bench.calibrate_abstain [--model bge-small-en-v1.5]`. Neo4j
comes from NEO4J_URI (with NEO4J_USER, NEO4J_PASSWORD), else tests/neo4j_target.py provisions one. The
bench writes the 60 facts of bench/abstain_set.py into a fresh memory through the typed client
(provider.client, on the app in-process behind Starlette's TestClient), asks every labelled question
as a query-only recall, and reads the best cosine of each answer: the API's `score` is the fused score,
so the bench recomputes, with the same model, the highest cosine between the question and the words
of the five records that came back (a query's own words are fused with its meaning, so the closest
record by meaning need not come first).
For each threshold it reports accuracy, precision, recall, F1 and F0.5 of "abstain" (positive = the
memory does not hold the answer), picks the best by F0.5 (a wrong abstain hides a right answer, so
precision counts double), and checks the service's own `abstain` at its setting.
Prints a table, writes bench/results/calibrate_abstain.json, and deletes the memory.
"""

from __future__ import annotations

import argparse
import secrets
import statistics
from dataclasses import dataclass
from typing import Any

import numpy as np
from fastapi.testclient import TestClient

from bench import abstain_set
from bench.corpus import MODEL, RESULTS
from bench.report import on_neo4j, report
from bench.service import bench_settings
from provider.api.app import create_app
from provider.client import MemoryClient, UhpError
from provider.embeddings import OnnxEmbedder, onnx_embedder
from provider.model_files import MODELS, abstain_threshold
from tests.neo4j_target import Neo4jTarget

OUT = RESULTS / "calibrate_abstain.json"
THRESHOLDS = [round(0.10 + 0.025 * i, 3) for i in range(33)]  # 0.10 .. 0.90 (bge-small scores high)


@dataclass
class Asked:
    """One labelled question and what recall made of it."""

    question: str
    answerable: bool
    kind: str
    expected: str | None
    top: str | None
    found: list[str]
    best: float
    service_abstain: bool


def words(record: dict[str, Any]) -> str:
    """What the service embeds for a record: its title and text parts, one per line."""
    pieces = [record["title"]] if record.get("title") else []
    pieces += [p["text"] for p in record["content"] if isinstance(p.get("text"), str)]
    return "\n".join(pieces)


def ask_all(memory: MemoryClient, memory_id: str, facts: list[str]) -> list[Asked]:
    labelled: list[tuple[str, bool, str, str | None]] = [
        (q, True, "answerable", facts[i]) for q, i in abstain_set.ANSWERABLE
    ]
    labelled += [(q, False, "in_domain", None) for q in abstain_set.UNANSWERABLE_IN_DOMAIN]
    labelled += [(q, False, "out_of_domain", None) for q in abstain_set.UNANSWERABLE_OUT_OF_DOMAIN]
    asked = []
    for question, answerable, kind, expected in labelled:
        answer = memory.recall(memory_id, query=question, limit=5)
        found = [words(result["record"]) for result in answer.wire()["results"]]
        top = found[0] if found else None
        asked.append(Asked(question, answerable, kind, expected, top, found, 0.0, answer.abstain))
    return asked


def score(asked: list[Asked], embedder: OnnxEmbedder) -> None:
    """Fills in each question's best cosine: the highest over the records that came back (-1 when none).

    The service's `best` is the highest cosine in the scope. Since a query's own words are fused by score,
    the first result need not be the closest by meaning, but the closest is among the first five.
    """
    questions = np.asarray(embedder.questions_sync([a.question for a in asked]))
    for a, q in zip(asked, questions, strict=True):
        found = np.asarray(embedder.embed_sync(a.found)) if a.found else None
        a.best = float((found @ q).max()) if found is not None else -1.0


def metrics(asked: list[Asked], threshold: float) -> dict[str, float]:
    """Abstain is the positive class: predicted when the best cosine is below the threshold."""
    tp = sum(1 for a in asked if a.best < threshold and not a.answerable)
    fp = sum(1 for a in asked if a.best < threshold and a.answerable)
    fn = sum(1 for a in asked if a.best >= threshold and not a.answerable)
    tn = len(asked) - tp - fp - fn
    precision = tp / (tp + fp) if tp + fp else 1.0
    recall = tp / (tp + fn) if tp + fn else 1.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    # F0.5 weighs precision twice as much as recall: a wrong abstain tells an agent to ignore a right
    # answer, which costs more than a missed abstain (the agent still sees the results and can judge).
    f_half = 1.25 * precision * recall / (0.25 * precision + recall) if precision + recall else 0.0
    return {
        "threshold": threshold,
        "accuracy": (tp + tn) / len(asked),
        "precision": precision,
        "recall": recall,
        "f1": f1,
        "f_half": f_half,
        "abstained": tp + fp,
        "wrong_abstains": fp,
    }


def best_threshold(rows: list[dict[str, float]]) -> dict[str, Any]:
    """The highest F0.5, accuracy breaking ties; the middle of the run of equally good thresholds."""
    top = max((r["f_half"], r["accuracy"]) for r in rows)
    tied = [r for r in rows if (r["f_half"], r["accuracy"]) == top]
    middle = tied[len(tied) // 2]
    return {
        "threshold": middle["threshold"],
        "f_half": top[0],
        "accuracy": top[1],
        "wrong_abstains": middle["wrong_abstains"],
        "equally_good": [r["threshold"] for r in tied],
    }


def distribution(values: list[float]) -> dict[str, float]:
    ordered = sorted(values)
    return {
        "min": ordered[0],
        "p10": ordered[len(ordered) // 10],
        "median": statistics.median(ordered),
        "p90": ordered[(len(ordered) * 9) // 10],
        "max": ordered[-1],
    }


def calibrate(client: TestClient, admin_key: str, facts: list[str]) -> list[Asked]:
    """The facts written into a fresh memory, every labelled question asked of it, the memory deleted."""
    with MemoryClient(http=client, key=admin_key) as operator:
        member = operator.create_member("agent", "bench")
        key = operator.issue_key(member.id)
    with MemoryClient(http=client, key=key.key) as memory:
        memory_id = memory.create_memory("abstain-calibration").id
        try:
            for fact in facts:
                memory.remember(memory_id, fact, type="fact")
            return ask_all(memory, memory_id, facts)
        finally:
            memory.delete_memory(memory_id)


def run(target: Neo4jTarget, model: str = MODEL) -> dict[str, Any]:
    embedder = onnx_embedder(model)
    embedder.load()
    admin_key = "adm_" + secrets.token_urlsafe(24)
    settings = bench_settings(target, admin_key, embedding_model=model)
    facts = list(abstain_set.FACTS)
    try:
        with TestClient(create_app(settings, embedder=embedder)) as client:
            asked = calibrate(client, admin_key, facts)
    except UhpError as refused:
        raise SystemExit(f"bench: {refused}") from refused
    score(asked, embedder)
    rows = [metrics(asked, t) for t in THRESHOLDS]
    current = abstain_threshold(settings)
    answerable = [a for a in asked if a.answerable]
    return {
        "model": model,
        "facts": len(facts),
        "questions": {
            "answerable": len(answerable),
            "in_domain_unanswerable": len(abstain_set.UNANSWERABLE_IN_DOMAIN),
            "out_of_domain_unanswerable": len(abstain_set.UNANSWERABLE_OUT_OF_DOMAIN),
        },
        "top1_correct_when_answerable": sum(1 for a in answerable if a.top == a.expected) / len(answerable),
        "best_cosine": {
            kind: distribution([a.best for a in asked if a.kind == kind])
            for kind in ("answerable", "in_domain", "out_of_domain")
        },
        "thresholds": rows,
        "best": best_threshold(rows),
        "current_setting": {
            "abstain_below": current,
            **metrics(asked, current),
            "service_agrees": all(a.service_abstain == (a.best < current) for a in asked),
        },
        "asked": [a.__dict__ for a in asked],
    }


def table(result: dict[str, Any]) -> str:
    q = result["questions"]
    lines = [
        f"{result['facts']} facts; {q['answerable']} answerable, {q['in_domain_unanswerable']} in-domain and "
        f"{q['out_of_domain_unanswerable']} out-of-domain unanswerable questions; "
        f"top-1 right when answerable: {result['top1_correct_when_answerable']:.2f}",
        "best cosine  "
        + "  ".join(
            f"{kind}: {d['min']:.2f}..{d['median']:.2f}..{d['max']:.2f}"
            for kind, d in result["best_cosine"].items()
        ),
        f"{'threshold':>9} {'accuracy':>8} {'precision':>9} {'recall':>6} {'f1':>5} {'f0.5':>5} "
        f"{'abstained':>9} {'wrong':>5}",
    ]
    for row in result["thresholds"]:
        lines.append(
            f"{row['threshold']:>9.3f} {row['accuracy']:>8.3f} {row['precision']:>9.3f} "
            f"{row['recall']:>6.3f} {row['f1']:>5.3f} {row['f_half']:>5.3f} {row['abstained']:>9} "
            f"{row['wrong_abstains']:>5}"
        )
    best, current = result["best"], result["current_setting"]
    lines.append(
        f"best threshold {best['threshold']:.3f} (F0.5 {best['f_half']:.3f}, "
        f"accuracy {best['accuracy']:.3f}, "
        f"{best['wrong_abstains']} answerable questions abstained; "
        f"equally good: {best['equally_good']}); current {current['abstain_below']} gives accuracy "
        f"{current['accuracy']:.3f}; the service's abstain matches best < setting: "
        f"{current['service_agrees']}"
    )
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--model", choices=sorted(MODELS), default=MODEL, help="the embedding model")
    parser.add_argument("--out", default=str(OUT))
    args = parser.parse_args()
    result = on_neo4j(lambda target: run(target, args.model))
    report(result, table, args.out)


if __name__ == "__main__":
    main()
