"""Fusion of ranked lists into one ranking, by rank (RRF) or by score (meaning and words), with `why`."""

from __future__ import annotations

from dataclasses import dataclass, field

RRF_K = 60


@dataclass
class Fused:
    """One record's place in the fused ranking."""

    record_id: str
    memory_id: str
    score: float = 0.0
    why: list[str] = field(default_factory=list)
    similarity: float | None = None


def fuse(rankings: dict[str, list[tuple[str, str, float | None]]]) -> list[Fused]:
    """`signal → [(record_id, memory_id, raw score)]`, best first; fused by 1/(k + rank)."""
    fused: dict[str, Fused] = {}
    for signal, ranking in rankings.items():
        for rank, (record_id, memory_id, raw) in enumerate(ranking, start=1):
            hit = fused.setdefault(record_id, Fused(record_id=record_id, memory_id=memory_id))
            hit.score += 1.0 / (RRF_K + rank)
            hit.why.append(signal)
            if signal == "query" and raw is not None:
                hit.similarity = raw
    return sorted(fused.values(), key=lambda h: (-h.score, h.record_id))


MEANING = "query"


def _scaled(ranking: list[tuple[str, str, float | None]]) -> dict[str, float]:
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


def fuse_scores(rankings: dict[str, list[tuple[str, str, float | None]]], words_weight: float) -> list[Fused]:
    """Meaning weighs `1 - words_weight`, each words list `words_weight`; a list a hit is missing from adds 0.

    Ranks throw away how far apart two hits are; on LoCoMo that gap is what tells the turn holding
    a rare name from ten that merely share the topic (bench/quality.py).
    """
    fused: dict[str, Fused] = {}
    for signal, ranking in rankings.items():
        weight = 1.0 - words_weight if signal == MEANING else words_weight
        scaled = _scaled(ranking)
        for record_id, memory_id, raw in ranking:
            hit = fused.setdefault(record_id, Fused(record_id=record_id, memory_id=memory_id))
            hit.score += weight * scaled[record_id]
            hit.why.append(signal)
            if signal == MEANING and raw is not None:
                hit.similarity = raw
    return sorted(fused.values(), key=lambda h: (-h.score, h.record_id))
