"""`UHP-Bookmark`: a client's reads on any instance start after the writes it was told of.

A request may carry the bookmarks an earlier answer gave (comma-separated); its reads then wait until
the database holds those writes. An answer to a request that wrote carries the bookmarks after its
writes. On one Neo4j server every read already sees every commit, so the header changes nothing
there; on a cluster it is what lets a client read its own writes through another instance
(README "Several instances").
"""

from __future__ import annotations

from fastapi import Request
from starlette.datastructures import Headers, MutableHeaders
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from provider import causality
from provider.api.errors import error_response
from provider.errors import InvalidInputError


class Bookmarks:
    """Opens the request's `causality.Seen` from the header and answers with the one its writes left."""

    def __init__(self, app: ASGIApp):
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        try:
            sent = causality.parse(Headers(scope=scope).get(causality.HEADER, ""))
        except InvalidInputError as refusal:
            await error_response(Request(scope), refusal)(scope, receive, send)
            return
        token = causality.begin(sent)
        seen = causality.current()

        async def stamped(message: Message) -> None:
            if message["type"] == "http.response.start" and seen is not None and seen.after_writes:
                MutableHeaders(scope=message)[causality.HEADER] = causality.render(seen.after_writes)
            await send(message)

        try:
            await self.app(scope, receive, stamped)
        finally:
            causality.end(token)
