"""Puts the configured request bounds in place for each request, where the wire models read them."""

from __future__ import annotations

from starlette.types import ASGIApp, Receive, Scope, Send

from provider.config import Limits
from provider.protocol.wire import use_limits


class RequestLimits:
    """Plain ASGI (see middleware.py): the body's validation runs inside, in the same context."""

    def __init__(self, app: ASGIApp, limits: Limits):
        self.app = app
        self.limits = limits

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        with use_limits(self.limits):
            await self.app(scope, receive, send)
