"""Bodies too large to hold in memory: an upload read from a file, a download written to one, in chunks.

A path is opened (and closed) by the client on each attempt; a file the caller opened is read or
written from where it stands, and left open. An upload is sent again on a retry only when it can be
read again from its start (a path, or a seekable file); a download is retried only while nothing of
it has been written, so a retry never leaves a second copy behind the first.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
from collections.abc import AsyncIterator, Iterator
from typing import IO

from provider.client.call import Stream

CHUNK = 64 * 1024


@contextlib.contextmanager
def _opened(target: Stream, mode: str, start: int | None) -> Iterator[IO[bytes]]:
    if isinstance(target, str | os.PathLike):
        with open(target, mode) as handle:
            yield handle
        return
    if start is not None:
        target.seek(start)
    yield target


def _start(target: Stream) -> int | None:
    """Where a caller's seekable file stands now, to go back to on a retry."""
    if isinstance(target, str | os.PathLike) or not target.seekable():
        return None
    return target.tell()


class Source:
    """An upload's body, read from its start on each attempt."""

    def __init__(self, origin: Stream):
        self.origin = origin
        self.start = _start(origin)
        self.repeatable = isinstance(origin, str | os.PathLike) or self.start is not None

    def chunks(self) -> Iterator[bytes]:
        with _opened(self.origin, "rb", self.start) as handle:
            while piece := handle.read(CHUNK):
                yield piece

    async def achunks(self) -> AsyncIterator[bytes]:
        with _opened(self.origin, "rb", self.start) as handle:
            while piece := await asyncio.to_thread(handle.read, CHUNK):
                yield piece


class Sink:
    """A download's destination; `written` counts its bytes, so a broken answer is not retried over it."""

    def __init__(self, target: Stream):
        self.target = target
        self.written = 0

    def pour(self, pieces: Iterator[bytes]) -> int:
        with _opened(self.target, "wb", None) as handle:
            for piece in pieces:
                handle.write(piece)
                self.written += len(piece)
        return self.written

    async def apour(self, pieces: AsyncIterator[bytes]) -> int:
        with _opened(self.target, "wb", None) as handle:
            async for piece in pieces:
                await asyncio.to_thread(handle.write, piece)
                self.written += len(piece)
        return self.written


def source(origin: Stream | None) -> Source | None:
    return None if origin is None else Source(origin)


def sink(target: Stream | None) -> Sink | None:
    return None if target is None else Sink(target)
