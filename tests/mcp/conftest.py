"""The app served for real (uvicorn on a free port, in a thread, with its own lifespan and event loop),
so the SDK's streamable HTTP client talks to it as any MCP client would; the REST calls a test
compares with go to the same app. Tests run as coroutines (anyio's plugin, on asyncio)."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from typing import Literal

import pytest
import uvicorn

from provider.api.app import create_app
from provider.config import Settings
from provider.embeddings import OnnxEmbedder
from tests.conftest import Admin, Member
from tests.mcp.support import Agent

START_S = 120


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture(scope="session")
def served(settings: Settings, embedder: OnnxEmbedder) -> Iterator[str]:
    """The base URL of the app, as `python -m provider serve` runs it."""
    config = uvicorn.Config(
        create_app(settings, embedder=embedder), host="127.0.0.1", port=0, log_level="warning", lifespan="on"
    )
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + START_S
    while not server.started:
        assert thread.is_alive() and time.monotonic() < deadline, "uvicorn did not start"
        time.sleep(0.05)
    port = server.servers[0].sockets[0].getsockname()[1]
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout=60)


@pytest.fixture
def agent(served: str, admin: Admin) -> Callable[..., Agent]:
    """A new member (an agent unless told otherwise) calling the served app."""

    def make(
        member_type: Literal["human", "agent"] = "agent", *, member: Member | None = None, **headers: str
    ) -> Agent:
        return Agent(served, member or admin.member(member_type), headers)

    return make
