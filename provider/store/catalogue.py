"""Cypher statements loaded by name from `cypher/*.cypher`, once, failing fast on a missing name."""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import LiteralString

CYPHER_DIR = Path(__file__).resolve().parent.parent.parent / "cypher"


@cache
def _all_statements() -> dict[str, str]:
    return {path.stem: path.read_text(encoding="utf-8") for path in sorted(CYPHER_DIR.glob("*.cypher"))}


def statement(name: str) -> LiteralString:
    """The text of one statement; statements are files we ship, never built from input."""
    try:
        text = _all_statements()[name]
    except KeyError as e:
        raise LookupError(f"no Cypher statement named {name!r} in {CYPHER_DIR.name}/") from e
    return text


def names() -> list[str]:
    """Every statement's name, for tests that check each is used and explains itself."""
    return list(_all_statements())
