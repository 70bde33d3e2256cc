"""Whether a recall abstains: nothing it returns answers the question.

Only a question asked by meaning alone can be judged: its best cosine is compared with the model's
calibrated threshold. Words or filters are the caller's own criteria, so whatever matches them stands.
"""

from __future__ import annotations

from provider.models import RecallAsk


def abstains(request: RecallAsk, found: int, best: float | None, threshold: float) -> bool:
    """True with no result; for a question by meaning alone, also when its best cosine is below the line."""
    if not found:
        return True
    if request.query and not request.text and request.filters is None:
        return best is None or best < threshold
    return False
