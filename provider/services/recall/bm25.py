"""BM25 over the caller's scope: word matches ranked with statistics counted among what it may read."""

from __future__ import annotations

import math

from provider.models import Hit, WordMatches

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
