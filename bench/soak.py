"""Soak: many clients for minutes against a served app over real HTTP; latency, errors and memory.

Run from the repository root: `python -m bench.soak --clients 50 --minutes 10` (`--minutes 1` for a
quick run). Without `--url` it starts `python -m provider serve` (tests/faults/service.py) on the
Neo4j tests/neo4j_target.py provisions (NEO4J_URI, else a local server of its own); with `--url`
(and `--admin-key`, and `--pid` for its memory) it uses a service already running.

Setup (not timed): 10 agents, each with a memory seeded with 40 records; the clients are spread over
them, five to a memory. Then every client, until the time is up, picks an operation at random with a
realistic weight: remember 35%, recall 35% (meaning, words or both), revise 12%, forget 5%, observe
13% (one two-turn episode); writes carry an Idempotency-Key, as a harness sends them. Beside it, in
the same run and before the load, the floor: one embedding alone and one indexed record write alone
(bench/corpus.py writes the service's own node shape, so Neo4j updates the same indexes), and one
raw vector index query; the ratio of each operation's median to its floor is printed.

Prints a table (per operation: calls, p50, p95, errors by status), the service's resident memory
(VmRSS from /proc/<pid>/status) at the start and the end, and writes bench/results/soak.json.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import platform
import random
import secrets
import tempfile
import time
import uuid
from collections import Counter
from collections.abc import Awaitable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

import httpx
from neo4j import AsyncGraphDatabase
from pydantic import SecretStr

from bench import corpus
from bench.embeddings import percentile
from bench.neo4j_roundtrip import rss_mb
from bench.observe import ASSISTANT, USER
from bench.recall import RAW_INDEX, bodies
from bench.report import report
from provider.client import AsyncMemoryClient, UhpError
from provider.config import Settings
from provider.embeddings import configured_embedder
from provider.models import Writer
from tests.faults.service import Neo4jAccess, ServiceProcess
from tests.neo4j_target import Neo4jTarget, provision

RESULTS = corpus.RESULTS / "soak.json"
AGENTS = 10
SEEDED = 40
WEIGHTS = {"remember": 35, "recall": 35, "revise": 12, "forget": 5, "observe": 13}
RECALL_MODES = {"query": 5, "fused": 3, "text": 2}
FLOOR_CALLS = 40
RSS_EVERY_S = 30.0
T = TypeVar("T")


@dataclass
class Tally:
    """Latencies of the answered calls (ms) and the errors, by operation."""

    timings: dict[str, list[float]] = field(default_factory=lambda: {op: [] for op in WEIGHTS})
    errors: dict[str, Counter[str]] = field(default_factory=lambda: {op: Counter() for op in WEIGHTS})

    def summary(self, wall_s: float) -> dict[str, dict[str, Any]]:
        rows = {}
        for op in WEIGHTS:
            done = self.timings[op]
            rows[op] = {
                "ok": len(done),
                "p50_ms": percentile(done, 0.50) if done else None,
                "p95_ms": percentile(done, 0.95) if done else None,
                "per_s": len(done) / wall_s,
                "errors": dict(self.errors[op]),
            }
        return rows


@dataclass
class Agent:
    """One member and its memory, with the records seeded there."""

    memory: AsyncMemoryClient
    memory_id: str
    records: list[str] = field(default_factory=list)


@dataclass
class Client:
    """One client: the agent it acts for and the records it may revise or forget (its own share)."""

    agent: Agent
    records: list[str]


class Workload:
    """What the clients send: corpus sentences, corpus questions, two-turn episodes."""

    def __init__(self, seed: int):
        self.rng = random.Random(seed)
        self.items = corpus.items(5000, seed)
        self.recalls = {mode: bodies(mode, 500, seed + 1) for mode in RECALL_MODES}

    def pick(self, choices: dict[str, int]) -> str:
        return self.rng.choices(list(choices), weights=list(choices.values()))[0]

    def record(self) -> dict[str, Any]:
        """A fact, note or procedure (episodes come through observe, and are never revised)."""
        item = self.rng.choice(self.items)
        kind = "note" if item.type == "episode" else item.type
        return {"content": item.text, "about": {"type": kind, "attributes": item.attributes}}

    def recall(self) -> dict[str, Any]:
        return self.rng.choice(self.recalls[self.pick(RECALL_MODES)])

    def episode(self) -> list[dict[str, Any]]:
        names = {"a": self.rng.choice(corpus.PEOPLE), "b": self.rng.choice(corpus.COMPANIES)}
        names["c"] = self.rng.choice(corpus.PLACES)
        turns = [("user", self.rng.choice(USER)), ("assistant", self.rng.choice(ASSISTANT))]
        content = [{"type": "text", "text": text.format(**names), "role": role} for role, text in turns]
        return [{"content": content, "attributes": {"channel": "chat"}}]


class Soak:
    """The clients, their shared HTTP connection pool, and the tally."""

    def __init__(self, client: httpx.AsyncClient, agents: list[Agent], seed: int):
        self.client, self.agents = client, agents
        self.work = Workload(seed)
        self.tally = Tally()

    async def call(self, op: str, request: Awaitable[T]) -> T | None:
        """One timed request; a refusal or a lost answer is tallied by its status or its kind.

        Through the typed client with no retry: one request per operation, as a raw one would be
        (writes carry an Idempotency-Key, as before); its answer is read into its model in the time.
        """
        began = time.perf_counter()
        try:
            answer = await request
        except UhpError as refused:
            self.tally.errors[op][str(refused.status)] += 1
            return None
        except httpx.TransportError as e:
            self.tally.errors[op][type(e).__name__] += 1
            return None
        self.tally.timings[op].append((time.perf_counter() - began) * 1000)
        return answer

    async def one(self, client: Client) -> None:
        """One operation, chosen by weight; revise and forget take a record this client holds."""
        op, agent = self.work.pick(WEIGHTS), client.agent
        memory, memory_id = agent.memory, agent.memory_id
        if op in ("revise", "forget") and not client.records:
            op = "remember"
        if op == "remember":
            record = self.work.record()
            made = await self.call(op, memory.remember(memory_id, record["content"], **record["about"]))
            if made:
                client.records.append(made.id)
        elif op == "recall":
            await self.call(op, memory.recall(memory_id, **self.work.recall()))
        elif op == "revise":
            record_id = self.work.rng.choice(client.records)
            await self.call(op, memory.revise(memory_id, record_id, content=self.work.record()["content"]))
        elif op == "forget":
            record_id = client.records.pop(self.work.rng.randrange(len(client.records)))
            await self.call(op, memory.forget(memory_id, record_id))
        else:
            await self.call(op, memory.observe(memory_id, self.work.episode()))

    async def client_loop(self, index: int, clients: int, until: float) -> None:
        """Client `index` of `clients`: its agent's seeded records are shared out, none held by two."""
        agent = self.agents[index % len(self.agents)]
        share = index // len(self.agents)
        per_agent = -(-clients // len(self.agents))
        client = Client(agent, agent.records[share::per_agent])
        while time.monotonic() < until:
            await self.one(client)


async def setup(client: httpx.AsyncClient, admin_key: str, work: Workload) -> list[Agent]:
    """AGENTS members, a memory each, SEEDED records in each (not timed)."""
    operator = AsyncMemoryClient(http=client, key=admin_key)
    agents = []
    for i in range(AGENTS):
        member = await operator.create_member("agent", f"soak {i}")
        key = await operator.issue_key(member.id)
        memory = AsyncMemoryClient(http=client, key=key.key, retries=0)
        made = await memory.create_memory(f"soak-{secrets.token_hex(4)}")
        agents.append(Agent(memory=memory, memory_id=made.id))

    async def seed(agent: Agent) -> None:
        for _ in range(SEEDED):
            record = work.record()
            made = await agent.memory.remember(agent.memory_id, record["content"], **record["about"])
            agent.records.append(made.id)

    await asyncio.gather(*(seed(a) for a in agents))
    return agents


async def floor(target: Neo4jAccess, embedder_settings: Settings) -> dict[str, dict[str, float]]:
    """One embedding, one indexed record write and one raw vector query, each alone, FLOOR_CALLS times."""
    embedder = configured_embedder(embedder_settings)
    await asyncio.to_thread(embedder.load)
    items = corpus.items(FLOOR_CALLS + 5, seed=97)
    timings: dict[str, list[float]] = {"embedding": [], "indexed_write": [], "vector_query": []}
    prefix = f"hrec_soakfloor{uuid.uuid4().hex[:8]}"
    memory_prefix = f"hmem_soakfloor{uuid.uuid4().hex[:8]}"
    writer = Writer(kind="member", id="soak-floor", type="agent")
    async with AsyncGraphDatabase.driver(target.uri, auth=(target.user, target.password)) as driver:
        await corpus.create_memories(driver, [{"id": memory_prefix, "name": "floor", "description": ""}])
        try:
            for i, item in enumerate(items):
                began = time.perf_counter()
                vector = (await embedder.embed([item.text]))[0]
                embedded = time.perf_counter()
                maps = corpus.record_maps(
                    item, f"{prefix}{i:08d}", memory_prefix, vector, writer, int(time.time() * 1000)
                )
                await driver.execute_query(corpus.WRITE_RECORDS, rows=[maps])
                written = time.perf_counter()
                await driver.execute_query(RAW_INDEX, k=10, vector=vector)
                queried = time.perf_counter()
                if i >= 5:  # the first few warm the model, the pool and the plans
                    timings["embedding"].append((embedded - began) * 1000)
                    timings["indexed_write"].append((written - embedded) * 1000)
                    timings["vector_query"].append((queried - written) * 1000)
        finally:
            await corpus.remove(driver, prefix, memory_prefix)
    return {
        name: {"p50_ms": percentile(t, 0.5), "p95_ms": percentile(t, 0.95)} for name, t in timings.items()
    }


async def watch_rss(pid: int | None, samples: list[dict[str, float]], began: float) -> None:
    """The service's memory every RSS_EVERY_S seconds, until cancelled."""
    while pid is not None:
        await asyncio.sleep(RSS_EVERY_S)
        samples.append({"t_s": round(time.monotonic() - began), **rss_mb(pid)})


async def soak(
    url: str, admin_key: str, pid: int | None, clients: int, minutes: float, seed: int
) -> dict[str, Any]:
    limits = httpx.Limits(max_connections=clients + 5, max_keepalive_connections=clients + 5)
    timeout = httpx.Timeout(60.0, connect=5.0)
    async with httpx.AsyncClient(base_url=url, limits=limits, timeout=timeout) as client:
        runner = Soak(client, [], seed)
        runner.agents = await setup(client, admin_key, runner.work)
        rss_start = rss_mb(pid) if pid else None
        samples: list[dict[str, float]] = []
        began = time.monotonic()
        watcher = asyncio.create_task(watch_rss(pid, samples, began))
        await asyncio.gather(*(runner.client_loop(i, clients, began + minutes * 60) for i in range(clients)))
        wall = time.monotonic() - began
        watcher.cancel()
        rss_end = rss_mb(pid) if pid else None
        for agent in runner.agents:
            await agent.memory.delete_memory(agent.memory_id)
    return {
        "clients": clients,
        "minutes": minutes,
        "wall_s": wall,
        "operations": runner.tally.summary(wall),
        "rss": {"start": rss_start, "end": rss_end, "samples": samples},
    }


def ratios(operations: dict[str, dict[str, Any]], floors: dict[str, dict[str, float]]) -> dict[str, float]:
    """Each operation's median over its floor: what it could cost alone on this machine."""
    embed, write, query = (floors[k]["p50_ms"] for k in ("embedding", "indexed_write", "vector_query"))
    bound = {
        "remember": embed + write,
        "revise": embed + write,
        "observe": embed + write,
        "recall": embed + query,
    }
    return {op: operations[op]["p50_ms"] / b for op, b in bound.items() if operations[op]["p50_ms"]}


def table(result: dict[str, Any]) -> str:
    lines = [
        f"soak: {result['clients']} clients for {result['minutes']:g} min ({result['wall_s']:.0f} s), "
        f"over HTTP; {result['environment']['neo4j']}",
        f"{'operation':<10} {'ok':>7} {'per s':>7} {'p50 ms':>8} {'p95 ms':>8} {'x floor':>8}  "
        "errors by status",
    ]
    for op, row in result["operations"].items():
        ratio = result["ratios"].get(op)
        errors = ", ".join(f"{k}: {v}" for k, v in sorted(row["errors"].items())) or "none"
        p50, p95 = (f"{row[k]:.0f}" if row[k] is not None else "-" for k in ("p50_ms", "p95_ms"))
        lines.append(
            f"{op:<10} {row['ok']:>7} {row['per_s']:>7.1f} {p50:>8} {p95:>8} "
            f"{(f'{ratio:.1f}' if ratio else '-'):>8}  {errors}"
        )
    floors = result["floor"]
    if floors:
        lines.append(
            "floor (alone, before the load): "
            + "; ".join(f"{k} p50 {v['p50_ms']:.1f} ms, p95 {v['p95_ms']:.1f} ms" for k, v in floors.items())
        )
        lines.append(
            "x floor: p50 over embedding + indexed write (remember, revise, observe), "
            "over embedding + vector query (recall)"
        )
    rss = result["rss"]
    if rss["start"]:
        lines.append(
            f"service RSS: {rss['start']['rss_mb']:.0f} MB at the start, "
            f"{rss['end']['rss_mb']:.0f} MB at the end (peak {rss['end']['peak_rss_mb']:.0f} MB)"
        )
    env = result["environment"]
    lines.append(
        f"host: {env['cpus']} CPUs, load average (1 min) {env['load_start']:.1f} at the start, "
        f"{env['load_end']:.1f} at the end"
    )
    return "\n".join(lines)


def started_service(target: Neo4jTarget, files: Path) -> ServiceProcess:
    access = Neo4jAccess(target.uri, target.user, target.password)
    service = ServiceProcess(neo4j=access, file_dir=files / "blobs", log_path=files / "service.log")
    service.start()
    return service


def run(args: argparse.Namespace) -> dict[str, Any]:
    load_start = os.getloadavg()[0]
    target = provision() if args.url is None or os.environ.get("NEO4J_URI") else None
    service: ServiceProcess | None = None
    try:
        with tempfile.TemporaryDirectory(prefix="uhp-soak-") as scratch:
            settings = Settings(environment="test", admin_key=SecretStr("unused"))
            access = Neo4jAccess(target.uri, target.user, target.password) if target else None
            if args.url is None:
                assert target is not None
                service = started_service(target, Path(scratch))
                url, admin_key, pid = service.url, service.admin_key, service.pid
            else:
                url, admin_key, pid = (
                    args.url,
                    args.admin_key or os.environ.get("UHP_ADMIN_KEY", ""),
                    args.pid,
                )
            # After the service applied its schema (the indexes the floor's write and query use).
            floors = asyncio.run(floor(access, settings)) if access else {}
            result = asyncio.run(soak(url, admin_key, pid, args.clients, args.minutes, args.seed))
            if service is not None:
                result["service_log_errors"] = dict(service.unhandled())
    finally:
        if service is not None:
            service.stop()
        if target is not None:
            target.close()
    result["floor"] = floors
    result["ratios"] = ratios(result["operations"], floors) if floors else {}
    result["environment"] = {
        "neo4j": target.describe() if target else f"the service at {args.url}",
        "python": platform.python_version(),
        "cpus": os.cpu_count(),
        "transport": "real HTTP (uvicorn), one service process",
        "load_start": load_start,
        "load_end": os.getloadavg()[0],
    }
    return result


def main() -> None:
    parser = argparse.ArgumentParser(
        prog="python -m bench.soak", description=__doc__.splitlines()[0] if __doc__ else None
    )
    parser.add_argument("--clients", type=int, default=50, help="concurrent clients (50)")
    parser.add_argument("--minutes", type=float, default=1.0, help="how long the load runs (1)")
    parser.add_argument("--url", help="a running service (default: start one)")
    parser.add_argument("--admin-key", help="its admin key (default: UHP_ADMIN_KEY)")
    parser.add_argument("--pid", type=int, help="its process id, for its memory")
    parser.add_argument("--seed", type=int, default=41)
    parser.add_argument("--out", type=Path, default=RESULTS, help="where to write the JSON")
    args = parser.parse_args()
    result = run(args)
    report(result, table, args.out)


if __name__ == "__main__":
    main()
