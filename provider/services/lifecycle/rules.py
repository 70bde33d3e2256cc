"""What a consolidation run decides, as pure functions over the records it reads.

Three deterministic rules: a fact whose stated `valid_to` has passed is closed; a fact that says
the same as an earlier one about the same subject (same words, or embeddings at least as similar
as the setting) is forgotten in favour of the earliest; entities with the same normalised title are
merged into the earliest, whose references take over; people and companies are merged into the
earliest of their type they are recognised as, by name, aliases, emails or domains (`EntityIndex`).
"""

from __future__ import annotations

import math
import unicodedata
from dataclasses import dataclass, field

from provider.models import ConsolidationCandidate as Candidate
from provider.services.types.names import EntityIndex


def normalised(text: str | None) -> str:
    """Case, accents, punctuation and spacing do not make two statements different."""
    decomposed = unicodedata.normalize("NFKD", (text or "").casefold())
    kept = "".join(c if c.isalnum() else " " for c in decomposed if not unicodedata.combining(c))
    return " ".join(kept.split())


def similarity(a: list[float] | None, b: list[float] | None) -> float:
    """Cosine of two embeddings; 0 when either is missing."""
    if not a or not b:
        return 0.0
    dot = sum(x * y for x, y in zip(a, b, strict=False))
    norm = math.sqrt(sum(x * x for x in a)) * math.sqrt(sum(y * y for y in b))
    return dot / norm if norm else 0.0


@dataclass
class Decisions:
    """What to do, in the order to do it; each list holds record ids (merges: duplicate → kept)."""

    expired: list[str] = field(default_factory=list)
    duplicates: list[str] = field(default_factory=list)
    merges: list[tuple[str, str]] = field(default_factory=list)
    examined: int = 0
    through: int | None = None
    through_id: str | None = None
    exhausted: bool = False


def decide(rows: list[Candidate], *, now: int, budget: int, threshold: float) -> Decisions:
    """Examines at most `budget` fresh records, oldest first, against everything active before them."""
    fresh = [r for r in rows if r.fresh]
    examined = fresh[:budget]
    decisions = Decisions(examined=len(examined), exhausted=len(fresh) > budget)
    decisions.through = examined[-1].written_at if examined else None
    decisions.through_id = examined[-1].id if examined else None
    looked_at = {r.id for r in examined}
    kept_facts: list[Candidate] = []
    kept_entities: dict[str, str] = {}
    typed = EntityIndex()
    for row in rows:
        if row.id not in looked_at:
            _remember_as_kept(row, kept_facts, kept_entities, typed)
        elif row.type == "fact":
            _judge_fact(row, kept_facts, decisions, now=now, threshold=threshold)
        elif row.type == "entity":
            _judge_entity(row, kept_entities, decisions)
        elif (same := typed.match(row)) is not None:
            decisions.merges.append((row.id, same))
        else:
            typed.add(row)
    return decisions


def _remember_as_kept(
    row: Candidate, facts: list[Candidate], entities: dict[str, str], typed: EntityIndex
) -> None:
    if row.type == "fact":
        facts.append(row)
    elif row.type == "entity":
        entities.setdefault(normalised(row.title or row.text), row.id)
    else:
        typed.add(row)


def _judge_fact(
    row: Candidate, kept: list[Candidate], decisions: Decisions, *, now: int, threshold: float
) -> None:
    if row.valid_to_ms is not None and row.valid_to_ms < now:
        decisions.expired.append(row.id)
        return
    words = normalised(row.text)
    for earlier in kept:
        if earlier.subject != row.subject:
            continue
        if normalised(earlier.text) == words or similarity(earlier.embedding, row.embedding) >= threshold:
            decisions.duplicates.append(row.id)
            return
    kept.append(row)


def _judge_entity(row: Candidate, kept: dict[str, str], decisions: Decisions) -> None:
    name = normalised(row.title or row.text)
    if name in kept:
        decisions.merges.append((row.id, kept[name]))
    else:
        kept[name] = row.id
