"""The schema check's meter counts the checking thread's CPU time, not the wall clock: work that
burns CPU past the budget is refused, a check that waits (as on a loaded machine) is not."""

from __future__ import annotations

import time

import pytest

from provider.errors import MemoryInvalidError
from provider.services.schemas import validator as schema_validator
from provider.services.schemas.validator import metered


def test_a_check_that_burns_its_cpu_budget_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(schema_validator, "SECONDS", 0.2)

    def burn() -> None:
        started = time.monotonic()
        while time.monotonic() - started < 30:  # free spends: only the CPU clock can stop this
            schema_validator._spend(0)

    started = time.monotonic()
    with pytest.raises(MemoryInvalidError, match="takes too long"):
        metered(burn)
    assert time.monotonic() - started < 20


def test_waiting_for_a_core_is_not_spent(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(schema_validator, "SECONDS", 0.2)

    def wait_then_spend() -> None:
        time.sleep(0.5)  # stands in for a loaded machine: wall time passes, no CPU is used
        for _ in range(10 * schema_validator.CLOCK_EVERY):
            schema_validator._spend(1)

    metered(wait_then_spend)
