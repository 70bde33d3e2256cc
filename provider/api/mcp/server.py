"""The MCP server: the official SDK's low-level `Server` with the memory tools.

Tools are listed per caller, calls are answered as fenced data or as short refusals, and the
instructions say where the caller starts.

Transports decide who the caller is (`CallerOf`): over HTTP the edge authenticated the request before
routing and left the caller in the ASGI scope; over stdio it is the member whose key the process was
started with. Everything else is the same for both.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

import mcp.types as types
from mcp.server.context import CallNext, HandlerResult, ServerRequestContext
from mcp.server.lowlevel import Server
from mcp.shared.exceptions import MCPError

from provider import __version__, tracing
from provider.api.mcp import catalog
from provider.api.mcp.calls import prepared, serves
from provider.api.mcp.fence import fenced_off_loop
from provider.api.mcp.standing import RULES, instructions, standing
from provider.composition import Services
from provider.errors import MemoryNotFoundError, ProviderError
from provider.models import Caller
from provider.protocol.wire import use_limits

log = logging.getLogger("provider.mcp")

Context = ServerRequestContext[Any, Any]
CallerOf = Callable[[Context], Caller]
ServicesOf = Callable[[], Services]

NAME = "uhp-memory"
ARGUMENT_NAMES = {"memory_id": "memory", "record_id": "record", "around": "record"}
NOT_FOUND = "There is no memory with that id within your reach."
FAILED = "server_error: The server failed to complete the call; try again."


def refusal(error: ProviderError) -> str:
    """A refusal in one short sentence with its code; an unknown and a hidden memory read alike."""
    message = NOT_FOUND if isinstance(error, MemoryNotFoundError) else error.message
    param = ARGUMENT_NAMES.get(error.param or "", error.param)
    named = f" (argument {param})" if param and not message.startswith(param) else ""
    return f"{error.code}: {message}{named}"


def tool_span(name: str) -> tuple[str, dict[str, str]]:
    """A tool call's span name and attributes: a name the catalogue does not know is not repeated."""
    known = name if name in catalog.BY_NAME else "unknown"
    return f"tools/call {known}", {"mcp.method.name": "tools/call", "gen_ai.tool.name": known}


def _refused(text: str) -> types.CallToolResult:
    return types.CallToolResult(content=[types.TextContent(type="text", text=text)], is_error=True)


class MemoryTools:
    """The handlers the SDK's server calls, over one services container."""

    def __init__(self, services_of: ServicesOf, caller_of: CallerOf):
        self.services_of = services_of
        self.caller_of = caller_of

    def server(self) -> Server[Any]:
        """A low-level SDK server whose instructions are rewritten per caller."""
        server: Server[Any] = Server(
            NAME,
            version=__version__,
            title="UHP memories",
            instructions=RULES,
            on_list_tools=self.list_tools,
            on_call_tool=self.call_tool,
            get_tool_input_schema=catalog.input_schema,
        )
        server.middleware.append(self.instructions)
        return server

    def _caller(self, ctx: Context) -> Caller:
        try:
            return self.caller_of(ctx)
        except ProviderError as e:
            raise MCPError(code=types.INVALID_REQUEST, message=e.message) from None

    async def list_tools(self, ctx: Context, _: types.PaginatedRequestParams | None) -> types.ListToolsResult:
        """The tools this caller is offered: write tools only for one holding write somewhere."""
        services, caller = self.services_of(), self._caller(ctx)
        where = await standing(services, caller)
        tools = catalog.offered(can_write=where.can_write, serves=serves(services))
        return types.ListToolsResult(tools=tools)

    async def call_tool(self, ctx: Context, params: types.CallToolRequestParams) -> types.CallToolResult:
        """One call: checked arguments, the route's service call, a fenced answer; never an exception."""
        services = self.services_of()
        settings = services.settings
        with tracing.span(*tool_span(params.name)) as span, use_limits(settings.limits):
            try:
                handler, call, what = prepared(services, self._caller(ctx), params.name, params.arguments)
                answer = await handler(call)
            except ProviderError as e:
                span.set_attribute("error.type", e.code)
                return _refused(refusal(e))
            except MCPError as e:
                span.set_attribute("error.type", "authentication_error")
                return _refused(f"authentication_error: {e.error.message}")
            except Exception as e:
                span.set_attribute("error.type", type(e).__qualname__)
                log.exception("tool %s failed", params.name)
                return _refused(FAILED)
            text = await fenced_off_loop(answer, cap=settings.mcp_max_result_chars, what=what)
        return types.CallToolResult(content=[types.TextContent(type="text", text=text)])

    async def instructions(self, ctx: Context, call_next: CallNext) -> HandlerResult:
        """Middleware: the handshake's and discovery's instructions name where this caller starts."""
        result = await call_next(ctx)
        if ctx.method not in ("initialize", "server/discover") or not isinstance(result, dict):
            return result
        services = self.services_of()
        try:
            where = await standing(services, self.caller_of(ctx))
        except ProviderError as e:
            log.warning("instructions without the caller's memories: %s", e.message)
            return result
        return {**result, "instructions": instructions(where, cap=services.settings.mcp_max_result_chars)}
