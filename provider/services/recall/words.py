"""The words of a `query` worth a full-text search: what is left once the grammar of a question is gone.

The full-text index keeps every word (Neo4j's default analyzer drops no stop words), so "when did
Caroline go to the support group" would score every turn holding "the" or "did". Only the words
that name something (Caroline, support, group) are searched.
"""

from __future__ import annotations

import math
import re

from provider.models import Hit, WordMatches

APOSTROPHES = "'\u2019"
WORD = re.compile(rf"[^\W_]+(?:[{APOSTROPHES}][^\W_]+)*", re.UNICODE)
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
MAX_WORDS = 32


def query_words(query: str) -> str:
    """The query's content words, in order, once each; empty when it holds none."""
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
        if len(kept) == MAX_WORDS:
            break
    return " ".join(kept)


# BM25's usual constants (Lucene's defaults too): how fast repeated evidence saturates, and how much a
# record's length discounts it.
K1 = 1.2
B = 0.75


def scoped_bm25(matches: WordMatches, records_in_scope: int, k: int) -> list[Hit]:
    """The holders ranked by BM25 whose statistics are the caller's scope alone, best first, ties by id.

    Lucene's own score counts every record in the index, so another member writing the same words
    would change this member's order. Here a word's rarity is counted among the records the caller
    may read, and a record's length is weighed against the other holders'. A word counts once per
    record (the index says whether a record holds it, not how often), which changes little on
    records of a sentence or two.
    """
    if not matches.found:
        return []
    records = max(records_in_scope, max(matches.holding, default=0), 1)
    rarity = [math.log(1.0 + (records - held + 0.5) / (held + 0.5)) for held in matches.holding]
    mean_length = sum(h.length for h in matches.found) / len(matches.found) or 1.0
    scored = []
    for holder in matches.found:
        saturation = (K1 + 1.0) / (1.0 + K1 * (1.0 - B + B * holder.length / mean_length))
        score = round(sum(rarity[word] for word in holder.words) * saturation, 9)
        scored.append(Hit(holder.record_id, holder.memory_id, score))
    scored.sort(key=lambda hit: (-(hit.score or 0.0), hit.record_id))
    return scored[:k]
