"""Reports how much the model-based access test exercised, at the end of the run."""

from __future__ import annotations

import sys

import pytest


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    """One line with the executed step count (and the outcomes reached), when the model test ran."""
    module = sys.modules.get("tests.property.test_access_model")
    steps = getattr(module, "STEPS", None)
    if not steps or not steps["rules"]:
        return
    outcomes = getattr(module, "OUTCOMES", {})
    terminalreporter.write_sep("-", "access model")
    terminalreporter.write_line(
        f"{steps['rules']} steps, {steps['checks']} checks after steps, {steps['requests']} requests"
    )
    terminalreporter.write_line("outcomes: " + ", ".join(f"{k}: {v}" for k, v in sorted(outcomes.items())))
