"""The app: `create_app(settings)` serves the services the runtime opens for its lifespan."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager

from fastapi import FastAPI
from fastapi.telemetry import TelemetryConfig

from provider import __version__, tracing
from provider.api import errors, explorer, middleware
from provider.api.mcp import http as mcp_http
from provider.api.routes import MOUNTED
from provider.config import Settings
from provider.embeddings import Embedder
from provider.runtime import running


@contextlib.contextmanager
def traces_from_environment() -> Iterator[None]:
    """Tracing on for the app's life when OTEL_* variables ask (provider/tracing.py); flushed at the end."""
    started = tracing.configure()
    try:
        yield
    finally:
        if started:
            tracing.shutdown()


def create_app(settings: Settings, embedder: Embedder | None = None) -> FastAPI:
    """An app whose lifespan connects to Neo4j, applies the schema and loads the model."""

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        with traces_from_environment():
            async with serving(app):
                yield

    @asynccontextmanager
    async def serving(app: FastAPI) -> AsyncIterator[None]:
        async with running(settings, embedder=embedder, serve=True) as runtime:
            services = app.state.services = runtime.services
            sweeping: asyncio.Task[None] | None = None
            try:
                # At start-up and then on a schedule: what a process that died left is finished or cleared.
                if settings.sweep_seconds:
                    sweeping = asyncio.create_task(services.sweeper.run())
                async with mcp_endpoint():
                    yield
            finally:
                if sweeping is not None:
                    sweeping.cancel()
                    with contextlib.suppress(asyncio.CancelledError):
                        await sweeping

    # FastAPI's own telemetry stays off whatever global provider is set: it would record url.query.
    quiet: TelemetryConfig = {"tracing": False, "metrics": False, "logs": False}
    app = FastAPI(title="uhp-memory", version=__version__, lifespan=lifespan, telemetry=quiet)
    middleware.install(app, settings)
    errors.install(app)
    for module in MOUNTED:
        app.include_router(module.router)
    mcp_endpoint = mcp_http.install(app, settings)
    explorer.install(app, settings)
    return app
