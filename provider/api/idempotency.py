"""The Idempotency-Key middleware: every write with a key runs once; repeats get the first answer."""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from fastapi import FastAPI, Request, Response

from provider.api.errors import error_response
from provider.errors import ProviderError
from provider.services.idempotency import IdempotencyService, digest

WRITES = ("POST", "PUT", "PATCH", "DELETE")
HEADER = "Idempotency-Key"


def install(app: FastAPI) -> None:
    """Adds the middleware; it runs inside the version check, so refused versions never claim a key."""

    @app.middleware("http")
    async def idempotency(request: Request, call_next: Callable[[Request], Awaitable[Response]]) -> Response:
        key = request.headers.get(HEADER)
        if key is None or request.method not in WRITES:
            return await call_next(request)
        service: IdempotencyService = request.app.state.services.idempotency
        who = digest(request.headers.get("authorization", ""), request.headers.get("uhp-on-behalf-of", ""))
        body = await request.body()
        fingerprint = digest(request.method, request.url.path, request.url.query, body)
        try:
            key_id, replay = await service.begin(who, key, fingerprint)
        except ProviderError as e:
            return error_response(request, e)
        if replay is not None:
            return Response(
                replay.body,
                status_code=replay.status,
                media_type="application/json",
                headers={"Idempotent-Replayed": "true"},
            )
        try:
            response = await call_next(request)
        except Exception:
            await service.abandon(key_id)
            raise
        content = b"".join([chunk async for chunk in response.body_iterator])  # type: ignore[attr-defined]
        await service.finish(key_id, response.status_code, content)
        return Response(content, status_code=response.status_code, headers=dict(response.headers))
