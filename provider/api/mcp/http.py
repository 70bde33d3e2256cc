"""The streamable HTTP endpoint, `POST /v1/mcp/memories`, mounted in the same app as the REST API.

It sits under `/v1`, so the edge (edge.py) authenticates every request before routing, with the
same keys as REST (a server key may name the member it acts for), refuses one without a valid key
with 401, and caps the body, before the SDK reads a byte. The SDK serves it stateless (no MCP
session is kept between requests, so any instance behind a load balancer can answer any request)
and answers JSON, not an event stream: every tool answers once.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager, asynccontextmanager

from fastapi import FastAPI
from mcp.server.streamable_http_manager import StreamableHTTPSessionManager
from starlette.routing import Route
from starlette.types import Receive, Scope, Send

from provider.api.mcp.server import Context, MemoryTools
from provider.composition import Services
from provider.config import Settings
from provider.errors import AuthenticationError, UnavailableError
from provider.models import Caller

PATH = "/v1/mcp/memories"


def caller_of(ctx: Context) -> Caller:
    """The member edge.Authentication resolved for the HTTP request this message came in."""
    state = getattr(ctx.request, "state", None)
    caller = getattr(state, "caller", None)
    if not isinstance(caller, Caller):  # only if the edge is not in place: refuse rather than guess
        raise AuthenticationError("A bearer API key is required.")
    return caller


class Endpoint:
    """The route's ASGI app, with a session manager of its own for each run of the app's lifespan.

    The SDK's manager runs once, and an app may be started again (tests do).
    """

    def __init__(self, tools: MemoryTools, settings: Settings):
        self.server = tools.server()
        self.max_body_bytes = settings.max_body_bytes
        self.manager: StreamableHTTPSessionManager | None = None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if self.manager is None:
            raise UnavailableError("The MCP endpoint is not running.")
        await self.manager.handle_request(scope, receive, send)

    @asynccontextmanager
    async def running(self) -> AsyncIterator[None]:
        """Serves while the app's lifespan runs."""
        self.manager = StreamableHTTPSessionManager(
            app=self.server, json_response=True, stateless=True, max_request_body_size=self.max_body_bytes
        )
        try:
            async with self.manager.run():
                yield
        finally:
            self.manager = None


def install(app: FastAPI, settings: Settings) -> Callable[[], AbstractAsyncContextManager[None]]:
    """Adds the route; returns what the app's lifespan must run while it serves."""

    def services() -> Services:
        found: Services = app.state.services
        return found

    endpoint = Endpoint(MemoryTools(services, caller_of), settings)
    app.router.routes.append(Route(PATH, endpoint=endpoint, methods=["POST", "GET", "DELETE"]))
    return endpoint.running
