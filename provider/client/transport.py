"""Sending a `Call` over httpx, sync and async: the key, idempotency, retries and typed refusals."""

from __future__ import annotations

import asyncio
import contextlib
import time
import uuid
from collections.abc import AsyncIterator, Iterator
from typing import Any, Protocol, Self, TypeVar

import httpx

from provider.client import routes
from provider.client.call import Call
from provider.client.errors import refusal
from provider.protocol.answers.records import RecordOut
from provider.protocol.answers.tree import MemoryOut

T = TypeVar("T")
RETRIED = frozenset({502, 503, 504})  # the store or a proxy could not answer now; a retry may succeed
IDEMPOTENCY = "Idempotency-Key"
LOST: tuple[type[Exception], ...] = (httpx.TransportError,)  # the request or its answer went missing
with contextlib.suppress(ImportError):  # Starlette's TestClient speaks httpx2, httpx's fork
    import httpx2

    LOST = (httpx.TransportError, httpx2.TransportError)


class Reply(Protocol):
    """What the client reads of an answer: httpx's Response, or any with the same three members."""

    @property
    def status_code(self) -> int: ...

    @property
    def content(self) -> bytes: ...

    def json(self) -> Any: ...


class Http(Protocol):
    """A synchronous HTTP client: `httpx.Client`, or one shaped like it (Starlette's TestClient)."""

    def request(
        self,
        method: str,
        url: str,
        *,
        params: Any = ...,
        headers: Any = ...,
        json: Any = ...,
        files: Any = ...,
        data: Any = ...,
    ) -> Reply: ...

    def close(self) -> None: ...


class AsyncHttp(Protocol):
    """An asynchronous HTTP client: `httpx.AsyncClient`, or one shaped like it."""

    async def request(
        self,
        method: str,
        url: str,
        *,
        params: Any = ...,
        headers: Any = ...,
        json: Any = ...,
        files: Any = ...,
        data: Any = ...,
    ) -> Reply: ...

    async def aclose(self) -> None: ...


def _headers(key: str | None, on_behalf_of: str | None, call: Call[Any]) -> dict[str, str]:
    headers = dict(call.headers)
    if key:
        headers["Authorization"] = f"Bearer {key}"
    if on_behalf_of:
        headers["UHP-On-Behalf-Of"] = on_behalf_of
    if call.write:  # made once per call, so every retry of it carries the same key
        headers[IDEMPOTENCY] = uuid.uuid4().hex
    return headers


def _body(call: Call[Any]) -> dict[str, Any]:
    """The keywords for the call's body: JSON, or a multipart form."""
    if call.files is not None:
        return {"json": None, "files": call.files, "data": call.data}
    return {"json": call.body, "files": None, "data": None}


def _answer(call: Call[T], response: Reply) -> T:
    if response.status_code >= 400:
        try:
            payload = response.json()
        except ValueError:
            payload = None
        raise refusal(response.status_code, payload)
    if call.raw:
        return call.read(response.content)
    return call.read(response.json())


def _pause(attempt: int) -> float:
    return min(0.2 * 2.0**attempt, 2.0)


class SyncTransport:
    """A member's (or a server's) connection to the service.

    `http` may be an `httpx.Client` or one shaped like it (Starlette's TestClient); without one, a
    client on `base_url` is made and closed with this one. Writes carry an Idempotency-Key, so a
    write retried after a lost answer or a 503 is done once.
    """

    def __init__(
        self,
        base_url: str = "",
        key: str | None = None,
        *,
        on_behalf_of: str | None = None,
        http: Http | None = None,
        timeout: float = 60.0,
        retries: int = 2,
    ):
        self.key = key
        self.on_behalf_of = on_behalf_of
        self.retries = retries
        self._owned = http is None
        self.http: Http = http if http is not None else httpx.Client(base_url=base_url, timeout=timeout)

    def send(self, call: Call[T]) -> T:
        """The call's answer as its model; a refusal raises the chapter's error as an exception."""
        headers = _headers(self.key, self.on_behalf_of, call)
        for attempt in range(self.retries + 1):
            last = attempt == self.retries
            try:
                response = self.http.request(
                    call.method, call.path, params=call.params or None, headers=headers, **_body(call)
                )
            except LOST:
                if last:
                    raise
                time.sleep(_pause(attempt))
                continue
            if response.status_code in RETRIED and not last:
                time.sleep(_pause(attempt))
                continue
            return _answer(call, response)
        raise AssertionError("unreachable: the last attempt returns or raises")

    def iter_memories(self, **listing: Any) -> Iterator[MemoryOut]:
        """Every memory of a listing (`parent`, `ancestor`, `granted`), page after page."""
        cursor: str | None = None
        while True:
            page = self.send(routes.list_memories(cursor=cursor, **listing))
            yield from page.data
            if not isinstance(page.next, str) or not page.next:
                return
            cursor = page.next

    def iter_records(self, memory_id: str, **listing: Any) -> Iterator[RecordOut]:
        """Every record of a memory (`type`, `include`, `as_of`), page after page."""
        cursor: str | None = None
        while True:
            page = self.send(routes.list_records(memory_id, cursor=cursor, **listing))
            yield from page.data
            if not isinstance(page.next, str) or not page.next:
                return
            cursor = page.next

    def close(self) -> None:
        if self._owned:
            self.http.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()


class AsyncTransport:
    """The same, on `httpx.AsyncClient`, for agents and services that run an event loop."""

    def __init__(
        self,
        base_url: str = "",
        key: str | None = None,
        *,
        on_behalf_of: str | None = None,
        http: AsyncHttp | None = None,
        timeout: float = 60.0,
        retries: int = 2,
    ):
        self.key = key
        self.on_behalf_of = on_behalf_of
        self.retries = retries
        self._owned = http is None
        self.http: AsyncHttp = (
            http if http is not None else httpx.AsyncClient(base_url=base_url, timeout=timeout)
        )

    async def send(self, call: Call[T]) -> T:
        """The call's answer as its model; a refusal raises the chapter's error as an exception."""
        headers = _headers(self.key, self.on_behalf_of, call)
        for attempt in range(self.retries + 1):
            last = attempt == self.retries
            try:
                response = await self.http.request(
                    call.method, call.path, params=call.params or None, headers=headers, **_body(call)
                )
            except LOST:
                if last:
                    raise
                await asyncio.sleep(_pause(attempt))
                continue
            if response.status_code in RETRIED and not last:
                await asyncio.sleep(_pause(attempt))
                continue
            return _answer(call, response)
        raise AssertionError("unreachable: the last attempt returns or raises")

    async def iter_memories(self, **listing: Any) -> AsyncIterator[MemoryOut]:
        """Every memory of a listing (`parent`, `ancestor`, `granted`), page after page."""
        cursor: str | None = None
        while True:
            page = await self.send(routes.list_memories(cursor=cursor, **listing))
            for memory in page.data:
                yield memory
            if not isinstance(page.next, str) or not page.next:
                return
            cursor = page.next

    async def iter_records(self, memory_id: str, **listing: Any) -> AsyncIterator[RecordOut]:
        """Every record of a memory (`type`, `include`, `as_of`), page after page."""
        cursor: str | None = None
        while True:
            page = await self.send(routes.list_records(memory_id, cursor=cursor, **listing))
            for record in page.data:
                yield record
            if not isinstance(page.next, str) or not page.next:
                return
            cursor = page.next

    async def aclose(self) -> None:
        if self._owned:
            await self.http.aclose()

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(self, *_: object) -> None:
        await self.aclose()
