"""The cache's ranking: best first with ties by id, and filters asked about growing windows of it."""

from __future__ import annotations

import asyncio

import numpy as np

from provider.store.vector_cache import FILTER_WINDOWS, Entry, Ranking


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


def test_a_filter_keeping_few_is_asked_window_by_window_then_given_up() -> None:
    ranking = Ranking([1.0, 0.0], [("m", spread(6000, "r"))])
    asked: list[int] = []

    async def only(ids: list[str], keep: set[str]) -> set[str]:
        asked.append(len(ids))
        return keep & set(ids)

    near = asyncio.run(ranking.best_passing(2, lambda ids: only(ids, {"r00150", "r00900"})))
    assert near is not None and [i for i, _, _ in near] == ["r00150", "r00900"]
    assert asked == [200, 800]
    asked.clear()
    assert asyncio.run(ranking.best_passing(2, lambda ids: only(ids, {"r05999"}))) is None
    assert len(asked) == FILTER_WINDOWS, "past its windows the scan in Cypher takes over"
    asked.clear()
    small = Ranking([1.0, 0.0], [("m", spread(300, "s"))])
    every = asyncio.run(small.best_passing(5, lambda ids: only(ids, {"s00299"})))
    assert every is not None and [i for i, _, _ in every] == ["s00299"], (
        "a whole scope asked gives what passed"
    )
