"""A short session against a running stack, as a new user would have it, over HTTP only.

`write`: a member and key (admin API), a memory, a record, recall finds it, free Cypher counts it,
and the MCP endpoint (the official SDK's client) lists the tools and recalls it; what it made goes
to a state file. `verify` (after the service container restarted): the record is still there, and
recall and Cypher still find it. Exits non-zero, saying why, at the first thing that is wrong.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import time
from pathlib import Path

from provider.client import MemoryClient, UhpError

FACT = "The lighthouse keeper on Skerry Point logs the weather at dawn."
QUESTION = "Who writes down the weather each morning?"


def step(name: str, started: float) -> None:
    print(f"smoke: {name} ({(time.perf_counter() - started) * 1000:.0f} ms)", flush=True)


def recalled(stack: MemoryClient, memory: str, record: str) -> None:
    started = time.perf_counter()
    hits = stack.recall(memory, query=QUESTION).results
    if not hits or hits[0].record.id != record:
        raise SystemExit(f"smoke: recall did not put the record first: {hits[:1]}")
    step("recall found the record", started)


def declares_free_queries(stack: MemoryClient) -> bool:
    """Whether the capability document offers free Cypher (compose runs the query sandbox, so it must)."""
    return any("free" in (entry.get("queries") or {}) for entry in stack.providers().data)


def counted(stack: MemoryClient, memory: str) -> None:
    if not declares_free_queries(stack):
        raise SystemExit("smoke: the deployment declares no free Cypher: is the query sandbox up?")
    started = time.perf_counter()
    statement = "MATCH (r:Record {status: 'active'}) RETURN count(r) AS n"
    answer = stack.free_query(memory, statement)
    if getattr(answer, "rows", None) != [[1]]:
        raise SystemExit(f"smoke: free Cypher answered {answer}")
    step("free Cypher counted it in the query sandbox", started)


async def through_mcp(url: str, key: str, memory: str, record: str) -> None:
    import httpx2
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client

    started = time.perf_counter()
    async with (
        httpx2.AsyncClient(headers={"Authorization": f"Bearer {key}"}, timeout=120) as http,
        Client(streamable_http_client(url.rstrip("/") + "/v1/mcp/memories", http_client=http)) as client,
    ):
        tools = {t.name for t in (await client.list_tools()).tools}
        if not {"memory_recall", "memory_remember"} <= tools:
            raise SystemExit(f"smoke: the MCP endpoint lists {sorted(tools)}")
        result = await client.call_tool("memory_recall", {"memory": memory, "query": QUESTION})
        text = "".join(getattr(part, "text", "") for part in result.content)
        if result.is_error or record not in text:
            raise SystemExit(f"smoke: memory_recall over MCP answered {text[:500]}")
    step(f"MCP: {len(tools)} tools, memory_recall found the record", started)


def write(url: str, admin_key: str, state: Path) -> None:
    started = time.perf_counter()
    with MemoryClient(url, admin_key, timeout=120) as operator:
        member = operator.create_member("agent", "smoke agent")
        key = operator.issue_key(member.id).key
    with MemoryClient(url, key, timeout=120) as stack:
        memory = stack.create_memory("Smoke", description="deploy/check").id
        step("member, key and memory", started)
        started = time.perf_counter()
        record = stack.remember(memory, FACT, type="fact").id
        step("remembered a fact", started)
        recalled(stack, memory, record)
        counted(stack, memory)
    asyncio.run(through_mcp(url, key, memory, record))
    state.write_text(json.dumps({"key": key, "memory": memory, "record": record}))


def verify(url: str, state: Path) -> None:
    kept = json.loads(state.read_text())
    started = time.perf_counter()
    with MemoryClient(url, kept["key"], timeout=120) as stack:
        record = stack.get_record(kept["memory"], kept["record"])
        parts = record.content if isinstance(record.content, list) else []
        if not parts or parts[0].text != FACT:
            raise SystemExit(f"smoke: the record came back as {record}")
        step("the record is still there after the restart", started)
        recalled(stack, kept["memory"], kept["record"])
        counted(stack, kept["memory"])


def main() -> int:
    parser = argparse.ArgumentParser(prog="deploy/smoke.py")
    parser.add_argument("phase", choices=["write", "verify"])
    parser.add_argument("--url", required=True)
    parser.add_argument("--admin-key", default="")
    parser.add_argument("--state", type=Path, required=True)
    args = parser.parse_args()
    try:
        if args.phase == "write":
            write(args.url.rstrip("/"), args.admin_key, args.state)
        else:
            verify(args.url.rstrip("/"), args.state)
    except UhpError as e:
        raise SystemExit(f"smoke: the service refused: {e}") from e
    return 0


if __name__ == "__main__":
    sys.exit(main())
