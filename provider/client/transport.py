"""Sending a `Call` over httpx, sync and async: the key, idempotency, retries and typed refusals."""

from __future__ import annotations

import asyncio
import time
import uuid
from collections.abc import AsyncIterator, Iterator
from typing import Any, Self, TypeVar

import httpx

from provider.client import routes
from provider.client.call import Call
from provider.client.errors import refusal
from provider.client.shapes import LOST, AsyncHttp, Http, Reply
from provider.client.streams import CHUNK, Sink, Source, sink, source
from provider.protocol.answers.records import RecordOut
from provider.protocol.answers.tree import MemoryOut

T = TypeVar("T")
RETRIED = frozenset({502, 503, 504})  # the store or a proxy could not answer now; a retry may succeed
IDEMPOTENCY = "Idempotency-Key"


class Again(Exception):
    """A 502/503/504 that a later attempt may get past."""


RETRYABLE: tuple[type[Exception], ...] = (*LOST, Again)


def _headers(key: str | None, on_behalf_of: str | None, call: Call[Any], keyed: bool) -> dict[str, str]:
    headers = dict(call.headers)
    if key:
        headers["Authorization"] = f"Bearer {key}"
    if on_behalf_of:
        headers["UHP-On-Behalf-Of"] = on_behalf_of
    if call.write and keyed:  # made once per call, so every retry of it carries the same key
        headers[IDEMPOTENCY] = uuid.uuid4().hex
    return headers


def _body(call: Call[Any], content: Any) -> dict[str, Any]:
    """The keywords for the call's body: JSON, a multipart form, or chunks read from a file."""
    if content is not None:
        return {"content": content, "json": None, "files": None, "data": None}
    if call.files is not None:
        return {"json": None, "files": call.files, "data": call.data}
    return {"json": call.body, "files": None, "data": None}


def _tries(retries: int, call: Call[Any], keyed: bool, upload: Source | None) -> int:
    """A write without an Idempotency-Key, or an upload that cannot be read again, is sent once."""
    once = (call.write and not keyed) or (upload is not None and not upload.repeatable)
    return 1 if once else retries + 1


def _check(response: Reply, last: bool) -> None:
    if response.status_code in RETRIED and not last:
        raise Again


def _fatal(last: bool, download: Sink | None) -> bool:
    """No attempt is left, or part of a download is written already (a retry would write it twice)."""
    return last or (download is not None and download.written > 0)


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
    write retried after a lost answer or a 503 is done once; `idempotency=False` sends none (a
    bench timing the write alone, not the key's claim) and then sends each write once.
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
        idempotency: bool = True,
    ):
        self.key = key
        self.on_behalf_of = on_behalf_of
        self.retries = retries
        self.idempotency = idempotency
        self._owned = http is None
        self.http: Http = http if http is not None else httpx.Client(base_url=base_url, timeout=timeout)

    def send(self, call: Call[T]) -> T:
        """The call's answer as its model; a refusal raises the chapter's error as an exception."""
        headers = _headers(self.key, self.on_behalf_of, call, self.idempotency)
        upload, download = source(call.upload), sink(call.download)
        tries = _tries(self.retries, call, self.idempotency, upload)
        for attempt in range(tries):
            last = attempt == tries - 1
            try:
                if download is not None:
                    return self._receive(call, headers, download, last)
                content = upload.chunks() if upload is not None else None
                body = _body(call, content)
                response = self.http.request(
                    call.method, call.path, params=call.params or None, headers=headers, **body
                )
                _check(response, last)
                return _answer(call, response)
            except RETRYABLE:
                if _fatal(last, download):
                    raise
                time.sleep(_pause(attempt))
        raise AssertionError("unreachable: the last attempt returns or raises")

    def _receive(self, call: Call[T], headers: dict[str, str], download: Sink, last: bool) -> T:
        """A download: a refusal is read whole, an answer poured into the sink chunk by chunk."""
        with self.http.stream(call.method, call.path, params=call.params or None, headers=headers) as answer:
            _check(answer, last)
            if answer.status_code >= 400:
                answer.read()
                return _answer(call, answer)
            return call.read(download.pour(answer.iter_bytes(CHUNK)))

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
        idempotency: bool = True,
    ):
        self.key = key
        self.on_behalf_of = on_behalf_of
        self.retries = retries
        self.idempotency = idempotency
        self._owned = http is None
        self.http: AsyncHttp = (
            http if http is not None else httpx.AsyncClient(base_url=base_url, timeout=timeout)
        )

    async def send(self, call: Call[T]) -> T:
        """The call's answer as its model; a refusal raises the chapter's error as an exception."""
        headers = _headers(self.key, self.on_behalf_of, call, self.idempotency)
        upload, download = source(call.upload), sink(call.download)
        tries = _tries(self.retries, call, self.idempotency, upload)
        for attempt in range(tries):
            last = attempt == tries - 1
            try:
                if download is not None:
                    return await self._receive(call, headers, download, last)
                content = upload.achunks() if upload is not None else None
                body = _body(call, content)
                response = await self.http.request(
                    call.method, call.path, params=call.params or None, headers=headers, **body
                )
                _check(response, last)
                return _answer(call, response)
            except RETRYABLE:
                if _fatal(last, download):
                    raise
                await asyncio.sleep(_pause(attempt))
        raise AssertionError("unreachable: the last attempt returns or raises")

    async def _receive(self, call: Call[T], headers: dict[str, str], download: Sink, last: bool) -> T:
        """A download: a refusal is read whole, an answer poured into the sink chunk by chunk."""
        stream = self.http.stream(call.method, call.path, params=call.params or None, headers=headers)
        async with stream as answer:
            _check(answer, last)
            if answer.status_code >= 400:
                await answer.aread()
                return _answer(call, answer)
            return call.read(await download.apour(answer.aiter_bytes(CHUNK)))

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
