"""File bytes, kept content-addressed outside Neo4j behind a small interface: a directory or an S3 bucket.

The directory (`directory.py`) serves one instance; several instances behind a load balancer share an
S3-compatible bucket (`s3.py`), since a file uploaded through one must be readable through the others.
Every method blocks (disk or network I/O): services call them off the event loop.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import TYPE_CHECKING, Protocol

from provider.blobs.directory import INCOMING, DirectoryBlobStore

if TYPE_CHECKING:
    from provider.config import Settings

__all__ = ["INCOMING", "BlobReader", "BlobStore", "DirectoryBlobStore", "StagedBlob", "chunks", "configured"]

CHUNK_BYTES = 1024 * 1024  # one read of a file's bytes on their way out


class StagedBlob(Protocol):
    """Bytes on their way in: written piece by piece, hashed as they come, kept or discarded once."""

    size: int

    def write(self, data: bytes) -> None:
        """Appends bytes."""
        ...

    def digest(self) -> str:
        """The SHA-256 of the bytes written so far: the address they will be kept at."""
        ...

    def keep(self) -> str:
        """Moves the bytes to their address; returns their SHA-256."""
        ...

    def discard(self) -> None:
        """Removes what was written; does nothing once kept."""
        ...


class BlobReader(Protocol):
    """Kept bytes on their way out, read a piece at a time so a large file is never held whole."""

    def read(self, size: int, /) -> bytes:
        """Up to `size` bytes; empty at the end."""
        ...

    def close(self) -> None:
        """Gives back the file or the connection."""
        ...


class BlobStore(Protocol):
    """Where file bytes live, by the SHA-256 of their content."""

    def stage(self) -> StagedBlob:
        """Somewhere to stream new bytes before their address is known."""
        ...

    def open(self, digest: str) -> BlobReader:
        """The bytes at an address; FileNotFoundError when absent (raised here, before any byte)."""
        ...

    def exists(self, digest: str) -> bool:
        """Whether bytes are kept at an address."""
        ...

    def sweep_incoming(self, older_than_seconds: float) -> int:
        """Removes uploads a dead process left half-written; how many."""
        ...

    def delete(self, digest: str) -> bool:
        """Removes the bytes; False when they were not there."""
        ...


async def chunks(reader: BlobReader, size: int = CHUNK_BYTES) -> AsyncIterator[bytes]:
    """The reader's bytes piece by piece, each read off the event loop; closes it however it ends."""
    try:
        while piece := await asyncio.to_thread(reader.read, size):
            yield piece
    finally:
        await asyncio.to_thread(reader.close)


def configured(settings: Settings) -> BlobStore:
    """The store `UHP_FILE_STORE` names; the S3 client library is imported only when it is used."""
    if settings.file.store == "s3":
        from provider.blobs.s3 import S3BlobStore

        return S3BlobStore.from_settings(settings)
    return DirectoryBlobStore(settings.file.dir)
