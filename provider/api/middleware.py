"""Per-request plumbing: a request id, the protocol version check and the UHP-Version header.

`install` also puts the edge (edge.py) in place, in the one order that holds: the version check
outermost (every answer, a refusal too, carries UHP-Version), then authentication (a stranger's body
is never read), then the request's bookmarks (bookmarks.py: only an authenticated caller's header
reaches the database), then the body cap, then whatever reads the body (Idempotency-Key, the routes).

Written as plain ASGI rather than `@app.middleware("http")`: Starlette's BaseHTTPMiddleware copies
every response through a stream and an extra task, which cost a few milliseconds per request.
"""

from __future__ import annotations

import uuid
from typing import Any

from fastapi import FastAPI, Request
from starlette.datastructures import Headers, MutableHeaders
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from provider import PROTOCOL_VERSION
from provider.api import observability
from provider.api.admission import Budgets, FairTurns
from provider.api.bookmarks import Bookmarks
from provider.api.edge import Authentication, BodyLimit
from provider.api.errors import error_response
from provider.api.idempotency import Idempotency, Replayed, replayed
from provider.api.limits import RequestLimits
from provider.config import Settings
from provider.errors import UnsupportedVersionError
from provider.fairness import principal_labels
from provider.protocol.discovery import SUPPORTED_VERSIONS

VERSION_HEADER = "UHP-Version"


class ProtocolVersion:
    """Refuses versions the server does not speak and names the version of every answer."""

    def __init__(self, app: ASGIApp):
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        request_id = "req_" + uuid.uuid4().hex
        scope.setdefault("state", {})["request_id"] = request_id
        asked = Headers(scope=scope).get(VERSION_HEADER)
        spoken = asked if asked in SUPPORTED_VERSIONS else PROTOCOL_VERSION

        async def stamped(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = MutableHeaders(scope=message)
                headers[VERSION_HEADER] = spoken
                headers["X-Request-Id"] = request_id
            await send(message)

        if asked is not None and asked not in SUPPORTED_VERSIONS:
            refusal = UnsupportedVersionError(
                "This server does not speak that protocol version.",
                param=VERSION_HEADER,
                detail={"supported": list(SUPPORTED_VERSIONS)},
            )
            await error_response(Request(scope), refusal)(scope, receive, stamped)
            return
        await self.app(scope, receive, stamped)


def install(app: FastAPI, settings: Settings) -> None:
    """Every ASGI layer, in one list, outermost first: each wraps all of those after it."""
    body_bounds = {
        "max_body_bytes": settings.max_body_bytes,
        "max_upload_bytes": settings.max_upload_bytes,
        "max_restore_bytes": settings.max_restore_bytes,
    }
    labels = principal_labels(settings.metrics_principals)
    layers: list[tuple[type[Any], dict[str, Any]]] = [
        # First: a request in a protocol version this server does not speak is refused before anything
        # else reads it.
        (ProtocolVersion, {}),
        # A span per request past that (when tracing is on), current for every layer below, so the
        # request's log line and every statement, embedding and sandbox call are the request's.
        (observability.Traced, {}),
        # Counts and times every request past that, and gives it the request id its log lines carry.
        (observability.Observed, {}),
        # Who calls: every layer below knows the caller, or the request was answered 401.
        (Authentication, {}),
        # A known caller past its budgets is refused before anything else is done for it.
        (Budgets, {"settings": settings, "labels": labels}),
        # Inside authentication: a stranger's bookmark is never read, let alone waited on.
        (Bookmarks, {}),
        # Bodies are bounded before any layer below, or a route, reads one.
        (BodyLimit, body_bounds),
        # With its (capped) body read, a request waits for a slot of its class in its principal's turn.
        (FairTurns, {}),
        # A replay needs the caller and a bounded body.
        (Idempotency, {}),
        # Innermost: the bounds the request models read while a route parses its body.
        (RequestLimits, {"limits": settings.limits}),
    ]
    for layer, options in reversed(layers):  # Starlette: the layer added last is the outermost
        app.add_middleware(layer, **options)
    observability.install_metrics(app, settings.metrics)
    app.add_exception_handler(Replayed, replayed)
