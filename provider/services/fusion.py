"""Fusion of ranked lists into one ranking: reciprocal rank fusion, with `why` per hit."""

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
