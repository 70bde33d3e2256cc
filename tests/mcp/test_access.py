"""A member never reaches through MCP what REST refuses it: each member's every call on every memory
of a small forest (a cutoff, a grant inside it, write without read) is judged three ways, by the
access model's oracle (tests/property/oracle.py), by REST and by the tools, and they must agree.

    R (alice)                 bob: read       carol: -        dave: -
    ├── C                     bob: read       carol: write    dave: -
    └── X (restricted)        bob: -          carol: -        dave: read
        └── G                 bob: read+write carol: -        dave: read
    H (alice alone)
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import pytest
from mcp import Client

from tests.mcp.support import Agent, Answer, code_of
from tests.property.oracle import ALL, Forest, GrantRec, ordered

pytestmark = pytest.mark.anyio
Make = Callable[..., Agent]
UNKNOWN = "hmem_" + "f" * 32
WRITE_TOOLS = {"memory_remember", "memory_revise", "memory_forget"}


@dataclass
class World:
    forest: Forest
    names: dict[str, str]  # memory id -> its letter
    records: dict[str, str]  # memory id -> the id of its one record


async def build(alice: Agent, members: dict[str, Agent]) -> World:
    forest, ids, records = Forest(), dict[str, str](), dict[str, str]()
    for name, parent, restricted in (
        ("R", None, False),
        ("C", "R", False),
        ("X", "R", True),
        ("G", "X", False),
    ):
        body = {"name": name, "restricted": restricted, "parent_id": ids[parent] if parent else None}
        ids[name] = (await alice.ok("POST", "/v1/memories", body))["id"]
    ids["H"] = (await alice.ok("POST", "/v1/memories", {"name": "H"}))["id"]
    for name, memory_id in ids.items():
        parent = {"C": "R", "X": "R", "G": "X"}.get(name)
        forest.add(memory_id, ids[parent] if parent else None, restricted=name == "X")
        forest.grants[memory_id].append(GrantRec("implicit", alice.member.principal, ALL, implicit=True))
        body = {"content": f"renewal fact kept in {name}"}
        records[memory_id] = (await alice.ok("POST", f"/v1/memories/{memory_id}/records", body))["id"]
    for who, name, privileges in (
        ("bob", "R", ["read"]),
        ("bob", "G", ["read", "write"]),
        ("carol", "C", ["write"]),
        ("dave", "X", ["read"]),
    ):
        principal = members[who].member.principal
        await alice.ok(
            "POST", f"/v1/memories/{ids[name]}/grants", {"principal": principal, "privileges": privileges}
        )
        forest.grants[ids[name]].append(GrantRec(f"{who}{name}", principal, frozenset(privileges)))
    return World(forest, {v: k for k, v in ids.items()}, records)


def outcome(answer: Answer) -> str:
    return "ok" if not answer.is_error else code_of(answer)


def rest_outcome(status: int, body: dict[str, object]) -> str:
    if status == 200:
        return "ok"
    error = body["error"]
    assert isinstance(error, dict)
    return str(error["code"])


def expected(privileges: frozenset[str], needed: str) -> str:
    if not privileges:
        return "memory_not_found"
    return "ok" if needed in privileges else "memory_forbidden"


async def test_tools_reach_what_rest_and_the_oracle_say(agent: Make) -> None:
    alice = agent("human")
    members = {"bob": agent(), "carol": agent(), "dave": agent(), "eve": agent()}
    world = await build(alice, members)
    for who in members.values():
        async with who.session() as client:
            tools = await who.tools(client)
            may_write = any("write" in world.forest.privileges(who.member.id, m) for m in world.names)
            assert (WRITE_TOOLS & set(tools)) == (WRITE_TOOLS if may_write else set()), who
            for memory_id in [*world.names, UNKNOWN]:
                await judge(who, client, world, memory_id)


async def judge(who: Agent, client: Client, world: World, memory_id: str) -> None:
    forest, member = world.forest, who.member.id
    held = forest.privileges(member, memory_id) if memory_id in forest.parent else frozenset()
    listed = await who.call(client, "memory_list", memory=memory_id)
    status, body = await who.rest("GET", f"/v1/memories/{memory_id}")
    assert outcome(listed) == rest_outcome(status, body) == ("ok" if held else "memory_not_found")
    if held:
        assert listed.data["memory"]["privileges"] == ordered(held) == body["privileges"]
    asked = {"text": "renewal fact", "limit": 100}
    recalled = await who.call(client, "memory_recall", memory=memory_id, **asked)
    status, body = await who.rest("POST", f"/v1/memories/{memory_id}/recall", asked)
    assert outcome(recalled) == rest_outcome(status, body) == expected(held, "read"), (member, memory_id)
    if not recalled.is_error:
        readable = {memory_id, *forest.readable_below(member, memory_id)}
        found = {r["record"]["memory_id"] for r in recalled.data["results"]}
        assert found == readable == {r["record"]["memory_id"] for r in body["results"]}
    other = next(r for m, r in world.records.items() if m != memory_id)
    got = await who.call(client, "memory_get", memory=memory_id, record=other)
    status, body = await who.rest("GET", f"/v1/memories/{memory_id}/records/{other}")
    wanted = "memory_record_not_found" if expected(held, "read") == "ok" else expected(held, "read")
    assert outcome(got) == rest_outcome(status, body) == wanted
    kept = await who.call(client, "memory_remember", memory=memory_id, content="x")
    assert outcome(kept) == expected(held, "write"), (member, world.names.get(memory_id), kept.text)
