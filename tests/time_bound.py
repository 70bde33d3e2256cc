"""Bounds on a test's waiting: a wall-clock bound past which the test fails instead of hanging CI, and
waits on a condition (never a fixed sleep) each with a generous bound."""

from __future__ import annotations

import contextlib
import signal
import time
from collections.abc import Callable, Iterator
from types import FrameType
from typing import Any

import pytest

from provider import ids


@contextlib.contextmanager
def time_bound(seconds: float) -> Iterator[None]:
    """Fails the test (SIGALRM in the main thread) when the block runs past `seconds`."""

    def expire(signum: int, frame: FrameType | None) -> None:
        pytest.fail(f"the test ran past its {seconds:.0f} s bound", pytrace=True)

    previous = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def until(condition: Callable[[], Any], within: float, what: str, pause: float = 0.02) -> Any:
    """Polls `condition()` until it is truthy and returns it; AssertionError naming `what` after
    `within` seconds. The wait a test uses instead of a fixed sleep."""
    deadline = time.monotonic() + within
    while not (held := condition()):
        assert time.monotonic() < deadline, f"{what}: not within {within:.0f} s"
        time.sleep(pause)
    return held


def next_millisecond() -> int:
    """Waits until the service's millisecond clock has moved on; the new value. Stamps are in
    milliseconds, so a write after this never shares an instant with one before it."""
    start = ids.now_ms()
    return int(until(lambda: (now := ids.now_ms()) > start and now, within=5, what="the clock", pause=0.001))
