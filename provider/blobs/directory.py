"""File bytes in a local directory, content-addressed: the store of one instance (the default)."""

from __future__ import annotations

import contextlib
import hashlib
import os
import tempfile
import time
from pathlib import Path
from typing import BinaryIO

INCOMING = "incoming"  # beside the blobs, so the rename into place never crosses a file system


class StagedFile:
    """A temporary file under `<root>/incoming/`, renamed to `<root>/<aa>/<sha256>` when kept."""

    def __init__(self, store: DirectoryBlobStore):
        self.store = store
        incoming = store.root / INCOMING
        incoming.mkdir(parents=True, exist_ok=True)
        handle, name = tempfile.mkstemp(dir=incoming, prefix="upload-")
        self.path = Path(name)
        self.out = os.fdopen(handle, "wb")
        self.hash = hashlib.sha256()
        self.size = 0
        self.done = False

    def write(self, data: bytes) -> None:
        """Hashes and writes in one pass, so the bytes are read once."""
        self.hash.update(data)
        self.out.write(data)
        self.size += len(data)

    def digest(self) -> str:
        """The address so far."""
        return self.hash.hexdigest()

    def keep(self) -> str:
        """Idempotent by content: bytes already kept at the address are not written twice."""
        self.out.close()
        digest = self.hash.hexdigest()
        path = self.store.path_of(digest)
        if path.exists():
            self.path.unlink(missing_ok=True)
        else:
            path.parent.mkdir(parents=True, exist_ok=True)
            os.replace(self.path, path)
        self.done = True
        return digest

    def discard(self) -> None:
        """Safe to call after keep, and twice."""
        if self.done:
            return
        self.out.close()
        self.path.unlink(missing_ok=True)
        self.done = True


class DirectoryBlobStore:
    """`<root>/<aa>/<sha256>`; written through a staged file and renamed, so a reader never sees half."""

    def __init__(self, root: Path):
        self.root = root

    def path_of(self, digest: str) -> Path:
        """Where the bytes with this SHA-256 live; refuses anything that is not a digest."""
        if len(digest) != 64 or any(c not in "0123456789abcdef" for c in digest):
            raise ValueError("not a SHA-256 digest")
        return self.root / digest[:2] / digest

    def stage(self) -> StagedFile:
        """A new temporary file in the blob directory."""
        return StagedFile(self)

    def open(self, digest: str) -> BinaryIO:
        """Raises FileNotFoundError when absent."""
        return self.path_of(digest).open("rb")

    def exists(self, digest: str) -> bool:
        """A file at the address."""
        return self.path_of(digest).is_file()

    def delete(self, digest: str) -> bool:
        """Removes the bytes for good."""
        try:
            self.path_of(digest).unlink()
        except FileNotFoundError:
            return False
        return True

    def sweep_incoming(self, older_than_seconds: float) -> int:
        """Removes staged uploads older than a bound: a live upload renames or removes its own."""
        incoming = self.root / INCOMING
        if not incoming.is_dir():
            return 0
        cutoff = time.time() - older_than_seconds
        removed = 0
        for leftover in incoming.glob("upload-*"):
            with contextlib.suppress(FileNotFoundError):
                if leftover.stat().st_mtime < cutoff:
                    leftover.unlink()
                    removed += 1
        return removed
