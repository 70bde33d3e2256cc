"""Per-request plumbing: a request id, the protocol version check and the UHP-Version header."""

from __future__ import annotations

import uuid
from collections.abc import Awaitable, Callable

from fastapi import FastAPI, Request, Response

from provider import PROTOCOL_VERSION
from provider.api.errors import error_response
from provider.errors import UnsupportedVersionError
from provider.protocol.discovery import SUPPORTED_VERSIONS

VERSION_HEADER = "UHP-Version"


def install(app: FastAPI) -> None:
    """Adds the middleware to the app."""

    @app.middleware("http")
    async def protocol_version(
        request: Request, call_next: Callable[[Request], Awaitable[Response]]
    ) -> Response:
        request.state.request_id = "req_" + uuid.uuid4().hex
        asked = request.headers.get(VERSION_HEADER)
        if asked is not None and asked not in SUPPORTED_VERSIONS:
            response: Response = error_response(
                request,
                UnsupportedVersionError(
                    "This server does not speak that protocol version.",
                    param=VERSION_HEADER,
                    detail={"supported": list(SUPPORTED_VERSIONS)},
                ),
            )
        else:
            response = await call_next(request)
        response.headers[VERSION_HEADER] = asked if asked in SUPPORTED_VERSIONS else PROTOCOL_VERSION
        response.headers["X-Request-Id"] = request.state.request_id
        return response
