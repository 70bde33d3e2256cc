"""Cypher statements loaded by name, once, failing fast on a missing name.

The main database's statements live in `cypher/`; those the query sandbox runs on its copies
(`sandbox_*`) live beside the sandbox's own code, in `sandbox/cypher/`.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import LiteralString

ROOT = Path(__file__).resolve().parent.parent.parent
CYPHER_DIR = ROOT / "cypher"
SANDBOX_CYPHER_DIR = ROOT / "sandbox" / "cypher"
CYPHER_DIRS = (CYPHER_DIR, SANDBOX_CYPHER_DIR)


def cypher_files() -> list[Path]:
    """Every statement file, in both folders."""
    return sorted(path for folder in CYPHER_DIRS for path in folder.glob("*.cypher"))


@cache
def _all_statements() -> dict[str, str]:
    return {path.stem: path.read_text(encoding="utf-8") for path in cypher_files()}


def statement(name: str) -> LiteralString:
    """The text of one statement; statements are files we ship, never built from input."""
    try:
        text = _all_statements()[name]
    except KeyError as e:
        raise LookupError(f"no Cypher statement named {name!r} in cypher/ or sandbox/cypher/") from e
    return text


def names() -> list[str]:
    """Every statement's name, for tests that check each is used and explains itself."""
    return list(_all_statements())
