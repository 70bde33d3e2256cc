"""Fair share: a quiet member's recall while a busy member floods the service, one flood at a time.

Run from the repository root: `python -m bench.fairness [--seconds 10] [--connections 16]`.
Neo4j from NEO4J_URI, else provisioned like the tests; a query sandbox of its own (devtools). The
service runs as `python -m provider serve` in a process of its own, with its default budgets and
queues, as an operator runs it. Two members each get a memory of `--records` records. Then:

- **quiet**: the quiet member asks its memory a question every `--interval` seconds, alone;
- one flood at a time, each for `--seconds` after a second's head start: the busy member sends, on
  `--connections` connections from a process of its own and as fast as answers come back, remembers,
  recalls, free Cypher, or observes (3 episodes each) on its own memory; or runs `python -m provider
  import` of `--import-records` records into its memory (a process beside the service, as an operator
  runs it) - while the quiet member asks as before;
- **quiet again** at the end, so drift shows.

The quiet member's p50, p95 and p99 and its errors are printed beside its quiet figures (the ratio is
p95 over the quiet p95, the target at most 2x), with what the busy member was told: answers per second
by status. The service runs at its defaults but for the cross-encoder's cache of scores, which is off
(the quiet member asks the same questions in every phase). Writes bench/results/fairness.json.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import multiprocessing
import os
import secrets
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

import httpx

from bench.corpus import items, questions
from bench.report import aligned, on_neo4j, report
from tests import sandboxes
from tests.neo4j_target import Neo4jTarget

RESULTS = Path(__file__).parent / "results" / "fairness.json"
FLOODS = ("remember", "recall", "cypher", "observe", "bulk_import")


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def serve(target: Neo4jTarget, sandbox: Any, admin_key: str, port: int) -> subprocess.Popen[bytes]:
    env = {
        **os.environ,
        "UHP_ENVIRONMENT": "test",
        "UHP_ADMIN_KEY": admin_key,
        "NEO4J_URI": target.uri,
        "NEO4J_USER": target.user,
        "NEO4J_PASSWORD": target.password,
        "UHP_QUERY_SANDBOX_URL": sandbox.url,
        "UHP_QUERY_SANDBOX_TOKEN": sandbox.token,
        "UHP_FILE_DIR": tempfile.mkdtemp(prefix="uhp-fairness-files-"),
        "UHP_LOG_LEVEL": "WARNING",
        # The quiet member asks the same 64 questions in every phase: with the cross-encoder's cache
        # of scores on, a later phase would find them scored and look cheaper than it is.
        "UHP_RECALL_RERANK_CACHE_PAIRS": "0",
    }
    service = subprocess.Popen([sys.executable, "-m", "provider", "serve", "--port", str(port)], env=env)
    deadline = time.monotonic() + 180
    while time.monotonic() < deadline:
        try:
            if httpx.get(f"http://127.0.0.1:{port}/readyz", timeout=2).status_code == 200:
                return service
        except httpx.TransportError:
            pass
        assert service.poll() is None, "the service stopped while starting"
        time.sleep(0.5)
    raise RuntimeError("the service did not become ready in 180 s")


def member(url: str, admin_key: str, name: str) -> dict[str, str]:
    admin = {"Authorization": f"Bearer {admin_key}"}
    made = httpx.post(f"{url}/v1/admin/members", json={"type": "agent", "name": name}, headers=admin).json()
    key = httpx.post(f"{url}/v1/admin/members/{made['id']}/keys", json={}, headers=admin).json()
    headers = {"Authorization": f"Bearer {key['key']}"}
    memory = httpx.post(f"{url}/v1/memories", json={"name": name}, headers=headers).json()["id"]
    return {"id": made["id"], "key": key["key"], "memory": memory}


def fill(url: str, who: dict[str, str], count: int, seed: int) -> None:
    headers = {"Authorization": f"Bearer {who['key']}"}
    with httpx.Client(base_url=url, headers=headers, timeout=60) as client:
        for item in items(count, seed=seed):
            body = {"type": item.type, "content": item.text, "attributes": item.attributes}
            for _ in range(50):  # the service's own write budget applies to the bench as to anyone
                answer = client.post(f"/v1/memories/{who['memory']}/records", json=body)
                if answer.status_code != 429:
                    break
                time.sleep(float(answer.headers.get("Retry-After", "1")))
            answer.raise_for_status()


def flood_request(kind: str, memory: str, n: int) -> tuple[str, str, dict[str, Any]]:
    if kind == "remember":
        return "POST", f"/v1/memories/{memory}/records", {"content": f"busy fact number {n} about Acme"}
    if kind == "recall":
        return "POST", f"/v1/memories/{memory}/recall", {"query": f"what happened to account {n % 50}?"}
    if kind == "cypher":
        statement = "MATCH (r:Record) RETURN r.id AS id, r.type AS type LIMIT 25"
        return "POST", f"/v1/memories/{memory}/query", {"statement": statement}
    episodes = [{"content": f"turn {n}.{i}: the customer asked about renewal {i}"} for i in range(3)]
    return "POST", f"/v1/memories/{memory}/observe", {"episodes": episodes}


def flood(url: str, key: str, memory: str, kind: str, connections: int, seconds: float, out: Any) -> None:
    """The busy member: `connections` loops sending as fast as answers come back, for `seconds`."""

    async def run() -> dict[str, int]:
        seen: Counter[str] = Counter()
        end = time.monotonic() + seconds
        limits = httpx.Limits(max_connections=connections, max_keepalive_connections=connections)
        headers = {"Authorization": f"Bearer {key}"}
        async with httpx.AsyncClient(base_url=url, headers=headers, limits=limits, timeout=60) as client:

            async def loop(worker: int) -> None:
                n = worker * 1_000_000
                while time.monotonic() < end:
                    method, path, body = flood_request(kind, memory, n)
                    n += 1
                    try:
                        seen[str((await client.request(method, path, json=body)).status_code)] += 1
                    except httpx.TransportError as e:
                        seen[type(e).__name__] += 1

            await asyncio.gather(*(loop(i) for i in range(connections)))
        return dict(seen)

    out.put(asyncio.run(run()))


def warm(url: str, busy: dict[str, str], kind: str) -> None:
    """Two requests of the flood's kind first: a cold start (the sandbox's first copy) is not a flood."""
    for n in range(2):
        method, path, body = flood_request(kind, busy["memory"], n)
        httpx.request(
            method, url + path, json=body, headers={"Authorization": f"Bearer {busy['key']}"}, timeout=120
        )


def bulk_import(
    target: Neo4jTarget, busy: dict[str, str], records: int, seconds: float
) -> subprocess.Popen[bytes]:
    lines = Path(tempfile.mkdtemp(prefix="uhp-fairness-import-")) / "records.jsonl"
    with lines.open("w") as out:
        for item in items(records, seed=23):
            out.write(
                json.dumps({"type": item.type, "content": item.text, "attributes": item.attributes}) + "\n"
            )
    env = {
        **os.environ,
        "UHP_ENVIRONMENT": "test",
        "NEO4J_URI": target.uri,
        "NEO4J_USER": target.user,
        "NEO4J_PASSWORD": target.password,
    }
    command = [sys.executable, "-m", "provider", "import", str(lines), "--memory", busy["memory"]]
    return subprocess.Popen([*command, "--as", f"member:{busy['id']}"], env=env, stdout=subprocess.DEVNULL)


def quiet(url: str, who: dict[str, str], seconds: float, interval: float) -> dict[str, Any]:
    """The quiet member's questions, one every `interval`, for `seconds`."""
    asked = [q for q, _ in questions(64, seed=5)]
    latencies: list[float] = []
    errors: Counter[str] = Counter()
    headers = {"Authorization": f"Bearer {who['key']}"}
    with httpx.Client(base_url=url, headers=headers, timeout=60) as client:
        end, n = time.monotonic() + seconds, 0
        while time.monotonic() < end:
            began = time.perf_counter()
            answer = client.post(
                f"/v1/memories/{who['memory']}/recall", json={"query": asked[n % len(asked)]}
            )
            latencies.append(time.perf_counter() - began)
            if answer.status_code != 200:
                errors[str(answer.status_code)] += 1
            n += 1
            time.sleep(max(0.0, interval - (time.perf_counter() - began)))
    ordered = sorted(latencies)

    def pct(p: float) -> float:
        return ordered[min(len(ordered) - 1, int(p * len(ordered)))] * 1000

    return {
        "calls": len(latencies),
        "p50_ms": statistics.median(ordered) * 1000,
        "p95_ms": pct(0.95),
        "p99_ms": pct(0.99),
        "errors": dict(errors),
    }


def measure(target: Neo4jTarget, args: argparse.Namespace) -> dict[str, Any]:
    admin_key = "adm_" + secrets.token_urlsafe(24)
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    with sandboxes.start() as sandbox:
        service = serve(target, sandbox, admin_key, port)
        try:
            return rounds(target, url, admin_key, args)
        finally:
            service.send_signal(signal.SIGTERM)
            service.wait(60)


def rounds(target: Neo4jTarget, url: str, admin_key: str, args: argparse.Namespace) -> dict[str, Any]:
    calm, busy = member(url, admin_key, "quiet"), member(url, admin_key, "busy")
    print(f"fairness: {args.records} records each ...", file=sys.stderr, flush=True)
    fill(url, calm, args.records, seed=3)
    fill(url, busy, args.records, seed=4)
    quiet(url, calm, 3, args.interval)  # warm: the model, the cache, the connections
    results: dict[str, Any] = {"quiet": quiet(url, calm, args.seconds, args.interval)}
    print(f"quiet: {json.dumps(results['quiet'])}", file=sys.stderr, flush=True)
    context = multiprocessing.get_context("spawn")
    for kind in args.floods:
        began = time.monotonic()
        if kind == "bulk_import":
            importer = bulk_import(target, busy, args.import_records, args.seconds)
            time.sleep(args.head_start + 4)  # the importer's own start: its model and driver
            heard = quiet(url, calm, args.seconds, args.interval)
            running = importer.poll() is None
            if importer.wait() != 0:
                raise RuntimeError(f"the import flood failed (exit {importer.returncode}); see above")
            results[kind] = {
                **heard,
                "busy": {"import finished": not running, "seconds": time.monotonic() - began},
            }
        else:
            warm(url, busy, kind)
            answers = context.Queue()
            duration = args.seconds + args.head_start
            worker = context.Process(
                target=flood,
                args=(url, busy["key"], busy["memory"], kind, args.connections, duration, answers),
            )
            worker.start()
            time.sleep(args.head_start)
            heard = quiet(url, calm, args.seconds, args.interval)
            seen = answers.get(timeout=120)
            worker.join(30)
            rate = {status: count / duration for status, count in seen.items()}
            results[kind] = {**heard, "busy": {f"{s}/s": round(r, 1) for s, r in sorted(rate.items())}}
        print(f"{kind}: {json.dumps(results[kind])}", file=sys.stderr, flush=True)
        time.sleep(2)  # what the flood left (observe jobs, index updates) settles
    results["quiet again"] = quiet(url, calm, args.seconds, args.interval)
    return results


def table(result: dict[str, Any]) -> str:
    base = result["rounds"]["quiet"]["p95_ms"]
    rows = [
        ["quiet member's recall", "p50 ms", "p95 ms", "p99 ms", "p95 / quiet", "errors", "busy member told"]
    ]
    for name, row in result["rounds"].items():
        busy = ", ".join(f"{k} {v}" for k, v in row.get("busy", {}).items())
        rows.append([
            name if name.startswith("quiet") else f"under {name} flood",
            f"{row['p50_ms']:.1f}",
            f"{row['p95_ms']:.1f}",
            f"{row['p99_ms']:.1f}",
            f"{row['p95_ms'] / base:.2f}x",
            str(sum(row["errors"].values())),
            busy,
        ])  # fmt: skip
    return "\n".join(aligned(rows))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--connections", type=int, default=16)
    parser.add_argument("--interval", type=float, default=0.05)
    parser.add_argument("--records", type=int, default=200)
    parser.add_argument("--import-records", type=int, default=10_000)
    parser.add_argument("--head-start", type=float, default=1.0)
    parser.add_argument("--floods", nargs="+", default=list(FLOODS), choices=FLOODS)
    args = parser.parse_args()
    rounds_measured = on_neo4j(lambda target: measure(target, args))
    result = {"connections": args.connections, "seconds": args.seconds, "rounds": rounds_measured}
    report(result, table, RESULTS)


if __name__ == "__main__":
    main()
