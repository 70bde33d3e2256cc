"""The cache's ranking: best first with ties by id, and filters asked about growing windows of it."""

from __future__ import annotations

import asyncio

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


def test_a_filter_is_asked_about_the_head_then_about_the_whole_scope_once() -> None:
    ranking = Ranking([1.0, 0.0], [("m", spread(6000, "r"))])
    asked: list[str] = []

    async def passes(ids: list[str], keep: set[str]) -> set[str]:
        asked.append(f"window of {len(ids)}")
        return keep & set(ids)

    async def everyone(keep: set[str]) -> set[str]:
        asked.append("whole scope")
        return keep

    def best(keep: set[str], k: int = 2) -> list[str]:
        asked.clear()
        found = asyncio.run(ranking.best_passing(k, lambda ids: passes(ids, keep), lambda: everyone(keep)))
        return [record_id for record_id, _, _ in found]

    head = {f"r{i:05d}" for i in range(0, 200, 7)}
    assert best(head) == ["r00000", "r00007"] and asked == ["window of 200"]
    assert best({"r05999", "r00150", "r03000"}) == ["r00150", "r03000"]
    assert asked == ["window of 200", "whole scope"], "a selective filter costs two round trips"
    assert best(set()) == []
    small = Ranking([1.0, 0.0], [("m", spread(50, "s"))])
    asked.clear()
    found = asyncio.run(small.best_passing(5, lambda ids: passes(ids, {"s00049"}), lambda: everyone(set())))
    assert [i for i, _, _ in found] == ["s00049"] and asked == ["window of 50"], "a whole scope in one window"
