"""The fair gate on its own: whose turn comes next, who is shed from a full queue, and a wait's end."""

from __future__ import annotations

import asyncio

import pytest

from provider.errors import RateLimitedError
from provider.fairness import FairGate, PrincipalLabels


def gate(slots: int = 1, max_waiting: int = 100, max_wait_seconds: float = 5.0) -> FairGate:
    return FairGate("test", slots=slots, max_waiting=max_waiting, max_wait_seconds=max_wait_seconds)


async def queued(fair: FairGate, principal: str, served: list[str]) -> None:
    await fair.acquire(principal)
    served.append(principal)
    fair.release()


async def settle() -> None:
    for _ in range(5):
        await asyncio.sleep(0)


def test_a_principal_with_one_waiting_is_served_before_the_busy_ones_rest() -> None:
    async def scenario() -> list[str]:
        fair, served = gate(), list[str]()
        await fair.acquire("holder")
        tasks = [asyncio.create_task(queued(fair, "busy", served)) for _ in range(16)]
        await settle()
        tasks.append(asyncio.create_task(queued(fair, "quiet", served)))
        await settle()
        assert fair.waiting == 17
        fair.release()
        await asyncio.gather(*tasks)
        return served

    served = asyncio.run(scenario())
    # First come was the busy principal's first request; the quiet one's single request is next,
    # not seventeenth.
    assert served[:2] == ["busy", "quiet"], served
    assert served.count("busy") == 16


def test_turns_go_round_robin_between_principals() -> None:
    async def scenario() -> list[str]:
        fair, served = gate(), list[str]()
        await fair.acquire("holder")
        tasks = [asyncio.create_task(queued(fair, p, served)) for p in ["a"] * 3 + ["b"] * 3 + ["c"] * 3]
        await settle()
        fair.release()
        await asyncio.gather(*tasks)
        return served

    assert asyncio.run(scenario()) == ["a", "b", "c"] * 3


def test_a_full_queue_sheds_the_busiest_principals_newest_request_never_the_quiet_one() -> None:
    async def scenario() -> tuple[list[str], list[BaseException | None]]:
        fair, served = gate(max_waiting=4), list[str]()
        await fair.acquire("holder")
        busy = [asyncio.create_task(queued(fair, "busy", served)) for _ in range(4)]
        await settle()
        quiet = asyncio.create_task(queued(fair, "quiet", served))  # the queue is full: busy pays
        await settle()
        assert fair.waiting_for("busy") == 3 and fair.waiting_for("quiet") == 1
        with pytest.raises(RateLimitedError):  # busy asks again: it is the heaviest, so it is refused
            await fair.acquire("busy")
        fair.release()
        outcomes = await asyncio.gather(*busy, quiet, return_exceptions=True)
        return served, [o if isinstance(o, BaseException) else None for o in outcomes]

    served, outcomes = asyncio.run(scenario())
    assert isinstance(outcomes[3], RateLimitedError), "the busy principal's newest request was shed"
    assert outcomes[4] is None and "quiet" in served
    assert served.count("busy") == 3


def test_a_wait_past_its_bound_is_a_429_and_leaves_no_trace() -> None:
    async def scenario() -> None:
        fair = gate(max_wait_seconds=0.05)
        await fair.acquire("holder")
        with pytest.raises(RateLimitedError) as refused:
            await fair.acquire("late")
        assert refused.value.retry_after >= 1
        assert fair.waiting == 0
        fair.release()
        await asyncio.wait_for(fair.acquire("next"), 1)  # the slot was freed, not lost

    asyncio.run(scenario())


def test_a_cancelled_waiter_passes_on_a_slot_it_was_handed() -> None:
    async def scenario() -> None:
        fair = gate()
        await fair.acquire("holder")
        waiter = asyncio.create_task(fair.acquire("a"))
        await settle()
        waiter.cancel()
        fair.release()
        with pytest.raises(asyncio.CancelledError):
            await waiter
        await asyncio.wait_for(fair.acquire("b"), 1)

    asyncio.run(scenario())


def test_labels_name_the_first_principals_then_other() -> None:
    labels = PrincipalLabels(2)
    assert [labels(p) for p in ("a", "b", "c", "a", "d")] == ["a", "b", "other", "a", "other"]
