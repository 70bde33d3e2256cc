"""How recall is tuned: one value per setting, built from the settings by the composition root.

No field has a default: a default here could disagree with the one in provider/config.py, which is
the only place defaults live (docs/CONFIGURATION.md lists them).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class RecallTuning:
    """The recall settings, named as the service reads them (UHP_RECALL_* and UHP_SUBTREE_CAP)."""

    subtree_cap: int
    words_weight: float | None  # None: fuse by rank (RRF); a weight: fuse by scores
    search_query_words: bool
    query_scan_chars: int
    candidates: int
    history_window: int
    date_boost: float
    newer_wins: bool
    same_subject_cosine: float
    words_candidates: int
    rerank: bool
    rerank_candidates: int
    rerank_budget_ms: int
    rerank_chars: int  # characters of a record the cross-encoder is given
    rerank_skip_lead: float
    rerank_first: int  # a cascade's first part (0: every candidate at once)
    rerank_sure: float  # the score in the first part that spares the rest
    rerank_shared_min: int  # the fewest candidates a shared cross-encoder still reads
