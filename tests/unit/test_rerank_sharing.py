"""The cross-encoder's shared parts, by their rules (docs/MODELS.md "Reranker", "Under load").

- Pairs are served lightest principal first: whoever used the model least lately goes next, and one
  principal's asks keep their order.
- A pair whose recall stopped waiting is never run.
- Scores are kept per principal, question and words, and the least recently used leave first.
- Every recall whose pairs wait or run counts as load, whoever asked it; an abandoned one does not.
- Under load a recall reranks its even part of the candidates, then none; alone, all of them.
"""

from __future__ import annotations

import asyncio
import threading

from provider.reranker import Ask, FairPairs, PairScores
from provider.services.recall.rerank import head_size


def ask(loop: asyncio.AbstractEventLoop, pairs: int, question: str = "q") -> Ask:
    return Ask(question, [f"record {i}" for i in range(pairs)], loop)


def drain(queue: FairPairs, count: int) -> list[tuple[str, int]]:
    """`count` pairs taken and finished at once, as one worker would: (principal, index) each."""
    out = []
    for _ in range(count):
        taken = queue.take()
        assert taken is not None
        principal, held, index = taken
        queue.done(principal, held, 0.01)
        out.append((principal, index))
    return out


def test_a_quiet_principal_goes_before_a_busy_one() -> None:
    loop = asyncio.new_event_loop()
    try:
        queue = FairPairs()
        queue.put("busy", ask(loop, 6))
        assert drain(queue, 3) == [("busy", 0), ("busy", 1), ("busy", 2)]
        # The busy principal has used the model; a quiet one arriving now is served first, whole.
        queue.put("quiet", ask(loop, 2))
        assert drain(queue, 3) == [("quiet", 0), ("quiet", 1), ("busy", 3)]
    finally:
        loop.close()


def test_one_principal_s_asks_keep_their_order_and_abandoned_pairs_never_run() -> None:
    loop = asyncio.new_event_loop()
    try:
        queue = FairPairs()
        first, second = ask(loop, 2, "first"), ask(loop, 2, "second")
        queue.put("p", first)
        queue.put("p", second)
        taken = queue.take()
        assert taken is not None and taken[1] is first and taken[2] == 0
        queue.done("p", first, 0.01)
        first.abandoned = True  # its recall passed its budget
        rest = [queue.take() for _ in range(2)]
        assert [(t[1].question, t[2]) for t in rest if t is not None] == [("second", 0), ("second", 1)]
    finally:
        loop.close()


def test_take_waits_for_work_and_ends_when_closed() -> None:
    queue = FairPairs()
    got: list[object] = []
    worker = threading.Thread(target=lambda: got.append(queue.take()))
    worker.start()
    queue.close()
    worker.join(timeout=5)
    assert got == [None]


def test_sharing_counts_every_recall_with_pairs_waiting_or_running() -> None:
    loop = asyncio.new_event_loop()
    try:
        queue = FairPairs()
        assert queue.sharing() == 0
        first, second = ask(loop, 2), ask(loop, 1)
        queue.put("busy", first)
        queue.put("quiet", second)
        assert queue.sharing() == 2
        taken = [queue.take() for _ in range(3)]  # every pair handed out, none finished
        assert queue.sharing() == 2  # running pairs still load the model
        for held in taken:
            assert held is not None
            queue.done(held[0], held[1], 0.01)
        assert queue.sharing() == 0
        third = ask(loop, 3)
        queue.put("busy", third)
        third.abandoned = True  # its recall stopped waiting: it loads nothing
        assert queue.sharing() == 0
    finally:
        loop.close()


def test_scores_are_kept_per_principal_and_the_least_recent_leave_first() -> None:
    cache = PairScores(2)
    a, b, c = (PairScores.key("alice", "q", words) for words in ("one", "two", "three"))
    assert PairScores.key("bob", "q", "one") != a  # another principal never reads alice's scores
    cache.put(a, 1.0)
    cache.put(b, 2.0)
    assert cache.get(a) == 1.0  # now b is the least recently used
    cache.put(c, 3.0)
    assert (cache.get(a), cache.get(b), cache.get(c)) == (1.0, None, 3.0)
    off = PairScores(0)
    off.put(a, 1.0)
    assert off.get(a) is None


def test_a_recall_alone_reranks_every_candidate() -> None:
    assert head_size(20, 0, 5) == (20, [])


def test_under_load_a_recall_reranks_its_part_then_none() -> None:
    assert head_size(20, 1, 5) == (10, ["rerank:shortened_to_10_under_load"])
    assert head_size(20, 2, 5) == (6, ["rerank:shortened_to_6_under_load"])
    assert head_size(20, 3, 5) == (5, ["rerank:shortened_to_5_under_load"])
    assert head_size(20, 4, 5) == (0, ["rerank:skipped_under_load"])


def test_shortening_off_reads_every_candidate_whatever_the_load() -> None:
    assert head_size(20, 7, 0) == (20, [])


def test_one_recall_s_pairs_wake_every_idle_worker() -> None:
    """A recall alone uses every core: each idle worker takes one of its pairs at once."""
    loop = asyncio.new_event_loop()
    try:
        queue = FairPairs()
        taken: list[int] = []
        both = threading.Barrier(3, timeout=10)

        def worker() -> None:
            held = queue.take()
            assert held is not None
            taken.append(held[2])
            both.wait()  # neither finishes before the other has its pair

        workers = [threading.Thread(target=worker) for _ in range(2)]
        for thread in workers:
            thread.start()
        queue.put("p", ask(loop, 2))
        both.wait()
        for thread in workers:
            thread.join(timeout=10)
        assert sorted(taken) == [0, 1]
    finally:
        loop.close()
