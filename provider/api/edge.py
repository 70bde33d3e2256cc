"""What the edge refuses before routing: a request without a valid key, and a body past its cap.

Plain ASGI (see middleware.py for why). Authentication runs before the body is read, so a stranger
can make the server read nothing; the body cap runs before any middleware or route that buffers it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from fastapi import Request
from fastapi.responses import JSONResponse
from starlette.datastructures import Headers
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from provider.api.errors import error_response, request_id
from provider.errors import FileTooLargeError, ProviderError, TooLargeError
from provider.models import Caller
from provider.protocol.errors import envelope
from provider.services.tree.identity import AdminCaller, IdentityService

PUBLIC = frozenset({("GET", "/v1/uhp")})  # discovery: the one /v1 answer that needs no key
UPLOAD = ("POST", "/v1/files")
RESTORE = re.compile(r"/v1/memories/[^/]+/restore")


def route_path(scope: Scope) -> str:
    """The path the router matches: without the root path a proxy mounted the app under."""
    path: str = scope["path"]
    root: str = scope.get("root_path", "")
    return path[len(root) :] if root and path.startswith(root) else path


def bearer(authorization: str | None) -> str | None:
    """The token of `Authorization: Bearer <token>`; None for any other scheme or an empty token."""
    if not authorization:
        return None
    scheme, _, token = authorization.partition(" ")
    return token.strip() if scheme.lower() == "bearer" and token.strip() else None


class Authentication:
    """Resolves the caller of every `/v1` request but discovery, before routing and before the body.

    `/v1/admin/...` takes the admin key, everything else a member's or a server's key; the caller
    goes into `scope["state"]["caller"]`, where `deps.get_caller` and `deps.get_admin` read it.
    """

    def __init__(self, app: ASGIApp):
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        path = route_path(scope) if scope["type"] == "http" else ""
        if not (path == "/v1" or path.startswith("/v1/")) or (scope["method"], path) in PUBLIC:
            await self.app(scope, receive, send)
            return
        identity: IdentityService = scope["app"].state.services.identity
        headers = Headers(scope=scope)
        key = bearer(headers.get("authorization"))
        try:
            caller: Caller | AdminCaller
            if path == "/v1/admin" or path.startswith("/v1/admin/"):
                caller = identity.authenticate_admin(key)
            else:
                caller = await identity.authenticate(key, headers.get("uhp-on-behalf-of"))
        except ProviderError as e:
            await error_response(Request(scope), e)(scope, receive, send)  # never calls receive
            return
        scope.setdefault("state", {})["caller"] = caller
        await self.app(scope, receive, send)


class _Overflow(Exception):
    """Raised into the app from `receive` when the body passes its cap; the app never sees the rest."""


@dataclass
class _Count:
    cap: int
    seen: int = 0
    over: bool = False
    started: bool = False


class BodyLimit:
    """413 for a body past its cap: at once from Content-Length, or while it streams in.

    The cap is UHP_MAX_UPLOAD_BYTES for `POST /v1/files`, UHP_MAX_RESTORE_BYTES for an archive sent
    to `POST /v1/memories/{id}/restore`, and UHP_MAX_BODY_BYTES for anything else.
    A chunked body is counted as it arrives: the message that passes the cap is not handed on, the
    app's answer to the cut-off body is dropped, and the 413 goes out in its place.
    """

    def __init__(
        self,
        app: ASGIApp,
        *,
        max_body_bytes: int,
        max_upload_bytes: int,
        max_restore_bytes: int | None = None,
    ):
        self.app = app
        self.max_body_bytes = max_body_bytes
        self.max_upload_bytes = max_upload_bytes
        self.max_restore_bytes = max_restore_bytes or max_body_bytes

    def _limit(self, scope: Scope) -> tuple[int, ProviderError]:
        if (scope["method"], route_path(scope)) == UPLOAD:
            cap = self.max_upload_bytes
            return cap, FileTooLargeError(f"An upload is at most {cap} bytes.", detail={"limit": cap})
        if scope["method"] == "POST" and RESTORE.fullmatch(route_path(scope)):
            cap = self.max_restore_bytes
            return cap, TooLargeError(f"An archive to restore is at most {cap} bytes.", detail={"limit": cap})
        cap = self.max_body_bytes
        return cap, TooLargeError(f"A request body is at most {cap} bytes.", detail={"limit": cap})

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        cap, refusal = self._limit(scope)
        declared = Headers(scope=scope).get("content-length", "")
        if declared.isdigit() and int(declared) > cap:
            await _refuse(scope, refusal, receive, send)
            return
        count = _Count(cap)
        try:
            await self.app(scope, _counted(receive, count), _guarded(send, count))
        except Exception:
            if not count.over:
                raise
        if count.over and not count.started:
            await _refuse(scope, refusal, receive, send)


def _counted(receive: Receive, count: _Count) -> Receive:
    async def counted() -> Message:
        message = await receive()
        if message["type"] == "http.request":
            count.seen += len(message.get("body", b""))
            if count.seen > count.cap:
                count.over = True
                raise _Overflow
        return message

    return counted


def _guarded(send: Send, count: _Count) -> Send:
    async def guarded(message: Message) -> None:
        if count.over:
            return  # whatever the app answers to a body it never had whole
        if message["type"] == "http.response.start":
            count.started = True
        await send(message)

    return guarded


async def _refuse(scope: Scope, error: ProviderError, receive: Receive, send: Send) -> None:
    # 413 is outside the error table (its rows map kinds, not sizes), so the envelope is built here.
    answer = JSONResponse(
        envelope(error, request_id(Request(scope))), status_code=413, headers={"Connection": "close"}
    )
    await answer(scope, receive, send)
