"""memory_run_query and memory_query, offered where the capability document says queries are served,
run in the query sandbox as the REST routes run them, and answered fenced, with their writers."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from tests.mcp.support import Agent, code_of

pytestmark = pytest.mark.anyio
Make = Callable[..., Agent]
BY_TYPE = {
    "body": "MATCH (r:Record {type: $type}) RETURN r ORDER BY r.title",
    "description": "Records of one type.",
    "params": {"type": "object", "properties": {"type": {"type": "string"}}, "required": ["type"]},
}
TITLES = "MATCH (r:Record) RETURN r.title AS title, r ORDER BY title"  # rows, each with its record


def timeless(answer: dict[str, Any]) -> dict[str, Any]:
    """The answer less the instant its data was current (`data.version` must still agree)."""
    data = answer.get("data")
    assert data is not None and data["stale_ms"] == 0, answer
    return {**answer, "data": {"version": data["version"]}}


async def test_queries_through_the_tools_answer_as_rest_does(agent: Make) -> None:
    owner, stranger = agent(), agent()
    providers = (await owner.ok("GET", "/v1/memories/providers"))["data"][0]["queries"]
    sales = (await owner.ok("POST", "/v1/memories", {"name": "Sales"}))["id"]
    if not (providers.get("named") and providers.get("free")):  # no JDK here: not offered, and refused alike
        async with owner.session() as client:
            assert not {"memory_query", "memory_run_query"} & set(await owner.tools(client))
            refused = await owner.call(client, "memory_query", memory=sales, statement=TITLES)
        assert code_of(refused) == "memory_unsupported"
        return
    for title, kind in (("acme", "fact"), ("beta", "note"), ("carol", "fact")):
        await owner.ok(
            "POST", f"/v1/memories/{sales}/records", {"title": title, "type": kind, "content": title}
        )
    await owner.ok("PUT", f"/v1/memories/{sales}/queries/by_type", BY_TYPE)
    async with owner.session() as client:
        listed = await owner.call(client, "memory_list", memory=sales)
        named = await owner.call(
            client, "memory_run_query", memory=sales, name="by_type", params={"type": "fact"}
        )
        bad = await owner.call(client, "memory_run_query", memory=sales, name="by_type", params={"type": 7})
        rows = await owner.call(client, "memory_query", memory=sales, statement=TITLES)
        writes = await owner.call(
            client, "memory_query", memory=sales, statement="CREATE (n:Record) RETURN n"
        )
    assert listed.data["queries"] == [{k: v for k, v in BY_TYPE.items() if k != "body"} | {"name": "by_type"}]
    run = {"params": {"type": "fact"}}
    assert timeless(named.data) == timeless(
        await owner.ok("POST", f"/v1/memories/{sales}/queries/by_type", run)
    )
    assert [r["record"]["title"] for r in named.data["results"]] == ["acme", "carol"]
    assert named.data["trust"] == "untrusted" and f"member:{owner.member.id}" in named.head
    assert code_of(bad) == "memory_invalid"
    assert timeless(rows.data) == timeless(
        await owner.ok("POST", f"/v1/memories/{sales}/query", {"statement": TITLES})
    )
    assert [row[0] for row in rows.data["rows"]] == ["acme", "beta", "carol"]
    assert rows.data["written_by"][0][0]["id"] == owner.member.id and f"member:{owner.member.id}" in rows.head
    status, body = await owner.rest(
        "POST", f"/v1/memories/{sales}/query", {"statement": "CREATE (n:Record) RETURN n"}
    )
    assert status == 422 and code_of(writes) == body["error"]["code"]
    await _stranger(stranger, sales)


async def _stranger(stranger: Agent, sales: str) -> None:
    async with stranger.session() as client:
        answers: list[Any] = [
            await stranger.call(
                client, "memory_run_query", memory=sales, name="by_type", params={"type": "x"}
            ),
            await stranger.call(client, "memory_query", memory=sales, statement=TITLES),
        ]
    assert [code_of(a) for a in answers] == ["memory_not_found", "memory_not_found"]
