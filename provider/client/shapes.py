"""What the client needs of an HTTP client: httpx's, or one shaped like it (Starlette's TestClient)."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Iterator
from contextlib import AbstractAsyncContextManager, AbstractContextManager
from typing import Any, Protocol

import httpx

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


class Streamed(Reply, Protocol):
    """An answer whose body is read in chunks (`httpx.Client.stream`)."""

    def read(self) -> bytes: ...

    def iter_bytes(self, chunk_size: int | None = ...) -> Iterator[bytes]: ...


class AsyncStreamed(Reply, Protocol):
    """The same, read by an event loop."""

    async def aread(self) -> bytes: ...

    def aiter_bytes(self, chunk_size: int | None = ...) -> AsyncIterator[bytes]: ...


class Http(Protocol):
    """A synchronous HTTP client: `httpx.Client`, or one shaped like it (Starlette's TestClient)."""

    def request(
        self,
        method: str,
        url: str,
        *,
        content: Any = ...,
        params: Any = ...,
        headers: Any = ...,
        json: Any = ...,
        files: Any = ...,
        data: Any = ...,
    ) -> Reply: ...

    def stream(
        self, method: str, url: str, *, params: Any = ..., headers: Any = ...
    ) -> AbstractContextManager[Streamed]: ...

    def close(self) -> None: ...


class AsyncHttp(Protocol):
    """An asynchronous HTTP client: `httpx.AsyncClient`, or one shaped like it."""

    async def request(
        self,
        method: str,
        url: str,
        *,
        content: Any = ...,
        params: Any = ...,
        headers: Any = ...,
        json: Any = ...,
        files: Any = ...,
        data: Any = ...,
    ) -> Reply: ...

    def stream(
        self, method: str, url: str, *, params: Any = ..., headers: Any = ...
    ) -> AbstractAsyncContextManager[AsyncStreamed]: ...

    async def aclose(self) -> None: ...
