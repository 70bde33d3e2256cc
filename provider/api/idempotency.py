"""The Idempotency-Key middleware: every write with a key runs once; repeats get the first answer.

Plain ASGI (see middleware.py for why): the request body is read once and handed on, the answer
is kept whole, stored, and only then sent, so a repeat never sees a half-finished result.
"""

from __future__ import annotations

from fastapi import FastAPI, Request
from fastapi.responses import Response
from starlette.datastructures import Headers
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from provider.api.errors import error_response
from provider.errors import ProviderError
from provider.services.idempotency import IdempotencyService, digest

WRITES = ("POST", "PUT", "PATCH", "DELETE")
HEADER = "Idempotency-Key"


async def _whole_body(receive: Receive) -> bytes:
    chunks: list[bytes] = []
    while True:
        message = await receive()
        if message["type"] != "http.request":
            break
        chunks.append(message.get("body", b""))
        if not message.get("more_body", False):
            break
    return b"".join(chunks)


class Idempotency:
    """Claims the key, runs the write once, stores its answer, replays it to repeats."""

    def __init__(self, app: ASGIApp):
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] not in WRITES:
            await self.app(scope, receive, send)
            return
        headers = Headers(scope=scope)
        key = headers.get(HEADER)
        if key is None:
            await self.app(scope, receive, send)
            return
        request = Request(scope)
        service: IdempotencyService = scope["app"].state.services.idempotency
        who = digest(headers.get("authorization", ""), headers.get("uhp-on-behalf-of", ""))
        body = await _whole_body(receive)
        fingerprint = digest(scope["method"], scope["path"], request.url.query, body)
        try:
            key_id, replay = await service.begin(who, key, fingerprint)
        except ProviderError as e:
            await error_response(request, e)(scope, receive, send)
            return
        if replay is not None:
            answer = Response(
                replay.body,
                status_code=replay.status,
                media_type="application/json",
                headers={"Idempotent-Replayed": "true"},
            )
            await answer(scope, receive, send)
            return
        await self._run_once(scope, body, receive, send, service, key_id)

    async def _run_once(
        self,
        scope: Scope,
        body: bytes,
        receive: Receive,
        send: Send,
        service: IdempotencyService,
        key_id: str,
    ) -> None:
        delivered = False

        async def replay_body() -> Message:
            nonlocal delivered
            if not delivered:
                delivered = True
                return {"type": "http.request", "body": body, "more_body": False}
            return await receive()

        held: list[Message] = []

        async def hold(message: Message) -> None:
            held.append(message)

        try:
            await self.app(scope, replay_body, hold)
        except Exception:
            await service.abandon(key_id)
            raise
        start = next((m for m in held if m["type"] == "http.response.start"), None)
        content = b"".join(m.get("body", b"") for m in held if m["type"] == "http.response.body")
        await service.finish(key_id, start["status"] if start else 500, content)
        for message in held:
            await send(message)


def install(app: FastAPI) -> None:
    """Adds the middleware; installed before the version check, so it runs inside it."""
    app.add_middleware(Idempotency)
