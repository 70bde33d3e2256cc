"""The cross-encoder's turn in recall: the head of the fused list in its order, without lifting the past.

The model judges words, not time: asked where someone lives, it prefers "I used to live in Berlin" to
"I moved to Paris". So a record whose valid time has ended keeps to the places such records held in
the fused order, and the cross-encoder orders the records still valid among themselves.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from provider.models import SignalPart
from provider.services.recall.fusion import Fused


class Reranker(Protocol):
    """Scores question-and-record pairs (higher answers better) within a time budget; None past it."""

    async def score(self, question: str, records: Sequence[str], budget_s: float) -> list[float] | None:
        """One score per record, in order; None past the budget.

        Raises `RerankerUnavailableError` when it cannot run at all.
        """
        ...

    def sharing(self) -> int:
        """Other recalls whose pairs wait for the model or run in it now, whoever asked them."""
        ...


def reorder(head: list[Fused], scores: list[float], ended: list[bool]) -> list[Fused]:
    """`head` (best first) in the cross-encoder's order; each keeps the fused score of the place it takes.

    Ties keep their fused order. A record whose time has ended takes only a place an ended record
    held, so it never rises above a record still valid. `why` names `rerank` on every hit it read.
    """
    order = sorted(range(len(head)), key=lambda i: (-scores[i], i))
    for rank, i in enumerate(order, start=1):
        head[i].rerank = SignalPart(rank=rank, score=round(scores[i], 6), added=0.0)
        head[i].why = [*head[i].why, "rerank"]
    valid = [head[i] for i in order if not ended[i]]
    past = [head[i] for i in order if ended[i]]
    places = [h.score for h in head]
    reordered = [past.pop(0) if ended[place] else valid.pop(0) for place in range(len(head))]
    for hit, score in zip(reordered, places, strict=True):
        hit.score = score
    return reordered


def head_size(candidates: int, sharing: int, shared_min: int) -> tuple[int, list[str]]:
    """How many candidates a recall reranks while `sharing` other recalls use the model.

    Alone, all of them; shared, its even part of them, so the model's work (and every recall's wait)
    stays about what one recall's was; a part below `shared_min` (or below two) is none. `0` for
    `shared_min` never shortens. The second value is what `degraded` says.
    """
    if not shared_min or sharing <= 0:
        return candidates, []
    share = candidates // (1 + sharing)
    if share >= candidates:
        return candidates, []
    if share < max(2, shared_min):
        return 0, ["rerank:skipped_under_load"]
    return share, [f"rerank:shortened_to_{share}_under_load"]
