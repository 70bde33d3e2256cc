"""`python -m provider mcp` as a desktop client runs it: a subprocess spoken to by the SDK's stdio
client, acting as the member whose key is in UHP_API_KEY, on the same Neo4j as the REST app."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from mcp import Client, StdioServerParameters

from provider.config import Settings
from tests.conftest import Admin, Member, make_memory
from tests.mcp.support import answer_of, code_of
from tests.support import REPO_ROOT, ok

pytestmark = pytest.mark.anyio
START_S = 120


def environment(settings: Settings, files: Path, **extra: str) -> dict[str, str]:
    """What a desktop client's config would set, plus the test's Neo4j; no admin key is needed."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("UHP_", "NEO4J_"))}
    return {
        **env,
        "NEO4J_URI": settings.neo4j.uri,
        "NEO4J_USER": settings.neo4j.user,
        "NEO4J_PASSWORD": settings.neo4j.password.get_secret_value(),
        "UHP_FILE_DIR": str(files),
        "UHP_QUERY_SANDBOX": "false",
        **extra,
    }


def command(env: dict[str, str]) -> StdioServerParameters:
    return StdioServerParameters(
        command=sys.executable, args=["-m", "provider", "mcp"], env=env, cwd=str(REPO_ROOT)
    )


async def test_stdio_serves_the_member_of_its_key(
    settings: Settings, client: TestClient, admin: Admin, tmp_path: Path
) -> None:
    alice, bob = admin.member("agent"), admin.member("agent")
    sales = make_memory(client, alice, "Sales", description="What the sales team knows")["id"]
    grant = {"principal": bob.principal, "privileges": ["read"]}
    ok(client.post(f"/v1/memories/{sales}/grants", json=grant, headers=alice.headers))
    async with Client(command(environment(settings, tmp_path, UHP_API_KEY=alice.key))) as mcp:
        assert sales in (mcp.instructions or "") and "What the sales team knows" in (mcp.instructions or "")
        tools = {t.name for t in (await mcp.list_tools()).tools}
        kept = answer_of(
            await mcp.call_tool("memory_remember", {"memory": sales, "content": "Acme renews in March"})
        )
        asked = {"query": "when does acme renew?"}
        recalled = answer_of(await mcp.call_tool("memory_recall", {"memory": sales, **asked}))
    assert {"memory_remember", "memory_revise", "memory_forget", "memory_recall"} <= tools
    assert "memory_query" not in tools and "memory_run_query" not in tools  # UHP_QUERY_SANDBOX=false
    assert kept.data["written_by"]["id"] == alice.id
    assert recalled.data == ok(client.post(f"/v1/memories/{sales}/recall", json=asked, headers=alice.headers))
    assert recalled.data["results"][0]["record"]["id"] == kept.data["id"]
    await _read_only(settings, tmp_path, bob, sales)


async def _read_only(settings: Settings, files: Path, bob: Member, sales: str) -> None:
    async with Client(command(environment(settings, files, UHP_API_KEY=bob.key))) as mcp:
        tools = {t.name for t in (await mcp.list_tools()).tools}
        refused = answer_of(await mcp.call_tool("memory_remember", {"memory": sales, "content": "x"}))
        read = answer_of(await mcp.call_tool("memory_recall", {"memory": sales, "text": "acme"}))
    assert tools - {"memory_operate"} == {"memory_list", "memory_recall", "memory_graph", "memory_get"}
    assert code_of(refused) == "memory_forbidden"
    assert [r["record"]["written_by"]["id"] for r in read.data["results"]] != []


@pytest.mark.parametrize("key", [None, "not-a-key"])
def test_stdio_refuses_to_start_without_a_valid_key(
    settings: Settings, tmp_path: Path, key: str | None
) -> None:
    env = environment(settings, tmp_path, **({"UHP_API_KEY": key} if key else {}))
    done = subprocess.run(
        [sys.executable, "-m", "provider", "mcp"],
        env=env,
        cwd=REPO_ROOT,
        input="",
        capture_output=True,
        text=True,
        timeout=START_S,
        check=False,
    )
    assert done.returncode == 2 and done.stdout == ""
    assert "UHP_API_KEY" in done.stderr and ("not valid" in done.stderr or key is None), done.stderr
