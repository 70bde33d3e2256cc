"""The newer-wins rule alone: which candidates count as one subject, and where the later one lands."""

from __future__ import annotations

from provider.models import Subject
from provider.services.recall.fusion import Fused
from provider.services.recall.recency import newer_first

NEAR = [1.0, 0.0, 0.0]
NEAR_TOO = [0.9, 0.3, 0.0]  # cosine 0.95 with NEAR
FAR = [0.0, 0.0, 1.0]


def hits(*scored: tuple[str, float]) -> list[Fused]:
    return [Fused(record_id=rid, memory_id="hmem_a", score=score, why=["query"]) for rid, score in scored]


def subject(at: int, vector: list[float], *, type_: str = "episode", speaker: str | None = "Ana") -> Subject:
    return Subject(type=type_, speaker=speaker, at=at, vector=vector)


def order(ranked: list[Fused]) -> list[str]:
    return [h.record_id for h in ranked]


def test_a_later_record_on_the_same_subject_moves_just_above_the_earlier_one() -> None:
    ranked = newer_first(
        hits(("lisbon", 0.9), ("other", 0.8), ("oslo", 0.5)),
        {"lisbon": subject(1, NEAR), "oslo": subject(2, NEAR_TOO), "other": subject(3, FAR)},
        0.55,
    )
    assert order(ranked) == ["oslo", "lisbon", "other"]
    assert "newer" in ranked[0].why and "newer" not in ranked[1].why and "newer" not in ranked[2].why
    assert ranked[0].score - ranked[1].score < 1e-6


def test_another_speaker_type_or_meaning_is_another_subject() -> None:
    for later in (
        subject(2, NEAR_TOO, speaker="Ben"),
        subject(2, NEAR_TOO, speaker=None),
        subject(2, NEAR_TOO, type_="fact"),
        subject(2, FAR),
    ):
        ranked = newer_first(hits(("old", 0.9), ("new", 0.5)), {"old": subject(1, NEAR), "new": later}, 0.55)
        assert order(ranked) == ["old", "new"] and all("newer" not in h.why for h in ranked)


def test_the_threshold_decides_how_close_is_the_same_subject() -> None:
    subjects = {"old": subject(1, NEAR), "new": subject(2, NEAR_TOO)}
    assert order(newer_first(hits(("old", 0.9), ("new", 0.5)), subjects, 0.96)) == ["old", "new"]
    assert order(newer_first(hits(("old", 0.9), ("new", 0.5)), subjects, 0.94)) == ["new", "old"]


def test_in_a_chain_of_updates_the_newest_ends_first() -> None:
    ranked = newer_first(
        hits(("first", 0.9), ("second", 0.7), ("third", 0.2)),
        {"first": subject(1, NEAR), "second": subject(2, NEAR_TOO), "third": subject(3, NEAR)},
        0.55,
    )
    assert order(ranked) == ["third", "second", "first"]


def test_an_earlier_record_never_moves_up_and_a_later_one_already_above_stays() -> None:
    ranked = newer_first(
        hits(("new", 0.9), ("old", 0.5)), {"old": subject(1, NEAR), "new": subject(2, NEAR_TOO)}, 0.55
    )
    assert order(ranked) == ["new", "old"] and [h.score for h in ranked] == [0.9, 0.5]
    assert all("newer" not in h.why for h in ranked)


def test_same_time_records_and_unknown_ones_stay_where_they_are() -> None:
    same_time = {"a": subject(5, NEAR), "b": subject(5, NEAR_TOO)}
    assert order(newer_first(hits(("a", 0.9), ("b", 0.5)), same_time, 0.55)) == ["a", "b"]
    unknown = newer_first(hits(("a", 0.9), ("x", 0.6), ("b", 0.5)), {"a": subject(1, NEAR)}, 0.55)
    assert order(unknown) == ["a", "x", "b"]


def test_vectors_of_another_size_are_left_out_not_compared() -> None:
    mixed = {"old": subject(1, NEAR), "new": subject(2, NEAR_TOO), "odd": subject(3, [1.0, 0.0])}
    ranked = newer_first(hits(("old", 0.9), ("odd", 0.7), ("new", 0.5)), mixed, 0.55)
    assert order(ranked) == ["new", "old", "odd"]
