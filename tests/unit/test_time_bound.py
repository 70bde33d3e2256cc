"""The bound that keeps a process-driving test from hanging CI really fails it, and leaves no timer behind."""

from __future__ import annotations

import signal
import time

import pytest

from tests.time_bound import time_bound


def test_a_block_past_its_bound_fails_the_test() -> None:
    began = time.monotonic()
    with pytest.raises(pytest.fail.Exception, match="past its 0 s bound"), time_bound(0.2):
        time.sleep(5)
    assert time.monotonic() - began < 2


def test_a_block_within_its_bound_leaves_no_timer_and_the_old_handler() -> None:
    before = signal.getsignal(signal.SIGALRM)
    with time_bound(5):
        pass
    assert signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0)
    assert signal.getsignal(signal.SIGALRM) == before
