"""Who may talk to `POST /v1/mcp/memories`: the REST keys, checked by the edge before routing."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import httpx2
import pytest
from mcp import MCPError

from tests.conftest import Admin
from tests.mcp.support import PATH, Agent
from tests.support import validate

pytestmark = pytest.mark.anyio
Make = Callable[..., Agent]
LIST_TOOLS = {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}}
MCP_HEADERS = {"Accept": "application/json, text/event-stream", "MCP-Protocol-Version": "2025-11-25"}


async def post(url: str, headers: dict[str, str]) -> tuple[int, Any]:
    async with httpx2.AsyncClient(timeout=60) as http:
        answer = await http.post(url + PATH, json=LIST_TOOLS, headers={**MCP_HEADERS, **headers})
    return answer.status_code, answer.json()


def refused(status: int, body: Any, expected: int, kind: str) -> None:
    assert status == expected, body
    validate("ErrorEnvelope", body)
    assert body["error"]["type"] == kind


async def test_no_key_a_wrong_key_and_the_admin_key_are_refused(served: str, admin: Admin) -> None:
    refused(*await post(served, {}), 401, "authentication_error")
    refused(*await post(served, {"Authorization": "Bearer nope"}), 401, "authentication_error")
    refused(*await post(served, {"Authorization": "Basic eDp5"}), 401, "authentication_error")
    refused(*await post(served, {"Authorization": f"Bearer {admin.key}"}), 403, "permission_error")


async def test_a_valid_key_lists_tools_over_plain_json_rpc(agent: Make) -> None:
    status, body = await post(agent().url, agent().auth)
    assert status == 200 and "memory_recall" in {t["name"] for t in body["result"]["tools"]}


async def test_a_revoked_key_is_refused_from_the_next_call_on(agent: Make, admin: Admin) -> None:
    who = agent()
    keys = admin.client.get(f"/v1/admin/members/{who.member.id}/keys", headers=admin.headers).json()["data"]
    async with who.session() as client:
        assert not (await who.call(client, "memory_list")).is_error
        revoked = admin.client.delete(
            f"/v1/admin/members/{who.member.id}/keys/{keys[0]['id']}", headers=admin.headers
        )
        assert revoked.status_code == 200, revoked.text
        with pytest.raises(MCPError, match="error response"):
            await client.call_tool("memory_list", {})
    refused(*await post(who.url, who.auth), 401, "authentication_error")
    with pytest.raises(Exception):  # noqa: B017 - the SDK's own error for a refused connection
        async with who.session():
            pass


async def test_a_server_key_acts_for_the_member_it_names(agent: Make, admin: Admin) -> None:
    member = agent()
    made = await member.ok("POST", "/v1/memories", {"name": "Member's"})
    server = agent(member=admin.member("agent", server=True), **{"UHP-On-Behalf-Of": member.member.principal})
    async with server.session() as client:
        listed = await server.call(client, "memory_list")
        kept = await server.call(client, "memory_remember", memory=made["id"], content="Said on the phone")
    assert [m["id"] for m in listed.data["data"]] == [made["id"]]
    assert kept.data["written_by"]["id"] == member.member.id
    plain = agent(member=member.member, **{"UHP-On-Behalf-Of": member.member.principal})
    refused(*await post(plain.url, plain.auth), 403, "permission_error")
