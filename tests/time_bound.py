"""A wall-clock bound for a test that drives processes: past it, the test fails instead of hanging CI."""

from __future__ import annotations

import contextlib
import signal
from collections.abc import Iterator
from types import FrameType

import pytest


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
