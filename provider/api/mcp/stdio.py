"""`python -m provider mcp`: the memory tools over stdio, for desktop MCP clients.

The process runs as one member: the key in `UHP_API_KEY` (a server key may add the member it acts
for in `UHP_ON_BEHALF_OF`) is resolved by IdentityService at start, as the edge resolves a bearer
key, and a process without a valid key does not start. The services are the app's own: the same
composition root and lifespan (`create_app`), talking to Neo4j directly. stdout carries only the
protocol; every log line goes to stderr.
"""

from __future__ import annotations

import asyncio
import logging
import os
import secrets
import sys

from mcp.server.stdio import stdio_server
from pydantic import SecretStr

from provider.api.app import create_app
from provider.api.mcp.server import Context, MemoryTools
from provider.composition import Services
from provider.config import Settings
from provider.errors import ProviderError
from provider.models import Caller

KEY = "UHP_API_KEY"
ON_BEHALF_OF = "UHP_ON_BEHALF_OF"


async def serve(settings: Settings, key: str | None, on_behalf_of: str | None) -> int:
    """Starts the services, authenticates the key, then serves stdin/stdout until the client goes."""
    app = create_app(settings)
    async with app.router.lifespan_context(app):
        services: Services = app.state.services
        try:
            caller = await services.identity.authenticate(key, on_behalf_of)
        except ProviderError as e:
            print(f"mcp: {e.message} Set {KEY} to a member's key.", file=sys.stderr)
            return 2

        def caller_of(_: Context) -> Caller:
            return caller

        server = MemoryTools(lambda: services, caller_of).server()
        logging.getLogger("provider.mcp").info("serving MCP over stdio as %s", caller.principal)
        async with stdio_server() as (read, write):
            await server.run(read, write, server.create_initialization_options())
    return 0


def main() -> int:
    """The command: settings from the environment, logs to stderr."""
    logging.basicConfig(
        level=logging.WARNING, stream=sys.stderr, format="%(asctime)s %(levelname)s %(name)s %(message)s"
    )
    # No admin surface is served here: without an admin key set, one nobody knows stands in for it.
    if os.environ.get("UHP_ADMIN_KEY"):
        settings = Settings()
    else:
        settings = Settings(admin_key=SecretStr(secrets.token_urlsafe(32)))
    if not settings.neo4j.uri:
        print("mcp: set NEO4J_URI (and NEO4J_USER, NEO4J_PASSWORD)", file=sys.stderr)
        return 2
    key = os.environ.get(KEY, "").strip()
    if not key:
        print(f"mcp: set {KEY} to the key of the member the tools act for", file=sys.stderr)
        return 2
    return asyncio.run(serve(settings, key, os.environ.get(ON_BEHALF_OF) or None))
