"""The fair gate on its own: whose turn comes next, who is shed from a full queue, and a wait's end."""

from __future__ import annotations

import asyncio

import pytest

from provider.errors import BusyError, RateLimitedError
from provider.fairness import FairGate, PrincipalLabels


def gate(slots: int = 1, max_waiting: int = 100, max_wait_seconds: float = 5.0) -> FairGate:
    return FairGate("test", slots=slots, max_waiting=max_waiting, max_wait_seconds=max_wait_seconds)


async def queued(fair: FairGate, principal: str, served: list[str]) -> None:
    await fair.acquire(principal)
    served.append(principal)
    fair.release(principal)


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
        fair.release("holder")
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
        fair.release("holder")
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
        fair.release("holder")
        outcomes = await asyncio.gather(*busy, quiet, return_exceptions=True)
        return served, [o if isinstance(o, BaseException) else None for o in outcomes]

    served, outcomes = asyncio.run(scenario())
    assert isinstance(outcomes[3], RateLimitedError), "the busy principal's newest request was shed"
    assert outcomes[4] is None and "quiet" in served
    assert served.count("busy") == 3


def test_a_wait_past_its_bound_is_a_503_busy_and_leaves_no_trace() -> None:
    async def scenario() -> None:
        fair = gate(max_wait_seconds=0.05)
        await fair.acquire("holder")
        with pytest.raises(BusyError) as refused:
            await fair.acquire("late")
        assert refused.value.retry_after >= 1
        assert fair.waiting == 0
        fair.release("holder")
        await asyncio.wait_for(fair.acquire("next"), 1)  # the slot was freed, not lost

    asyncio.run(scenario())


def test_a_cancelled_waiter_passes_on_a_slot_it_was_handed() -> None:
    async def scenario() -> None:
        fair = gate()
        await fair.acquire("holder")
        waiter = asyncio.create_task(fair.acquire("a"))
        await settle()
        waiter.cancel()
        fair.release("holder")
        with pytest.raises(asyncio.CancelledError):
            await waiter
        await asyncio.wait_for(fair.acquire("b"), 1)

    asyncio.run(scenario())


def test_labels_name_the_first_principals_then_other() -> None:
    labels = PrincipalLabels(2)
    assert [labels(p) for p in ("a", "b", "c", "a", "d")] == ["a", "b", "other", "a", "other"]


def test_a_slot_is_kept_for_another_principal_who_then_starts_at_once() -> None:
    async def scenario() -> None:
        fair = FairGate("test", slots=3, max_waiting=100, max_wait_seconds=5.0, share=2)
        await fair.acquire("busy")
        await fair.acquire("busy")
        third = asyncio.create_task(fair.acquire("busy"))
        await settle()
        assert not third.done() and fair.waiting_for("busy") == 1, "busy waits with a slot still free"
        await asyncio.wait_for(fair.acquire("quiet"), 0.1)  # no turn to wait for
        assert fair.held_by("quiet") == 1
        fair.release("quiet")
        assert not third.done(), "the freed slot is still kept for others"
        fair.release("busy")
        await asyncio.wait_for(third, 1)
        assert fair.held_by("busy") == 2

    asyncio.run(scenario())


def test_while_two_principals_work_each_holds_an_equal_part_of_the_slots() -> None:
    async def scenario() -> None:
        fair = FairGate("test", slots=4, max_waiting=100, max_wait_seconds=5.0)
        for _ in range(4):
            await fair.acquire("busy")  # alone, it may hold every slot
        more = [asyncio.create_task(fair.acquire("busy")) for _ in range(2)]
        quiet = asyncio.create_task(fair.acquire("quiet"))
        await settle()
        fair.release("busy")
        await asyncio.wait_for(quiet, 1)  # the first slot freed is the quiet one's turn
        fair.release("busy")
        await settle()
        # Two principals at work: busy may hold 2 of 4, and holds 2, so its next waits with a slot free.
        assert fair.held_by("busy") == 2 and not any(t.done() for t in more)
        fair.release("quiet")
        await asyncio.wait_for(asyncio.gather(*more), 1)  # alone again: all four are its to take
        assert fair.held_by("busy") == 4

    asyncio.run(scenario())
