"""What the MCP tests share: an agent that speaks MCP through the official SDK's client, and REST.

An `Agent` is one member: `session()` opens the SDK's `Client` over streamable HTTP with the member's
key, `rest()` sends the same member's REST request to the same served app, so a test can put the
two answers side by side. `fenced_data` reads the JSON out of a tool result's fence.
"""

from __future__ import annotations

import json
import re
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import Any

import httpx2
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.types import CallToolResult, TextContent

from tests.conftest import Member

PATH = "/v1/mcp/memories"
FENCE = re.compile(
    r'^UNTRUSTED DATA: (?P<head>.*)\n<untrusted-data tag="(?P<tag>[0-9a-f]{16})">\n(?P<body>.*)\n'
    r'</untrusted-data tag="(?P=tag)">(?P<tail>(\n.*)*)$'
)


@dataclass(frozen=True)
class Answer:
    """A tool result as a test reads it."""

    is_error: bool
    text: str
    head: str = ""
    data: Any = None
    tail: str = ""


def answer_of(result: CallToolResult) -> Answer:
    """One text block: a refusal in plain words, or fenced JSON whose fence is checked whole."""
    assert len(result.content) == 1 and isinstance(result.content[0], TextContent), result
    text = result.content[0].text
    assert result.structured_content is None  # nothing reaches the model outside the fence
    if result.is_error:
        assert "untrusted-data" not in text and "\n" not in text and "Traceback" not in text, text
        return Answer(True, text)
    found = FENCE.match(text)
    assert found, text[:500]
    body = found["body"]
    assert "<" not in body and ">" not in body, "the body cannot spell a delimiter"
    return Answer(False, text, found["head"], json.loads(body), found["tail"])


@dataclass
class Agent:
    """A member calling the served app, through MCP and through REST."""

    url: str
    member: Member
    headers: dict[str, str] = field(default_factory=dict)

    @property
    def auth(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.member.key}", **self.headers}

    @asynccontextmanager
    async def session(self, mode: str = "auto") -> AsyncIterator[Client]:
        async with (
            httpx2.AsyncClient(headers=self.auth, timeout=120) as http,
            Client(streamable_http_client(self.url + PATH, http_client=http), mode=mode) as client,
        ):
            yield client

    async def call(self, client: Client, tool: str, **arguments: Any) -> Answer:
        return answer_of(await client.call_tool(tool, arguments))

    async def tools(self, client: Client) -> dict[str, Any]:
        listed = await client.list_tools()
        return {t.name: t for t in listed.tools}

    async def rest(self, method: str, path: str, body: Any = None) -> tuple[int, Any]:
        async with httpx2.AsyncClient(headers=self.auth, timeout=120) as http:
            answer = await http.request(method, self.url + path, json=body)
        return answer.status_code, answer.json()

    async def ok(self, method: str, path: str, body: Any = None) -> Any:
        status, data = await self.rest(method, path, body)
        assert status == 200, data
        return data


def code_of(answer: Answer) -> str:
    """The error code a refusal starts with (`memory_not_found: ...`)."""
    assert answer.is_error, answer.text
    return answer.text.split(":", 1)[0]
