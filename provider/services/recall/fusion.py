"""Fusion of ranked lists into one ranking, by rank (RRF) or by score (meaning and words), with `why`."""

from __future__ import annotations

from dataclasses import dataclass, field

from provider.models import Hit, RerankRun, SignalPart

RRF_K = 60


@dataclass
class Fused:
    """One record's place in the fused ranking, and what put it there (for `explain`)."""

    record_id: str
    memory_id: str
    score: float = 0.0
    why: list[str] = field(default_factory=list)
    similarity: float | None = None
    parts: dict[str, SignalPart] = field(default_factory=dict)
    lift: float = 0.0  # added for a date the question names
    fused_rank: int = 0  # its place before the cross-encoder (1-based; 0 until ranked)
    rerank: SignalPart | None = None  # its rank and logit from the cross-encoder
    rerank_run: RerankRun | None = None  # what the cross-encoder read of the head it was in
    other_side_of: str | None = None  # brought in past the limit as the other side of this result


def in_order(hits: list[Fused]) -> list[Fused]:
    """Best first, ties by record id (a stable order whatever the database holds), places numbered."""
    ordered = sorted(hits, key=lambda h: (-h.score, h.record_id))
    for place, hit in enumerate(ordered, start=1):
        hit.fused_rank = place
    return ordered


def fuse(rankings: dict[str, list[Hit]]) -> list[Fused]:
    """`signal → [(record_id, memory_id, raw score)]`, best first; fused by 1/(k + rank)."""
    fused: dict[str, Fused] = {}
    for signal, ranking in rankings.items():
        for rank, (record_id, memory_id, raw) in enumerate(ranking, start=1):
            hit = fused.setdefault(record_id, Fused(record_id=record_id, memory_id=memory_id))
            added = 1.0 / (RRF_K + rank)
            hit.score += added
            hit.why.append(signal)
            hit.parts[signal] = SignalPart(rank=rank, score=raw, added=added)
            if signal == "query" and raw is not None:
                hit.similarity = raw
    return in_order(list(fused.values()))


MEANING = "query"


def _scaled(ranking: list[Hit]) -> dict[str, float]:
    """Raw scores to [0, 1] within their own list (min-max): BM25 and cosine live on unrelated scales."""
    raws = [raw for _, _, raw in ranking if raw is not None]
    if not raws:
        return {record_id: 1.0 for record_id, _, _ in ranking}
    low, high = min(raws), max(raws)
    spread = high - low
    return {
        record_id: (raw - low) / spread if spread and raw is not None else 1.0
        for record_id, _, raw in ranking
    }


def fuse_scores(rankings: dict[str, list[Hit]], words_weight: float) -> list[Fused]:
    """Meaning weighs `1 - words_weight`, each words list `words_weight`; a list a hit is missing from adds 0.

    Ranks throw away how far apart two hits are; on LoCoMo that gap is what tells the turn holding
    a rare name from ten that merely share the topic (bench/quality.py).
    """
    fused: dict[str, Fused] = {}
    for signal, ranking in rankings.items():
        weight = 1.0 - words_weight if signal == MEANING else words_weight
        scaled = _scaled(ranking)
        for rank, (record_id, memory_id, raw) in enumerate(ranking, start=1):
            hit = fused.setdefault(record_id, Fused(record_id=record_id, memory_id=memory_id))
            added = weight * scaled[record_id]
            hit.score += added
            hit.why.append(signal)
            hit.parts[signal] = SignalPart(rank=rank, score=raw, added=added)
            if signal == MEANING and raw is not None:
                hit.similarity = raw
    return in_order(list(fused.values()))
