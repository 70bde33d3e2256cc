"""deploy/smoke.py, the compose check's session, run here against the served app over real HTTP.

The compose check runs it against the containers; this runs the same code on every test run, so a
change to the client or the routes that breaks it fails here first.
"""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path
from types import ModuleType

import pytest

from provider.config import Settings

SMOKE = Path(__file__).resolve().parents[2] / "deploy" / "smoke.py"


def smoke_script() -> ModuleType:
    spec = importlib.util.spec_from_file_location("deploy_smoke", SMOKE)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_smoke_session_passes_against_the_served_app(
    served: str, settings: Settings, tmp_path: Path
) -> None:
    smoke = smoke_script()
    state = tmp_path / "smoke.json"
    smoke.write(served, settings.admin_key.get_secret_value(), state)
    kept = json.loads(state.read_text())
    assert set(kept) == {"key", "memory", "record"}
    smoke.verify(served, state)


def test_the_smoke_session_says_why_when_refused(
    served: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    argv = [
        "smoke.py",
        "write",
        "--url",
        served,
        "--admin-key",
        "not-the-admin-key",
        "--state",
        str(tmp_path / "s"),
    ]
    monkeypatch.setattr("sys.argv", argv)
    with pytest.raises(SystemExit) as refused:
        smoke_script().main()
    assert "401 invalid_credential" in str(refused.value.code)
