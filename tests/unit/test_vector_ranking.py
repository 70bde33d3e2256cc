"""The cache's ranking: best first with ties by id, and filters asked about growing windows of it."""

from __future__ import annotations

import numpy as np

from provider.store.vector_cache import Entry, Ranking


def entry(rows: list[list[float]], prefix: str) -> Entry:
    matrix = np.asarray(rows, dtype=np.float32)
    matrix /= np.linalg.norm(matrix, axis=1, keepdims=True)
    return Entry(1, [f"{prefix}{i:05d}" for i in range(len(rows))], matrix)


def spread(count: int, prefix: str) -> Entry:
    """Rows whose cosine to [1, 0] falls as the index grows."""
    angles = np.linspace(0.0, 1.5, count)
    return entry([[float(np.cos(a)), float(np.sin(a))] for a in angles], prefix)


def test_best_is_by_cosine_then_by_id_across_memories() -> None:
    tied = entry([[1.0, 0.0], [0.0, 1.0], [1.0, 0.0]], "b")
    other = entry([[1.0, 0.0], [1.0, 1.0]], "a")
    best = Ranking([2.0, 0.0], [("m1", tied), ("m2", other)]).best(4)
    assert [(i, m) for i, m, _ in best] == [
        ("a00000", "m2"),
        ("b00000", "m1"),
        ("b00002", "m1"),
        ("a00001", "m2"),
    ]
    assert best[0][2] is not None and abs(best[0][2] - 1.0) < 1e-6
    assert abs((best[3][2] or 0) - 2**-0.5) < 1e-6


def test_rows_of_another_dimension_and_empty_memories_are_left_out() -> None:
    wrong = entry([[1.0, 0.0, 0.0]], "w")
    empty = Entry(1, [], np.zeros((0, 1), dtype=np.float32))
    best = Ranking([1.0, 0.0], [("m1", wrong), ("m2", empty), ("m3", spread(3, "s"))]).best(10)
    assert [i for i, _, _ in best] == ["s00000", "s00001", "s00002"]


def test_among_keeps_only_the_ids_a_filter_passed_in_ranking_order() -> None:
    ranking = Ranking([1.0, 0.0], [("m", spread(3000, "r"))])
    assert [i for i, _, _ in ranking.best_among(2, {"r02999", "r00150", "r01000"})] == ["r00150", "r01000"]
    assert ranking.best_among(5, set()) == []
    assert [i for i, _, _ in ranking.best_among(5, {"gone", "r00007"})] == ["r00007"]
