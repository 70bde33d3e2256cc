"""memory_operate over streamable HTTP through the SDK's client: a person's aliases and a merge, each
answer beside REST's, a bad input named as REST names it (under input.), and a reader refused a merge
(403, alike for an unknown record)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from tests.mcp.support import Agent, code_of

pytestmark = pytest.mark.anyio
Make = Callable[..., Agent]


async def person(who: Agent, memory_id: str, name: str, **attributes: Any) -> str:
    body = {"type": "x.person", "title": name, "attributes": {"name": name, **attributes}}
    made = await who.ok("POST", f"/v1/memories/{memory_id}/records", body)
    return str(made["id"])


async def test_memory_operate_runs_aliases_and_merge_as_rest_does(agent: Make) -> None:
    owner, reader = agent(), agent()
    sales = (await owner.ok("POST", "/v1/memories", {"name": "Sales", "description": "accounts"}))["id"]
    await owner.ok("POST", f"/v1/memories/{sales}/grants", {"principal": reader.member.principal,
                                                           "privileges": ["read"]})  # fmt: skip
    ada = await person(owner, sales, "Ada Lovelace", aliases=["Ada"])
    twin = await person(owner, sales, "Ada King")
    rest = await owner.ok("POST", f"/v1/memories/{sales}/records/{ada}/operations/aliases", {})
    async with owner.session() as client:
        tools = await owner.tools(client)
        assert "merge" in tools["memory_operate"].description
        names = await owner.call(client, "memory_operate", memory=sales, record=ada, operation="aliases")
        bad = await owner.call(
            client, "memory_operate", memory=sales, record=ada, operation="merge", input={"duplicat": twin}
        )
        merged = await owner.call(
            client, "memory_operate", memory=sales, record=ada, operation="merge", input={"duplicate": twin}
        )
    assert not names.is_error and names.data == rest
    assert code_of(bad) == "memory_invalid" and "input.duplicat" in bad.text
    assert not merged.is_error, merged.text
    result = merged.data["result"]
    assert result["record"]["attributes"]["aliases"] == ["Ada", "Ada King"]
    assert result["duplicate"]["status"] == "forgotten"
    run = await owner.ok("GET", f"/v1/memories/{sales}/consolidations/{result['consolidation_id']}")
    assert run["trigger"] == "operation"
    async with reader.session() as client:
        refused = await reader.call(
            client, "memory_operate", memory=sales, record=ada, operation="merge", input={"duplicate": twin}
        )
        unknown = await reader.call(
            client, "memory_operate", memory=sales, record="hrec_" + "0" * 32, operation="merge",
            input={"duplicate": twin},
        )  # fmt: skip
    assert code_of(refused) == "memory_forbidden" and refused.text == unknown.text
