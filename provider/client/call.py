"""One call of the service as data: what to send, and how to read the answer into its model.

Both clients send the same `Call`s, so the sync and async surfaces cannot drift apart, and the
answer models are the service's own (`provider.protocol.answers`): a change to one is a change to
both.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import IO, Any, Generic, TypeVar
from urllib.parse import quote

T = TypeVar("T")
Stream = str | os.PathLike[str] | IO[bytes]  # a path, or a binary file opened by the caller


def path(template: str, *parts: str) -> str:
    """A route's path with each id quoted whole: ids are opaque and may hold any character."""
    return template.format(*(quote(part, safe="") for part in parts))


def given(**values: Any) -> dict[str, Any]:
    """The arguments a caller gave: None means "not sent", so the service's default applies."""
    return {name: value for name, value in values.items() if value is not None}


@dataclass(frozen=True)
class Call(Generic[T]):
    """A request and the reader of its answer.

    `write` calls carry an Idempotency-Key, made once per call and sent again on each retry, so a
    retried write is done once. `upload` and `download` stream a large body from or to a file
    without holding it in memory (an export's tar).
    """

    method: str
    path: str
    read: Callable[[Any], T]
    params: dict[str, Any] = field(default_factory=dict)
    body: Any = None
    write: bool = False
    files: dict[str, tuple[str, bytes, str]] | None = None
    data: dict[str, str] | None = None
    raw: bool = False  # the answer is bytes (a file part's content), not JSON
    headers: dict[str, str] = field(default_factory=dict)
    upload: Stream | None = None  # the body, read from here in chunks
    download: Stream | None = None  # the answer's body, written here in chunks; `read` gets its size
