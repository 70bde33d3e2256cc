"""The words a record states: what recall by words and by meaning reads, and what a prime shows. Pure."""

from __future__ import annotations

from typing import Any


def content_words(title: str | None, content: list[dict[str, Any]]) -> str:
    """The title, then each text part, one per line (file parts hold no words of their own here)."""
    pieces = [title] if title else []
    pieces += [p["text"] for p in content if isinstance(p.get("text"), str)]
    return "\n".join(pieces)
