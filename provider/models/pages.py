"""A page of anything, with the cursor to the next."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Generic, TypeVar

T = TypeVar("T")


@dataclass
class Page(Generic[T]):
    """One page of a listing and the cursor for the next."""

    items: list[T] = field(default_factory=list)
    next_cursor: str | None = None
