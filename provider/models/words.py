"""Words: how every part of the service cuts text into the words it searches, indexes and shows. Pure.

One place, so the words a record is indexed by, the words a question is searched by and the words
counted against a limit are cut the same way.
"""

from __future__ import annotations

import re
from typing import Any

APOSTROPHES = "'\u2019"
# A word: letters and digits, joined across an apostrophe ("Melanie's" is one word, as Lucene keeps it).
WORD = re.compile(rf"[^\W_]+(?:[{APOSTROPHES}][^\W_]+)*", re.UNICODE)
_WORDY = re.compile(r"\w", re.UNICODE)
TEXT_WORDS = 64  # words of a full-text search that reach Lucene
MAX_QUERY_WORDS = 32  # content words of a `query` searched as words
GRAMMAR = frozenset(
    """
    a about above after again against all am an and any are as at be because been before being below
    between both but by can could did do does doing done down during each else ever every few for from
    further get gets got had has have having he her here hers herself him himself his how i if in into
    is it its itself just let me might more most much must my myself no nor not now of off on once only
    or other ought our ours ourselves out over own same shall she should so some such than that the
    their theirs them themselves then there these they this those through to too under until up upon us
    very was we were what whatever when whenever where whether which while who whom whose why will with
    would you your yours yourself yourselves
    s t d ll m re ve
    """.split()  # noqa: SIM905 - a paragraph of words reads better than 150 quoted strings
)


def searched_words(text: str) -> list[str]:
    """A full-text search's words as typed: the pieces holding a letter or digit, TEXT_WORDS at most."""
    return [piece for piece in text.split() if _WORDY.search(piece)][:TEXT_WORDS]


def words_cut(text: str) -> bool:
    """True when a full-text search uses only the first TEXT_WORDS words (recall says so in `degraded`)."""
    return sum(1 for piece in text.split() if _WORDY.search(piece)) > TEXT_WORDS


def history_words(text: str) -> list[str]:
    """The words a history recall looks for in each version's text, lower case."""
    return [piece.lower() for piece in text.split()]


def query_words(query: str) -> str:
    """A question's content words, in order, once each; empty when it holds none.

    The full-text index keeps every word (Neo4j's default analyzer drops no stop words), so "when did
    Caroline go to the support group" would score every turn holding "the" or "did"; only the words
    that name something (Caroline, support, group) are searched.
    """
    kept: list[str] = []
    seen: set[str] = set()
    for match in WORD.finditer(query):
        word = match.group(0)
        stem = re.split(f"[{APOSTROPHES}]", word.lower())[0]
        # "Melanie's" is indexed as one token; the name alone finds her other turns too.
        word = word[: len(stem)] if word.lower()[len(stem) + 1 :] == "s" else word
        if stem in GRAMMAR or word.lower() in seen:
            continue
        kept.append(word)
        seen.add(word.lower())
        if len(kept) == MAX_QUERY_WORDS:
            break
    return " ".join(kept)


def content_words(title: str | None, content: list[dict[str, Any]]) -> str:
    """The words a record states: its title, then each text part, one per line.

    File parts hold no words of their own here. What recall by words and by meaning reads, and what a
    prime shows.
    """
    pieces = [title] if title else []
    pieces += [p["text"] for p in content if isinstance(p.get("text"), str)]
    return "\n".join(pieces)
