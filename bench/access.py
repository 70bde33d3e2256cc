"""Access decisions on a large tree: effective privileges of one memory and readable scope of a subtree.

Run from the repository root: `python -m bench.access`. Neo4j comes from NEO4J_URI (with NEO4J_USER,
NEO4J_PASSWORD), else tests/neo4j_target.py provisions one. The bench writes a tree of 10,000 memories
eight levels deep, 1,000 members, 100 (nested) groups and ~13,000 grants (an implicit one per memory
plus explicit ones on members and groups, some restricted nodes) straight into Neo4j with UNWIND
batches, using the service's own labels and properties; then it times the paths the service takes:

- effective privileges of one memory: `Neo4jMemoryStore.facts` + `services.tree.view_of` (GET);
- readable scope of a subtree: `Neo4jMemoryStore.reach` + `access.reach` + `readable_scope`
  (recall's scope) from the root, from a level-2 node and from a level-5 node.

Prints a table, writes bench/results/access.json, and deletes every node it made (ids share a prefix).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import platform
import random
import statistics
import sys
import time
import uuid
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:  # run as a file, Python puts bench/ on the path, not the repository
    sys.path.insert(0, str(ROOT))

from neo4j import AsyncDriver  # noqa: E402

from bench.report import on_neo4j, report  # noqa: E402
from provider import access  # noqa: E402
from provider.models import UsageLimits  # noqa: E402
from provider.services.tree.memories import view_of  # noqa: E402
from provider.store.driver import Neo4jStore  # noqa: E402
from provider.store.memories import Neo4jMemoryStore  # noqa: E402
from provider.store.schema import apply_schema  # noqa: E402
from provider.store.usage import Neo4jUsageStore  # noqa: E402
from tests.neo4j_target import Neo4jTarget  # noqa: E402

RESULTS = ROOT / "bench" / "results" / "access.json"
LEVELS = (1, 4, 16, 64, 256, 1024, 3000, 5635)  # memories per level: 10,000 over 8 levels
MEMBERS = 1000
GROUPS = 100
NESTED_GROUPS = 20  # groups 0..19 each sit inside one of the groups 20..99
EXPLICIT_GRANTS = 3000
RESTRICTED_SHARE = 0.02  # of the memories at level 2 and below
PRIVILEGES = ("read", "write", "create", "delete")
BATCH = 2000
DIMENSIONS = 384

CREATE_MEMBERS = """
UNWIND $rows AS r
CREATE (:Member {id: r.id, type: r.type, name: r.name, created_at: $now})
"""
CREATE_GROUPS = """
UNWIND $rows AS r
CREATE (:Group {id: r.id, name: r.name, created_at: $now})
"""
JOIN_MEMBERS = """
UNWIND $rows AS r
MATCH (m:Member {id: r.member}), (g:Group {id: r.group})
CREATE (m)-[:MEMBER_OF]->(g)
"""
NEST_GROUPS = """
UNWIND $rows AS r
MATCH (c:Group {id: r.member}), (g:Group {id: r.group})
CREATE (c)-[:MEMBER_OF]->(g)
"""
CREATE_MEMORIES = """
UNWIND $rows AS r
CREATE (:Memory {id: r.id, name: r.name, description: '', restricted: r.restricted, provider: 'neo4j',
                 created_at: $now, updated_at: $now, created_by: r.creator})
"""
LINK_MEMORIES = """
UNWIND $rows AS r
MATCH (c:Memory {id: r.id}), (p:Memory {id: r.parent})
CREATE (c)-[:CHILD_OF]->(p)
"""
CREATE_GRANTS = """
UNWIND $rows AS r
MATCH (m:Memory {id: r.memory})
CREATE (:Grant {id: r.id, principal: r.principal, privileges: r.privileges, implicit: r.implicit,
                created_at: $now})-[:ON]->(m)
"""
DELETE_BY_PREFIX = (  # the id constraints' range indexes serve STARTS WITH; bounded transactions
    "MATCH (n:Grant) WHERE n.id STARTS WITH $prefix WITH n LIMIT 5000 DETACH DELETE n RETURN count(*) AS n",
    "MATCH (n:Memory) WHERE n.id STARTS WITH $prefix WITH n LIMIT 5000 DETACH DELETE n RETURN count(*) AS n",
    "MATCH (n:Member) WHERE n.id STARTS WITH $prefix WITH n LIMIT 5000 DETACH DELETE n RETURN count(*) AS n",
    "MATCH (n:Group) WHERE n.id STARTS WITH $prefix WITH n LIMIT 5000 DETACH DELETE n RETURN count(*) AS n",
)


@dataclass
class World:
    """What the bench wrote, in memory, so it can pick probes and describe the shape."""

    prefix: str
    levels: list[list[str]] = field(default_factory=list)
    parent: dict[str, str] = field(default_factory=dict)
    restricted: set[str] = field(default_factory=set)
    members: list[str] = field(default_factory=list)
    groups: list[str] = field(default_factory=list)
    memberships: list[dict[str, str]] = field(default_factory=list)
    nestings: list[dict[str, str]] = field(default_factory=list)
    grants: list[dict[str, Any]] = field(default_factory=list)

    @property
    def probe(self) -> str:
        """The member whose view is timed: in group 0, nested in a group that may read the root."""
        return self.members[0]


def build(prefix: str, seed: int) -> World:
    """The tree, principals and grants, decided up front with a seeded generator."""
    rng = random.Random(seed)
    world = World(prefix=prefix)
    world.members = [f"{prefix}u{i}" for i in range(MEMBERS)]
    world.groups = [f"{prefix}g{i}" for i in range(GROUPS)]
    for member in world.members:
        for group in rng.sample(world.groups, rng.randint(1, 3)):
            world.memberships.append({"member": member, "group": group})
    world.memberships.append({"member": world.probe, "group": world.groups[0]})
    for i in range(NESTED_GROUPS):
        host = world.groups[rng.randrange(NESTED_GROUPS, GROUPS)]
        world.nestings.append({"member": world.groups[i], "group": host})
    _tree(world, rng)
    _grants(world, rng)
    return world


def _tree(world: World, rng: random.Random) -> None:
    count = 0
    for depth, size in enumerate(LEVELS):
        level = [f"{world.prefix}m{count + i}" for i in range(size)]
        count += size
        for memory in level:
            if depth:
                world.parent[memory] = rng.choice(world.levels[-1])
            if depth >= 2 and rng.random() < RESTRICTED_SHARE:
                world.restricted.add(memory)
        world.levels.append(level)


def _grants(world: World, rng: random.Random) -> None:
    every = [m for level in world.levels for m in level]
    for memory in every:  # the creator's implicit grant, as memory_create writes it
        world.grants.append(
            {
                "memory": memory,
                "principal": f"member:{rng.choice(world.members)}",
                "privileges": list(PRIVILEGES),
                "implicit": True,
            }
        )
    host = world.nestings[0]["group"]  # group 0 sits inside it, and the probe is in group 0
    world.grants.append(
        {
            "memory": world.levels[0][0],
            "principal": f"group:{host}",
            "privileges": ["read"],
            "implicit": False,
        }
    )
    for memory in rng.sample(sorted(world.restricted), min(20, len(world.restricted))):
        world.grants.append(
            {
                "memory": memory,
                "principal": f"member:{world.probe}",
                "privileges": ["read", "write"],
                "implicit": False,
            }
        )
    for _ in range(EXPLICIT_GRANTS):
        principal = (
            f"group:{rng.choice(world.groups)}"
            if rng.random() < 0.3
            else f"member:{rng.choice(world.members)}"
        )
        privileges = [p for p in PRIVILEGES if rng.random() < 0.5] or ["read"]
        world.grants.append(
            {"memory": rng.choice(every), "principal": principal, "privileges": privileges, "implicit": False}
        )
    for i, grant in enumerate(world.grants):
        grant["id"] = f"{world.prefix}x{i}"


async def write(driver: AsyncDriver, world: World) -> float:
    """Writes the world in UNWIND batches; seconds taken."""
    began = time.perf_counter()
    now = int(time.time() * 1000)
    memories = [
        {"id": m, "name": m[-8:], "restricted": m in world.restricted, "creator": ""}
        for level in world.levels
        for m in level
    ]
    steps: list[tuple[str, list[dict[str, Any]]]] = [
        (CREATE_MEMBERS, [{"id": m, "type": "human", "name": m[-6:]} for m in world.members]),
        (CREATE_GROUPS, [{"id": g, "name": g[-6:]} for g in world.groups]),
        (JOIN_MEMBERS, world.memberships),
        (NEST_GROUPS, world.nestings),
        (CREATE_MEMORIES, memories),
        (LINK_MEMORIES, [{"id": c, "parent": p} for c, p in world.parent.items()]),
        (CREATE_GRANTS, world.grants),
    ]
    for query, rows in steps:
        for start in range(0, len(rows), BATCH):
            await driver.execute_query(query, rows=rows[start : start + BATCH], now=now)
    return time.perf_counter() - began


async def remove(driver: AsyncDriver, prefix: str) -> int:
    """Deletes every node the bench made, label by label, in bounded transactions."""
    removed = 0
    for query in DELETE_BY_PREFIX:
        while True:
            records, _, _ = await driver.execute_query(query, prefix=prefix)
            removed += records[0]["n"]
            if records[0]["n"] == 0:
                break
    return removed


def percentile(samples: Sequence[float], fraction: float) -> float:
    """Nearest-rank percentile."""
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, max(0, round(fraction * len(ordered)) - 1))]


async def timed(calls: int, warmup: int, call: Callable[[int], Awaitable[int]]) -> dict[str, float]:
    """Latency of sequential calls (after a warm-up); `call(i)` returns a size worth reporting."""
    for i in range(warmup):
        await call(i)
    timings, sizes = [], []
    for i in range(calls):
        start = time.perf_counter()
        sizes.append(await call(i))
        timings.append((time.perf_counter() - start) * 1000)
    return {
        "calls": calls,
        "p50_ms": percentile(timings, 0.50),
        "p95_ms": percentile(timings, 0.95),
        "mean_ms": statistics.fmean(timings),
        "max_ms": max(timings),
        "size": statistics.median(sizes),
    }


async def measure(memories: Neo4jMemoryStore, world: World, calls: int, warmup: int) -> dict[str, Any]:
    """The two access paths, each on the probe member's view."""
    rng = random.Random(7)
    every = [m for level in world.levels for m in level]
    picks = [rng.choice(every) for _ in range(calls + warmup)]
    others = [rng.choice(world.members[1:]) for _ in range(calls + warmup)]

    def privileges_of(asker: Callable[[int], str]) -> Callable[[int], Awaitable[int]]:
        async def privileges(i: int) -> int:
            facts = await memories.facts(asker(i), [picks[i]])
            return len(view_of(facts[picks[i]]).privileges)

        return privileges

    def scope_from(memory_id: str) -> Callable[[int], Awaitable[int]]:
        async def scope(_: int) -> int:
            found = await memories.reach(world.probe, memory_id, None)
            assert found is not None
            return len(access.reach(memory_id, found.chain, found.below).readable_scope())

        return scope

    level2 = next(m for m in world.levels[2] if sum(1 for p in world.parent.values() if p == m) > 1)
    level5 = next(m for m in world.levels[5] if sum(1 for p in world.parent.values() if p == m) > 1)
    subtree = {
        name: _subtree_size(world, m)
        for name, m in (("root", world.levels[0][0]), ("level 2", level2), ("level 5", level5))
    }
    rows = {
        "privileges (probe member)": await timed(calls, warmup, privileges_of(lambda _: world.probe)),
        "privileges (any member)": await timed(calls, warmup, privileges_of(lambda i: others[i])),
        "scope from the root": await timed(
            max(10, calls // 5), max(2, warmup // 5), scope_from(world.levels[0][0])
        ),
        "scope from level 2": await timed(calls, warmup, scope_from(level2)),
        "scope from level 5": await timed(calls, warmup, scope_from(level5)),
    }
    below = {
        "scope from the root": subtree["root"],
        "scope from level 2": subtree["level 2"],
        "scope from level 5": subtree["level 5"],
    }
    for name, row in rows.items():
        row["subtree"] = below.get(name, 1)
    return rows


def _subtree_size(world: World, memory_id: str) -> int:
    children: dict[str, list[str]] = {}
    for child, parent in world.parent.items():
        children.setdefault(parent, []).append(child)
    stack, seen = [memory_id], 0
    while stack:
        seen += 1
        stack += children.get(stack.pop(), [])
    return seen


def table(result: dict[str, Any]) -> str:
    """The numbers as a small table."""
    shape = result["shape"]
    lines = [
        f"neo4j {result['server']['version']} ({result['server']['source']}); {shape['memories']} memories, "
        f"{shape['levels']} levels, {shape['members']} members, {shape['groups']} groups, "
        f"{shape['grants']} grants, {shape['restricted']} restricted; written in {shape['write_s']:.1f} s",
        f"{'path':<26} {'calls':>6} {'p50 ms':>8} {'p95 ms':>8} {'mean ms':>8} {'subtree':>8} {'result':>7}",
    ]
    for name, row in result["access"].items():
        lines.append(
            f"{name:<26} {row['calls']:>6} {row['p50_ms']:>8.2f} {row['p95_ms']:>8.2f} "
            f"{row['mean_ms']:>8.2f} {row['subtree']:>8} {row['size']:>7.0f}"
        )
    lines.append(
        "result: median privileges held (privileges) or readable memories in the scope (scope);"
        " the probe member reads the root through a nested group and holds grants past cutoffs"
    )
    return "\n".join(lines)


async def run(target: Neo4jTarget, calls: int, warmup: int, seed: int) -> dict[str, Any]:
    """Write, measure, always clean up."""
    prefix = f"bench-access-{uuid.uuid4().hex[:8]}-"
    world = build(prefix, seed)
    store = Neo4jStore.connect(target.uri, target.user, target.password, "neo4j")
    try:
        await apply_schema(store, DIMENSIONS)
        write_s = await write(store.driver, world)
        timings = await measure(
            Neo4jMemoryStore(store, Neo4jUsageStore(store, UsageLimits())), world, calls, warmup
        )
    finally:
        removed = await remove(store.driver, prefix)
        await store.close()
    shape = {
        "memories": sum(LEVELS),
        "levels": len(LEVELS),
        "members": MEMBERS,
        "groups": GROUPS,
        "grants": len(world.grants),
        "restricted": len(world.restricted),
        "write_s": write_s,
        "removed_nodes": removed,
    }
    server = {"version": target.version, "edition": target.edition, "source": target.source}
    machine = {"python": platform.python_version(), "machine": platform.machine(), "cpus": os.cpu_count()}
    return {"server": server, "machine": machine, "shape": shape, "access": timings}


def main() -> None:
    """CLI entry."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--calls", type=int, default=200, help="timed calls per path (the root: a fifth)")
    parser.add_argument("--warmup", type=int, default=20, help="untimed calls first")
    parser.add_argument("--seed", type=int, default=2026, help="shapes the tree and the grants")
    parser.add_argument("--out", type=Path, default=RESULTS, help="where to write the JSON")
    args = parser.parse_args()
    result = on_neo4j(lambda target: asyncio.run(run(target, args.calls, args.warmup, args.seed)))
    report(result, table, args.out)


if __name__ == "__main__":
    main()
