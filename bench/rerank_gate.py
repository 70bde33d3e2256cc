"""How many candidates the cross-encoder must read: each policy's quality and pairs, from one set of scores.

Run from the repository root:
`python -m bench.rerank_gate --locomo ../shared/data/locomo/locomo-dev.json`. Neo4j as for
bench.quality. Every turn of the split is remembered through the API as bench.quality does; then each
answerable question is asked once by `query` alone with the cross-encoder off and `limit` 20, which
gives the fused order of the first 20 candidates (the service reads 40 per signal at that limit, not
20, so a few lists differ from a default recall's in their lower places). The cross-encoder then
scores every one of the 20 pairs alone, as the service runs them, so a score never depends on the
pairs beside it. From those scores each policy is played out without asking again:

- `first N`: the first N candidates put in the cross-encoder's order, the rest below in fused order;
- `cascade A/T`: the first A read; when the best of them scores at least T (a logit), the rest keep
  their fused order; otherwise the first 20 are read, as by default.

For each: turn and session hits at 1, 5 and 10 (bench.quality's measures), and the pairs read per
question on average. The date lift and the later-record rule that a recall applies after the
cross-encoder are left out, so the figures sit a little apart from bench.quality's; the chosen policy
is then measured there. Prints a table and writes bench/results/rerank_gate.json.
"""

from __future__ import annotations

import argparse
import secrets
import statistics
import sys
import time
from pathlib import Path
from typing import Any

from fastapi.testclient import TestClient

from bench import quality_data
from bench.corpus import MODEL, RESULTS
from bench.quality import Session
from bench.report import aligned, on_neo4j, report
from bench.service import bench_settings
from provider.api.app import create_app
from provider.composition import cross_encoder
from provider.embeddings import onnx_embedder
from provider.store.catalogue import statement
from tests.neo4j_target import Neo4jTarget

OUT = RESULTS / "rerank_gate.json"
HEAD = 20
FIRSTS = (5, 8, 10, 12, 15, 20)
CASCADES = ((5, 2.0), (5, 4.0), (5, 6.0), (8, 2.0), (8, 4.0), (8, 6.0), (10, 2.0), (10, 4.0), (10, 6.0))
KS = (1, 5, 10)


def played(fused: list[str], scores: list[float], read: int) -> list[str]:
    """The order a recall gives when the cross-encoder reads the first `read` candidates."""
    head = sorted(range(read), key=lambda i: (-scores[i], i))
    return [fused[i] for i in head] + fused[read:]


def policies() -> dict[str, Any]:
    out: dict[str, Any] = {f"first {n}": ("first", n, 0.0) for n in FIRSTS}
    out |= {f"cascade {a}/{t:g}": ("cascade", a, t) for a, t in CASCADES}
    return out


def run(target: Neo4jTarget, options: argparse.Namespace) -> dict[str, Any]:
    embedder = onnx_embedder(MODEL)
    embedder.load()
    admin_key = "adm_" + secrets.token_urlsafe(24)
    settings = bench_settings(target, admin_key, recall_rerank=False)
    encoder = cross_encoder(settings)
    encoder.load()
    conversations = quality_data.locomo(options.locomo)[: options.conversations]
    asked: list[dict[str, Any]] = []
    with TestClient(create_app(settings, embedder=embedder)) as client:
        session = Session(client, target, embedder, admin_key)
        made = []
        try:
            for conversation in conversations:
                memory_id, _, _ = session.remember(conversation)
                made.append(memory_id)
                print(f"bench.rerank_gate: remembered {conversation.name}", file=sys.stderr, flush=True)
                for question in conversation.questions:
                    if not question.answerable:
                        continue
                    answer = session.memory.recall(memory_id, query=question.text, limit=HEAD, rerank=False)
                    results = answer.wire()["results"]
                    ids = [r["record"]["id"] for r in results]
                    attributes = [r["record"]["attributes"] for r in results]
                    texts = {
                        row["id"]: row["words"]
                        for row in session.driver.execute_query(
                            statement("recall_rerank_texts"),
                            ids=ids,
                            chars=settings.recall.rerank_max_tokens * 8,
                            now=int(time.time() * 1000),
                        ).records
                    }
                    began = time.perf_counter()
                    scores = encoder.score_sync(question.text, [texts[i] for i in ids])
                    asked.append(
                        {
                            "fused": ids,
                            "scores": scores,
                            "seconds": time.perf_counter() - began,
                            "turns": {
                                i: f"{a.get('session')}:{a.get('dia_id')}"
                                for i, a in zip(ids, attributes, strict=True)
                            },
                            "gold_turns": sorted(question.turns),
                            "gold_sessions": sorted(question.sessions),
                        }
                    )
                print(f"bench.rerank_gate: asked {conversation.name}", file=sys.stderr, flush=True)
        finally:
            for memory_id in made:
                session.memory.delete_memory(memory_id)
            session.driver.close()
            encoder.close()
    return {"questions": len(asked), "policies": play(asked), "pair_ms": pair_ms(asked)}


def pair_ms(asked: list[dict[str, Any]]) -> float:
    """One pair's time, run alone on one thread: the median over the questions."""
    return float(statistics.median(1000 * a["seconds"] / max(1, len(a["scores"])) for a in asked))


def play(asked: list[dict[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for name, (kind, size, sure) in policies().items():
        rows, pairs = [], []
        for a in asked:
            fused, scores = a["fused"], a["scores"]
            read = min(size, len(fused))
            if kind == "cascade" and max(scores[:read], default=sure) < sure:
                read = len(fused)
            pairs.append(read)
            turns = {i: t.split(":", 1)[1] for i, t in a["turns"].items()}
            sessions = {i: t.split(":", 1)[0] for i, t in a["turns"].items()}
            order = played(fused, scores, read)
            row = {}
            for k in KS:
                row[f"turn@{k}"] = float(any(turns[r] in a["gold_turns"] for r in order[:k]))
                row[f"session@{k}"] = float(any(sessions[r] in a["gold_sessions"] for r in order[:k]))
            rows.append(row)
        out[name] = {key: statistics.mean(r[key] for r in rows) for key in rows[0]} | {
            "pairs": statistics.mean(pairs)
        }
    return out


def table(result: dict[str, Any]) -> str:
    head = ["policy", *[f"turn@{k}" for k in KS], *[f"session@{k}" for k in KS], "pairs / question"]
    rows = [head]
    for name, figures in result["policies"].items():
        rows.append(
            [
                name,
                *[f"{figures[f'turn@{k}']:.3f}" for k in KS],
                *[f"{figures[f'session@{k}']:.3f}" for k in KS],
                f"{figures['pairs']:.1f}",
            ]
        )
    lines = [
        f"bench.rerank_gate: {result['questions']} answerable questions, `query` alone; one pair "
        f"{result['pair_ms']:.1f} ms alone on one thread (median)",
        *aligned(rows),
    ]
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument(
        "--locomo", type=Path, required=True, help="LoCoMo JSON (locomo10.json or a split of it)"
    )
    parser.add_argument("--conversations", type=int, default=None, help="only the first N")
    parser.add_argument("--out", default=str(OUT))
    options = parser.parse_args()
    report(on_neo4j(lambda target: run(target, options)), table, options.out)


if __name__ == "__main__":
    main()
