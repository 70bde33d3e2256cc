"""A recall through MCP next to the same recall through REST, and a transcript of a short MCP session.

Run from the repository root: `python -m bench.mcp [--records 200] [--repeats 40]`. The database is
NEO4J_URI (with NEO4J_USER, NEO4J_PASSWORD) or whatever tests.neo4j_target.provision finds. The app is
served for real by uvicorn on a free port (one process, the embedding model in it), so both paths pay
HTTP: REST is one keep-alive httpx2 client posting `/v1/memories/{id}/recall`; MCP is the official
SDK's `Client` over streamable HTTP (protocol 2026-07-28: one POST per call, authenticated by the edge
like REST), calling `memory_recall` with the same body. The two alternate, after a warm-up, so both
meet the same caches. The transcript (list, remember, recall, graph) is printed with each answer cut
to its first lines. The memory made for the run is deleted at the end. Writes bench/results/mcp.json.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import platform
import time
from pathlib import Path
from typing import Any

import httpx2
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.types import TextContent

from bench.embeddings import MODEL
from bench.records import summary
from bench.service import bench_settings
from provider.api.app import create_app
from provider.config import Settings
from provider.embeddings import build_embedder
from tests.neo4j_target import provision
from tests.serving import served_in_thread

RESULTS = Path(__file__).resolve().parent / "results" / "mcp.json"
ASKED = {"query": "when does the customer renew?", "limit": 10}
TOPICS = ("renewal", "pricing", "support", "onboarding", "security review")


async def setup(http: httpx2.AsyncClient, url: str, admin_key: str, count: int) -> tuple[str, str, str]:
    admin = {"Authorization": f"Bearer {admin_key}"}
    member = (
        await http.post(f"{url}/v1/admin/members", json={"type": "agent", "name": "bench"}, headers=admin)
    ).json()
    key = (await http.post(f"{url}/v1/admin/members/{member['id']}/keys", json={}, headers=admin)).json()[
        "key"
    ]
    mine = {"Authorization": f"Bearer {key}"}
    body = {"name": "Accounts", "description": "What the account team knows about its customers."}
    memory = (await http.post(f"{url}/v1/memories", json=body, headers=mine)).json()["id"]
    for i in range(count):
        text = f"Customer {i % 37} talked about {TOPICS[i % len(TOPICS)]} in meeting {i}."
        made = await http.post(f"{url}/v1/memories/{memory}/records", json={"content": text}, headers=mine)
        made.raise_for_status()
    return member["id"], key, memory


def text_of(result: Any) -> str:
    block = result.content[0]
    return block.text if isinstance(block, TextContent) else str(block)


async def transcript(client: Client, memory: str) -> list[dict[str, Any]]:
    """A short session an agent might have, each call with its answer's first lines."""
    fact = "Acme renews in March and wants the annual discount kept."
    calls: list[tuple[str, dict[str, Any]]] = [
        ("memory_list", {}),
        ("memory_remember", {"memory": memory, "content": fact, "attributes": {"account": "acme"}}),
        ("memory_recall", {"memory": memory, "query": "when does Acme renew?", "limit": 2}),
    ]
    steps: list[dict[str, Any]] = []
    for name, arguments in calls:
        result = await client.call_tool(name, arguments)
        steps.append(
            {"tool": name, "arguments": arguments, "is_error": result.is_error, "text": text_of(result)}
        )
    kept = json.loads(steps[1]["text"].split("\n")[2])
    result = await client.call_tool("memory_graph", {"memory": memory, "record": kept["id"], "hops": 1})
    steps.append({"tool": "memory_graph", "arguments": {"memory": memory, "record": kept["id"], "hops": 1},
                  "is_error": result.is_error, "text": text_of(result)})  # fmt: skip
    return steps


async def measure(url: str, settings: Settings, count: int, repeats: int) -> dict[str, Any]:
    async with httpx2.AsyncClient(timeout=120) as http:
        member, key, memory = await setup(http, url, settings.admin_key.get_secret_value(), count)
        mine = {"Authorization": f"Bearer {key}"}
        rest: list[float] = []
        mcp: list[float] = []
        try:
            async with (
                httpx2.AsyncClient(headers=mine, timeout=120) as agent_http,
                Client(streamable_http_client(f"{url}/v1/mcp/memories", http_client=agent_http)) as client,
            ):
                steps = await transcript(client, memory)
                for i in range(repeats + 5):
                    began = time.perf_counter()
                    answer = await http.post(f"{url}/v1/memories/{memory}/recall", json=ASKED, headers=mine)
                    middle = time.perf_counter()
                    result = await client.call_tool("memory_recall", {"memory": memory, **ASKED})
                    ended = time.perf_counter()
                    if answer.status_code != 200 or result.is_error:
                        raise SystemExit(f"bench: {answer.text[:200]} {text_of(result)[:200]}")
                    if i >= 5:  # warm-up left out
                        rest.append((middle - began) * 1000)
                        mcp.append((ended - middle) * 1000)
        finally:
            await http.delete(f"{url}/v1/memories/{memory}", headers=mine)
    return {
        "records": count,
        "rest": summary(rest),
        "mcp": summary(mcp),
        "transcript": steps,
        "member": member,
    }


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.mcp")
    parser.add_argument("--records", type=int, default=200)
    parser.add_argument("--repeats", type=int, default=40)
    args = parser.parse_args()
    target = provision()
    try:
        settings = bench_settings(target, query_sandbox=False)
        embedder = build_embedder("onnx", MODEL, cache_dir=settings.cache_dir, batch_size=64)
        for url in served_in_thread(create_app(settings, embedder=embedder)):
            report = asyncio.run(measure(url, settings, args.records, args.repeats))
        report |= {"neo4j": target.describe(), "machine": platform.platform()}
    finally:
        target.close()
    for step in report["transcript"]:
        print(f"> {step['tool']} {json.dumps(step['arguments'])}")
        print("\n".join(line[:160] for line in step["text"].split("\n")[:6]), "\n")
    print(f"recall over {args.records} records, {args.repeats} calls each (ms)")
    print(f"{'path':<6}{'p50':>8}{'p95':>8}{'mean':>8}{'max':>8}")
    for path in ("rest", "mcp"):
        row = report[path]
        print(
            f"{path:<6}{row['p50_ms']:>8.1f}{row['p95_ms']:>8.1f}{row['mean_ms']:>8.1f}{row['max_ms']:>8.1f}"
        )
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
