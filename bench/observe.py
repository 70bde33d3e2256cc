"""Observe throughput over HTTP on the real Neo4j and model: episodes per second with entity linking.

Run from the repository root: `python -m bench.observe`. A memory below a parent holds ~200 entities
between them (people, companies, places; some with aliases); conversational turns naming a few of them
each are observed in batches of 1, 10 and 50 episodes per request. Every answer is checked: each
episode must be linked to exactly the entities it names. The app runs in-process behind Starlette's
TestClient, so the numbers include routing, auth, access checks, entity matching, embedding and Cypher
but no network. Writes bench/results/observe.json. Target: at least 200 episodes per second.
"""

from __future__ import annotations

import argparse
import os
import random
import secrets
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ParamSpec, TypeVar

from fastapi.testclient import TestClient

from bench.embeddings import percentile
from bench.records import environment, runtime_settings
from bench.report import aligned, report
from provider.api.app import create_app
from provider.client import MemoryClient, UhpError
from provider.embeddings import configured_embedder
from tests.neo4j_target import provision

RESULTS = Path(__file__).resolve().parent / "results" / "observe.json"
TARGET = 200.0
BATCHES = (1, 10, 50)
T = TypeVar("T")
P = ParamSpec("P")

FIRST = [
    "Inès",
    "Marta",
    "Priya",
    "Tomasz",
    "Aiko",
    "Kwame",
    "Lucía",
    "Oskar",
    "Nadia",
    "Rafael",
    "Sigrid",
    "Dmitri",
    "Amara",
    "Jonas",
    "Yusuf",
    "Élodie",
    "Hiro",
    "Fatima",
    "Bruno",
    "Leena",
]
LAST = [
    "Varga",
    "Okafor",
    "Lindqvist",
    "Moreau",
    "Tanaka",
    "Haddad",
    "Kowalski",
    "Brennan",
    "Rossi",
    "Achebe",
    "Novak",
    "Petrov",
    "Silva",
    "Nakamura",
    "Dubois",
]
COMPANY = [
    "Quillon",
    "Harlow",
    "Vellacourt",
    "Brightwater",
    "Ostrava",
    "Kestrel",
    "Marlowe",
    "Tidewell",
    "Ashgrove",
    "Corvid",
    "Larkspur",
    "Northgate",
    "Pemberton",
    "Rookwood",
    "Stonebridge",
]
KIND = ["Freight", "Mills", "Logistics", "Dairies", "Analytics", "Textiles", "Partners", "Biotech"]
PLACES = ["Lisbon", "Rotterdam", "Leeds", "Gdańsk", "Osaka", "Accra", "Valparaíso", "Tromsø", "Izmir",
          "Montréal"]  # fmt: skip
USER = [
    "Did {a} get back to us about the quote?",
    "Can you remind me what {a} said about the delivery to {b}?",
    "I just spoke with {a}; they want to move the call with {b} to Friday.",
    "What do we know about {a}?",
    "Please note that {a} now handles purchasing for {b}.",
    "Is the {c} warehouse still the one {a} uses?",
    "Has anyone from {a} replied since last week?",
]
ASSISTANT = [
    "According to the notes, {a} asked for net sixty terms last month.",
    "{a} mentioned {b} twice in the last call; nothing is signed yet.",
    "I have recorded that. {a} will follow up after the audit.",
    "The last record says {a} ships through {c} every Tuesday.",
    "Nothing new from {a}; the ticket is still open.",
]


@dataclass
class Entity:
    id: str
    name: str


def entity_names(count: int, rng: random.Random) -> list[tuple[str, list[str]]]:
    """Unique names with aliases: people, companies (alias: initials) and places."""
    people = [f"{f} {s}" for f in FIRST for s in LAST]
    companies = [f"{c} {k}" for c in COMPANY for k in KIND]
    rng.shuffle(people)
    rng.shuffle(companies)
    chosen: list[tuple[str, list[str]]] = [(p, []) for p in PLACES]
    share = (count - len(chosen)) // 2
    chosen += [(p, []) for p in people[:share]]
    for name in companies[: count - len(chosen)]:
        initials = "".join(word[0] for word in name.split()) + " Group"
        chosen.append((name, [initials]))
    return chosen


class Bench:
    """One member, a parent and a child memory with ~200 entities between them, observed in the child."""

    def __init__(self, client: TestClient, admin_key: str):
        with MemoryClient(http=client, key=admin_key) as operator:
            member = operator.create_member("agent", "bench")
            key = operator.issue_key(member.id)
        # Writes unkeyed, as the bench's raw posts were: a timed observe is the observe alone.
        self.memory = MemoryClient(http=client, key=key.key, idempotency=False)
        self.parent = self._memory(None)
        self.child = self._memory(self.parent)
        self.entities: list[Entity] = []
        self.aliases: dict[str, list[str]] = {}

    def _memory(self, parent: str | None) -> str:
        return sure(
            lambda: self.memory.create_memory(f"bench-observe-{secrets.token_hex(4)}", parent_id=parent)
        ).id

    def add_entities(self, count: int, rng: random.Random) -> None:
        """Half in the parent, half in the child: linking reads both."""
        for index, (name, aliases) in enumerate(entity_names(count, rng)):
            memory = self.parent if index % 2 else self.child
            made = sure(
                self.memory.remember, memory, name, type="entity", title=name, attributes={"aliases": aliases}
            )
            self.entities.append(Entity(id=made.id, name=name))
            self.aliases[made.id] = aliases

    def episode(self, rng: random.Random) -> tuple[dict[str, Any], set[str]]:
        """A user turn and an assistant turn naming two or three entities (sometimes by alias)."""
        people = [e for e in self.entities if e.name not in PLACES]
        places = [e for e in self.entities if e.name in PLACES]
        a, b = rng.sample(people, 2)
        c = rng.choice(places)
        said_b = rng.choice(self.aliases[b.id]) if self.aliases[b.id] and rng.random() < 0.5 else b.name
        names = {"a": a.name.upper() if rng.random() < 0.2 else a.name, "b": said_b, "c": c.name}
        user, assistant = rng.choice(USER), rng.choice(ASSISTANT)
        content = [
            {"type": "text", "text": user.format(**names), "role": "user"},
            {"type": "text", "text": assistant.format(**names), "role": "assistant"},
        ]
        named = {e.id for key, e in (("a", a), ("b", b), ("c", c)) if "{" + key + "}" in user + assistant}
        return {"content": content, "attributes": {"channel": "chat"}}, named

    def observe(self, episodes: list[dict[str, Any]]) -> tuple[float, list[dict[str, Any]]]:
        began = time.perf_counter()  # one request, as a raw post: no extra round trip
        answer = sure(self.memory.observe, self.child, episodes)
        elapsed = (time.perf_counter() - began) * 1000
        if answer.wire().get("job"):
            raise SystemExit("bench: observe answered 202 (a job), not the records kept")
        data: list[dict[str, Any]] = answer.wire()["data"]
        return elapsed, data

    def close(self) -> None:
        self.memory.delete_memory(self.parent)


def sure(call: Callable[P, T], *args: P.args, **kwargs: P.kwargs) -> T:
    """The call's answer; a refusal stops the run."""
    try:
        return call(*args, **kwargs)
    except UhpError as refused:
        raise SystemExit(f"bench: {refused}") from refused


def measure(bench: Bench, episodes: int, warmup: int, rng: random.Random) -> dict[str, Any]:
    """Per batch size: about `episodes` episodes in requests of that size, every link checked."""
    for _ in range(warmup):
        bench.observe([bench.episode(rng)[0] for _ in range(10)])
    results: dict[str, Any] = {}
    for size in BATCHES:
        timings: list[float] = []
        wrong = 0
        total = 0
        for _ in range(max(1, episodes // size)):
            batch = [bench.episode(rng) for _ in range(size)]
            elapsed, kept = bench.observe([body for body, _ in batch])
            timings.append(elapsed)
            for record, (_, named) in zip(kept, batch, strict=True):
                linked = {r["record_id"] for r in record["references"] if r.get("rel") == "about"}
                wrong += linked != named
            total += size
        seconds = sum(timings) / 1000
        results[str(size)] = {
            "requests": len(timings),
            "episodes": total,
            "episodes_per_s": total / seconds,
            "p50_ms": percentile(timings, 0.50),
            "p95_ms": percentile(timings, 0.95),
            "wrong_links": wrong,
        }
    return results


def run(episodes: int, entities: int, warmup: int, runtime: str | None) -> dict[str, Any]:
    """Provisions Neo4j, starts the app with the real model, measures, deletes what it made."""
    target = provision()
    admin_key = "adm_" + secrets.token_urlsafe(24)
    rng = random.Random(11)
    try:
        with tempfile.TemporaryDirectory(prefix="uhp-bench-files-") as files:
            settings = runtime_settings(target, admin_key, Path(files), runtime)
            began = time.perf_counter()
            embedder = configured_embedder(settings)
            embedder.load()
            about = environment(target, settings.embedding.runtime, time.perf_counter() - began)
            with TestClient(create_app(settings, embedder=embedder)) as client:
                bench = Bench(client, admin_key)
                try:
                    bench.add_entities(entities, rng)
                    batches = measure(bench, episodes, warmup, rng)
                finally:
                    bench.close()
    finally:
        target.close()
    about["load_average_1m_at_end"] = os.getloadavg()[0]
    return {
        "environment": about,
        "entities": len(bench.entities),
        "target_episodes_per_s": TARGET,
        "batches": batches,
    }


def table(result: dict[str, Any]) -> str:
    """The numbers as a small table."""
    rows = [["episodes/request", "requests", "episodes/s", "p50 ms", "p95 ms", "wrong links"]]
    for size, s in result["batches"].items():
        rows.append(
            [
                size,
                str(s["requests"]),
                f"{s['episodes_per_s']:.0f}",
                f"{s['p50_ms']:.1f}",
                f"{s['p95_ms']:.1f}",
                str(s["wrong_links"]),
            ]
        )
    lines = aligned(rows)
    env = result["environment"]
    lines.append(
        f"\n{result['entities']} entities (parent and child); target {result['target_episodes_per_s']:.0f}"
        f" episodes/s\nneo4j {env['neo4j']}; {env['model']} ({env['embedding_runtime']}); {env['cpus']} CPUs;"
        f" {env['transport']}"
    )
    lines.append(f"host load average (1 min) at the end: {env['load_average_1m_at_end']:.2f}")
    return "\n".join(lines)


def main() -> None:
    """CLI entry."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--episodes", type=int, default=500, help="episodes per batch size")
    parser.add_argument("--entities", type=int, default=200, help="entities to link against")
    parser.add_argument("--warmup", type=int, default=5, help="untimed requests of 10 episodes first")
    parser.add_argument(
        "--runtime",
        choices=["onnx", "torch"],
        default=None,
        help="embedding runtime (default: the service's)",
    )
    parser.add_argument("--out", type=Path, default=RESULTS, help="where to write the JSON")
    args = parser.parse_args()
    result = run(args.episodes, args.entities, args.warmup, args.runtime)
    report(result, table, args.out)


if __name__ == "__main__":
    main()
