"""A model move (`reembed --to`) while an agent keeps asking: how long it takes, and what readers see.

Run from the repository root: `python -m bench.model_move [--records 2000] [--questions 20]`.
The move rewrites the database's record of its model, so the bench always starts a Neo4j of its own
in a temporary folder (never NEO4J_URI's) and stops it at the end. A member observes --records
generated facts into one memory with all-MiniLM-L6-v2. The bench asks --questions questions (each
twice, so the vector cache holds the memory) for the floor row, then starts
`python -m provider reembed --to bge-small-en-v1.5` as its own process and asks the same questions
in a loop until it ends: each answer before the command says it switched must equal the answer
given before the move, record for record and score for score. Then the same questions once more.

Prints a table (median and p95 of a recall before, during and after; the move's time and rate) and
writes bench/results/model_move.json.
"""

from __future__ import annotations

import argparse
import os
import secrets
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

from fastapi.testclient import TestClient

from bench import corpus
from bench.quality import summary
from bench.report import aligned, report
from bench.service import bench_settings
from devtools import neo4j_server
from provider.api.app import create_app
from provider.client import MemoryClient
from provider.embeddings import onnx_embedder
from tests.neo4j_target import Neo4jTarget

RESULTS = Path(__file__).resolve().parent / "results" / "model_move.json"
REPO_ROOT = Path(__file__).resolve().parents[1]
TARGET_MODEL = "bge-small-en-v1.5"
OBSERVE_BATCH = 100
SWITCHED = "recall now reads"


def asked(
    memory: MemoryClient, memory_id: str, question: str
) -> tuple[float, list[tuple[str, float | None]]]:
    began = time.perf_counter()
    answer = memory.recall(memory_id, query=question, limit=10)
    took = (time.perf_counter() - began) * 1000
    return took, [(r.record.id, r.score) for r in answer.results]


def agree(ranked: list[tuple[str, float | None]], then: list[tuple[str, float | None]]) -> bool:
    """The same records in the same order, scores equal but for float noise.

    The cache scores in float32 and the Cypher scan in float64, and a move's writes send some
    questions to the scan.
    """
    return [i for i, _ in ranked] == [i for i, _ in then] and all(
        abs((a or 0.0) - (b or 0.0)) < 1e-4 for (_, a), (_, b) in zip(ranked, then, strict=True)
    )


class Stderr:
    """Collects a process's stderr in a thread, noting when a line first appeared."""

    def __init__(self, process: subprocess.Popen[str]):
        self.text = ""
        self.switched_at: float | None = None
        self.thread = threading.Thread(target=self._read, args=(process,), daemon=True)
        self.thread.start()

    def _read(self, process: subprocess.Popen[str]) -> None:
        assert process.stderr is not None
        while chunk := process.stderr.read(1):
            self.text += chunk
            if self.switched_at is None and SWITCHED in self.text:
                self.switched_at = time.monotonic()


def move(target: Neo4jTarget, settings_env: dict[str, str]) -> subprocess.Popen[str]:
    environment = {
        **os.environ,
        "NEO4J_URI": target.uri,
        "NEO4J_USER": target.user,
        "NEO4J_PASSWORD": target.password,
        **settings_env,
    }
    return subprocess.Popen(
        [sys.executable, "-m", "provider", "reembed", "--to", TARGET_MODEL],
        env=environment,
        cwd=REPO_ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def measure(target: Neo4jTarget, records: int, count: int) -> dict[str, Any]:
    embedder = onnx_embedder(corpus.MODEL)
    embedder.load()
    admin_key = "adm_" + secrets.token_urlsafe(24)
    settings = bench_settings(target, admin_key, vector_state_seconds=2.0)
    questions = [text for text, _ in corpus.questions(count)]
    result: dict[str, Any] = {"records": records, "questions": count, "model": TARGET_MODEL}
    with TestClient(create_app(settings, embedder=embedder)) as client:
        with MemoryClient(http=client, key=admin_key) as operator:
            member = operator.create_member("agent", "bench")
            key = operator.issue_key(member.id).key
        memory = MemoryClient(http=client, key=key, idempotency=False)
        memory_id = memory.create_memory("bench-model-move").id
        texts = [item.text for item in corpus.items(records)]
        for start in range(0, len(texts), OBSERVE_BATCH):
            memory.observe(memory_id, [{"content": t} for t in texts[start : start + OBSERVE_BATCH]])
        for _ in range(2):  # the vector cache loads at the second question at a version
            for question in questions:
                asked(memory, memory_id, question)
        before = {q: asked(memory, memory_id, q) for q in questions}
        result["before"] = summary([took for took, _ in before.values()])
        began = time.monotonic()
        process = move(
            target,
            {
                "UHP_ENVIRONMENT": "test",
                "UHP_ADMIN_KEY": admin_key,
                "UHP_FILE_DIR": str(settings.file.dir),
                "UHP_MODEL_MOVE_SETTLE_SECONDS": "10",
            },
        )
        stderr = Stderr(process)
        during: list[float] = []
        same = differed = 0
        while process.poll() is None:
            for question in questions:
                at = time.monotonic()
                took, ranked = asked(memory, memory_id, question)
                during.append(took)
                if stderr.switched_at is None or at < stderr.switched_at:
                    alike = agree(ranked, before[question][1])
                    same, differed = (same + 1, differed) if alike else (same, differed + 1)
        stderr.thread.join(timeout=10)
        seconds = time.monotonic() - began
        if process.returncode != 0:
            raise RuntimeError(f"the move failed:\n{stderr.text}")
        switch = (stderr.switched_at or time.monotonic()) - began
        time.sleep(settings.vector_state_seconds + 0.5)  # the app reads the slots again
        for question in questions:
            asked(memory, memory_id, question)
        after = [asked(memory, memory_id, q)[0] for q in questions]
        result.update(
            during=summary(during),
            after=summary(after),
            move_seconds=round(seconds, 1),
            switched_after_seconds=round(switch, 1),
            records_per_second=round(records / switch, 1),
            answers_before_switch={"same": same, "different": differed},
            log=stderr.text.splitlines()[-6:],
        )
    return result


def table(result: dict[str, Any]) -> str:
    floor = result["before"]
    rows = [["recall (query, k = 10), ms", "p50", "p95", "x before p50"]]
    for name in ("before", "during", "after"):
        row = result[name]
        rows.append(
            [name, f"{row['p50_ms']:.1f}", f"{row['p95_ms']:.1f}", f"{row['p50_ms'] / floor['p50_ms']:.2f}x"]
        )
    same = result["answers_before_switch"]
    head = (
        f"{result['records']} records moved to {result['model']}: switched after "
        f"{result['switched_after_seconds']} s ({result['records_per_second']} records/s), done after "
        f"{result['move_seconds']} s; answers before the switch equal to before the move: "
        f"{same['same']} of {same['same'] + same['different']}"
    )
    return "\n".join([head, *aligned(rows)])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--records", type=int, default=2000)
    parser.add_argument("--questions", type=int, default=20)
    parser.add_argument("--out", default=str(RESULTS))
    args = parser.parse_args()
    home = Path(tempfile.mkdtemp(prefix="uhp-bench-model-move-"))
    server = neo4j_server.start(home, heap="1g", pagecache="256m")
    target = Neo4jTarget(
        server.uri, server.user, server.password, neo4j_server.NEO4J_VERSION, "local", home=home
    )
    try:
        result = measure(target, args.records, args.questions)
    finally:
        neo4j_server.stop(home, timeout=30)
    report(result, table, args.out)


if __name__ == "__main__":
    main()
