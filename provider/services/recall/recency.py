"""A later record on the same subject ranks above an earlier one (`UHP_RECALL_NEWER_WINS`).

People update what they said ("I live in Lisbon", a year later "I moved to Oslo"), and both answer the
same question. Without an LLM to read them as a contradiction, "the same subject" is judged by what is
at hand: the same type, the same speaker when either names one, and vectors close enough to each other.
The later one then moves just above the earlier one; nothing else moves, and nothing leaves the list.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping

import numpy as np
import numpy.typing as npt

from provider.models import Subject
from provider.services.recall.fusion import Fused

# How far above the earlier record the later one lands: enough to order them, too little to pass a third.
NUDGE = 1e-9


def cosines(subjects: list[Subject]) -> npt.NDArray[np.float32]:
    """Every pair's cosine at once (a zero vector is close to nothing)."""
    matrix = np.asarray([s.vector for s in subjects], dtype=np.float32)
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    unit = np.divide(matrix, norms, out=np.zeros_like(matrix), where=norms > 0)
    product: npt.NDArray[np.float32] = unit @ unit.T
    return product


def newer_first(fused: list[Fused], subjects: Mapping[str, Subject], min_cosine: float) -> list[Fused]:
    """The ranking with each later record at least just above every earlier one on its subject.

    Taken in time order, so in a chain of updates the newest ends above all of them. `why` names
    `newer` for a record that moved. Records without a time or a vector stay where they are.
    """
    sizes = Counter(len(s.vector) for s in subjects.values())
    size = sizes.most_common(1)[0][0] if sizes else 0  # mid-reembed, two models' vectors can meet
    timed = sorted(
        (h for h in fused if h.record_id in subjects and len(subjects[h.record_id].vector) == size),
        key=lambda h: subjects[h.record_id].at,
    )
    if len(timed) < 2:
        return fused
    facts = [subjects[h.record_id] for h in timed]
    close = cosines(facts) >= min_cosine
    for index, later in enumerate(timed):
        now = facts[index]
        for before, earlier in enumerate(timed[:index]):
            then = facts[before]
            same = then.type == now.type and then.speaker == now.speaker and close[before, index]
            if same and then.at < now.at and later.score <= earlier.score:
                later.score = earlier.score + NUDGE
                if "newer" not in later.why:
                    later.why = [*later.why, "newer"]
    return sorted(fused, key=lambda h: (-h.score, h.record_id))
