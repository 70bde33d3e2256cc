"""Idempotency-Key over HTTP, at the service level: authenticated, authorized, then claimed or replayed.

Two halves. The `Idempotency` middleware (plain ASGI: see middleware.py) only reads the body once,
fingerprints it, holds the answer whole, and stores it when the route claimed the key. The route
dependency `idempotent(privilege)` decides: it runs after the edge authenticated the caller, checks
that the caller still holds the privilege the write needs (a replay is never shown to one who lost
it), and then claims the key or answers with the stored reply. Routes without the dependency (reads
such as recall, graph and query) ignore the header. A restore ignores it before its body is read: an
archive (up to UHP_MAX_RESTORE_BYTES) is never held in memory, and a restore is safe to repeat anyway.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from dataclasses import dataclass, field
from typing import Any

from fastapi import Depends, Request
from fastapi.responses import Response
from starlette.datastructures import Headers
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from provider.api.edge import RESTORE, route_path
from provider.errors import ConflictError, ProviderError
from provider.models import Caller
from provider.protocol.errors import envelope
from provider.services.records.idempotency import Claim, IdempotencyService, Replay, digest

log = logging.getLogger("provider.api.idempotency")
WRITES = ("POST", "PUT", "PATCH", "DELETE")
HEADER = "Idempotency-Key"
SHOWN_ONCE = "uhp_memory.shown_once"


@dataclass
class Pending:
    """What the middleware hands the route, and what the route hands back."""

    key: str
    fingerprint: str
    claim: Claim | None = None
    secret: bool = False
    holder: asyncio.Task[None] | None = field(default=None, repr=False)


class Replayed(Exception):
    """Raised by the dependency to answer with a stored reply instead of running the route."""

    def __init__(self, replay: Replay):
        super().__init__("replayed")
        self.replay = replay


def pending_of(request: Request) -> Pending | None:
    """The key this request carries, if its route honours one."""
    found = getattr(request.state, "idempotency", None)
    return found if isinstance(found, Pending) else None


def seed_of(request: Request) -> str | None:
    """The seed a write derives its new ids from when it runs under a key (None otherwise)."""
    pending = pending_of(request)
    return pending.claim.seed if pending and pending.claim else None


def principal_of(caller: object) -> str:
    """Whose keys these are: a member's principal, or the operator."""
    return caller.principal if isinstance(caller, Caller) else "admin"


def idempotent(privilege: str | None = None, *, secret: bool = False) -> Any:
    """A route dependency: authorize for `privilege` on the path's memory, then claim or replay."""

    async def claim_or_replay(request: Request) -> None:
        pending = pending_of(request)
        if pending is None:
            return
        services = request.app.state.services
        caller = getattr(request.state, "caller", None)
        memory_id = request.path_params.get("memory_id")
        if privilege and memory_id and isinstance(caller, Caller):
            await services.tree.require(caller, memory_id, privilege)
        outcome = await services.idempotency.begin(principal_of(caller), pending.key, pending.fingerprint)
        if isinstance(outcome, Replay):
            raise Replayed(outcome)
        pending.claim, pending.secret = outcome, secret
        pending.holder = asyncio.create_task(services.idempotency.hold(outcome))

    return Depends(claim_or_replay)


def _redacted(status: int, body: bytes, request_id: str) -> tuple[int, bytes]:
    """A secret's answer is never stored: its replay says it was shown once."""
    if status >= 400:
        return status, body
    error = ConflictError(
        "The first request with this Idempotency-Key made a secret, shown once and not kept; "
        "if it was lost, revoke it and make another."
    )
    error.code = SHOWN_ONCE
    return 409, json.dumps(envelope(error, request_id)).encode()


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


def _streams_its_body(scope: Scope) -> bool:
    """A restore's archive goes to disk as it arrives; fingerprinting it would hold it all in memory."""
    return scope["method"] == "POST" and RESTORE.fullmatch(route_path(scope)) is not None


class Idempotency:
    """Fingerprints a keyed write, holds its answer, and stores it when the route claimed the key."""

    def __init__(self, app: ASGIApp):
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        key = Headers(scope=scope).get(HEADER) if scope["type"] == "http" else None
        if key is None or scope["method"] not in WRITES or _streams_its_body(scope):
            await self.app(scope, receive, send)
            return
        body = await _whole_body(receive)
        fingerprint = digest(scope["method"], scope["path"], scope.get("query_string", b""), body)
        pending = Pending(key=key, fingerprint=fingerprint)
        scope.setdefault("state", {})["idempotency"] = pending
        held: list[Message] = []
        delivered = False

        async def replay_body() -> Message:
            nonlocal delivered
            if not delivered:
                delivered = True
                return {"type": "http.request", "body": body, "more_body": False}
            return await receive()

        async def hold(message: Message) -> None:
            held.append(message)

        service: IdempotencyService = scope["app"].state.services.idempotency
        try:
            await self.app(scope, replay_body, hold)
        except BaseException:
            await self._settle(pending, service, None)
            raise
        await self._settle(pending, service, held, scope)
        for message in held:
            await send(message)

    @staticmethod
    async def _settle(
        pending: Pending, service: IdempotencyService, held: list[Message] | None, scope: Scope | None = None
    ) -> None:
        if pending.holder is not None:
            pending.holder.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await pending.holder
        if pending.claim is None:
            return
        try:
            await Idempotency._record(pending, service, held, scope)
        except ProviderError:
            # The store went away after the route answered: the client still gets the route's own
            # answer; the key stays pending under its lease, and a retry takes it over and, with the
            # ids derived from the key, finds what this request wrote.
            log.warning("could not settle an Idempotency-Key; its lease will run out", exc_info=True)

    @staticmethod
    async def _record(
        pending: Pending, service: IdempotencyService, held: list[Message] | None, scope: Scope | None
    ) -> None:
        assert pending.claim is not None
        if held is None:
            await service.abandon(pending.claim)
            return
        start = next((m for m in held if m["type"] == "http.response.start"), None)
        content = b"".join(m.get("body", b"") for m in held if m["type"] == "http.response.body")
        status = start["status"] if start else 500
        kept = None
        if pending.secret and scope is not None:
            kept = _redacted(status, content, str(scope.get("state", {}).get("request_id", "")))
        await service.finish(pending.claim, status, content, kept=kept)


async def replayed(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, Replayed)
    return Response(
        exc.replay.body,
        status_code=exc.replay.status,
        media_type="application/json",
        headers={"Idempotent-Replayed": "true"},
    )
