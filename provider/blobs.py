"""File bytes, kept content-addressed outside Neo4j behind a small interface (a directory by default)."""

from __future__ import annotations

import hashlib
import os
import tempfile
from pathlib import Path
from typing import Protocol


class BlobStore(Protocol):
    """Where file bytes live: a directory here, an S3-compatible bucket for several instances."""

    def put(self, data: bytes) -> str:
        """Stores the bytes; returns their SHA-256, which is their address."""
        ...

    def get(self, digest: str) -> bytes:
        """The bytes at an address."""
        ...

    def delete(self, digest: str) -> bool:
        """Removes the bytes; False when they were not there."""
        ...


class DirectoryBlobStore:
    """`<root>/<aa>/<sha256>`; written through a temporary file and renamed, so a reader never sees half."""

    def __init__(self, root: Path):
        self.root = root

    def _path(self, digest: str) -> Path:
        if len(digest) != 64 or any(c not in "0123456789abcdef" for c in digest):
            raise ValueError("not a SHA-256 digest")
        return self.root / digest[:2] / digest

    def put(self, data: bytes) -> str:
        """Idempotent: the same bytes land at the same address once."""
        digest = hashlib.sha256(data).hexdigest()
        path = self._path(digest)
        if path.exists():
            return digest
        path.parent.mkdir(parents=True, exist_ok=True)
        handle, temporary = tempfile.mkstemp(dir=path.parent)
        with os.fdopen(handle, "wb") as out:
            out.write(data)
        os.replace(temporary, path)
        return digest

    def get(self, digest: str) -> bytes:
        """Raises FileNotFoundError when absent."""
        return self._path(digest).read_bytes()

    def delete(self, digest: str) -> bool:
        """Removes the bytes for good."""
        try:
            self._path(digest).unlink()
        except FileNotFoundError:
            return False
        return True
