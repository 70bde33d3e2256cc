"""`UHP-Bookmark`: a client's reads on any instance start after the writes it was told of.

A request may carry the bookmarks an earlier answer gave (comma-separated); its reads then wait until
the database holds those writes. An answer to a request that wrote carries the bookmarks after its
writes. On one Neo4j server every read already sees every commit, so the header changes nothing
there; on a cluster it is what lets a client read its own writes through another instance
(docs/OPERATIONS.md "Several instances").

The header is read only once the edge has authenticated the caller: a stranger's made-up bookmark
never reaches Neo4j. And the wait is bounded: the database is asked once, within
`UHP_BOOKMARK_WAIT_MS`, to reach the bookmarks; a bookmark still ahead of it then (forged, or from a
database this one is not) is refused with 422 `invalid_input` before the request does anything.
"""

from __future__ import annotations

from fastapi import Request
from starlette.datastructures import Headers, MutableHeaders
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from provider import causality
from provider.api.errors import error_response
from provider.errors import InvalidInputError, ProviderError


class Bookmarks:
    """Opens the request's `causality.Seen` from the header and answers with the one its writes left."""

    def __init__(self, app: ASGIApp):
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope.get("state", {}).get("caller") is None:
            await self.app(scope, receive, send)  # not authenticated: the header is not read
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
            if sent:
                await reached(scope)
        except ProviderError as refusal:
            causality.end(token)
            await error_response(Request(scope), refusal)(scope, receive, send)
            return
        try:
            await self.app(scope, receive, stamped)
        finally:
            causality.end(token)


async def reached(scope: Scope) -> None:
    """Returns once the database holds the bookmarks the request opened with; 422 past the bound."""
    services = scope["app"].state.services
    wait_ms: int = services.settings.bookmark_wait_ms
    if not await services.store.reaches_bookmarks(wait_ms / 1000):
        raise InvalidInputError(
            f"{causality.HEADER} is ahead of the database: it did not reach that point within "
            f"{wait_ms} ms. Send a bookmark an answer gave; if one did, the database is catching up, so "
            "try again shortly.",
            param=causality.HEADER,
            detail={"waited_ms": wait_ms},
        )
