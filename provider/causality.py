"""What one request has seen of the database: the bookmarks it came with, and those after its writes.

Several instances behind a load balancer share one Neo4j; on a cluster a read may go to a follower
that has not yet applied a write another instance just made. A client that sends back the
`UHP-Bookmark` header an instance answered a write with has its next request's reads, on whichever
instance, wait until the database holds that write. The API edge opens one `Seen` per request; the
store passes its bookmarks to every session of the main database and records them after each write.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from contextvars import ContextVar, Token
from dataclasses import dataclass

from provider.errors import InvalidInputError

HEADER = "UHP-Bookmark"
MOST_BOOKMARKS = 64  # the store's set holds about one per session running at once (its pool: 50)
# Neo4j's bookmarks are opaque tokens of this alphabet (a prefix and base64); anything else is refused
# here rather than sent to the database.
_BOOKMARK = re.compile(r"[A-Za-z0-9:+/=_.-]{1,512}")


@dataclass
class Seen:
    """The request's point in the database's history: where its reads start, where its writes left it."""

    bookmarks: tuple[str, ...] = ()
    after_writes: tuple[str, ...] = ()


_current: ContextVar[Seen | None] = ContextVar("uhp_seen", default=None)


def begin(bookmarks: tuple[str, ...]) -> Token[Seen | None]:
    """Opens the request's record; `end` with the token closes it."""
    return _current.set(Seen(bookmarks=bookmarks))


def end(token: Token[Seen | None]) -> None:
    """Closes what `begin` opened."""
    _current.reset(token)


def current() -> Seen | None:
    """The running request's record; None outside a request (the sweeper, start-up)."""
    return _current.get()


def parse(value: str) -> tuple[str, ...]:
    """A header's comma-separated bookmarks; 422 `invalid_input` for anything not shaped like one."""
    found = tuple(dict.fromkeys(part.strip() for part in value.split(",") if part.strip()))
    if len(found) > MOST_BOOKMARKS or not all(_BOOKMARK.fullmatch(b) for b in found):
        raise InvalidInputError(
            f"{HEADER} carries the bookmarks an earlier answer gave, comma-separated (at most "
            f"{MOST_BOOKMARKS}).",
            param=HEADER,
        )
    return found


def render(bookmarks: Iterable[str]) -> str:
    """The header value for a set of bookmarks."""
    return ", ".join(sorted(bookmarks))
