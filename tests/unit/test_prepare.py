"""`python -m provider prepare` and `fetch-reranker`: the cross-encoder lands in the cache an image ships.

The cache is a fresh folder holding links to the real files (scripts/test fetches them before pytest),
so nothing here downloads; the embedding model and the explorer's script are other tests' business.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from provider import __main__ as command_line
from provider.reranker import RERANKER_FOLDER, reranker_files


@pytest.fixture
def real() -> Path:
    """The folder the usual cache holds the two files in (read before UHP_CACHE_DIR moves)."""
    return reranker_files()


@pytest.fixture
def cache(real: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """UHP_CACHE_DIR in a fresh folder; only the cross-encoder's step of `prepare` runs."""
    monkeypatch.setenv("UHP_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(command_line, "_fetch_model", lambda: 0)
    monkeypatch.setattr(command_line, "_explorer_assets", lambda: 0)
    return tmp_path


def seed(cache: Path, real: Path) -> Path:
    """The two files already in the cache, as a first fetch leaves them."""
    folder = cache / "models" / RERANKER_FOLDER
    folder.mkdir(parents=True)
    for name in ("model.onnx", "tokenizer.json"):
        (folder / name).symlink_to(real / name)
    return folder


def test_prepare_takes_the_cross_encoder_by_default(
    cache: Path, real: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = seed(cache, real)
    assert command_line.main(["prepare"]) == 0
    assert f"is in {folder}" in capsys.readouterr().out
    assert command_line.main(["fetch-reranker"]) == 0
    assert str(folder) in capsys.readouterr().out


def test_prepare_leaves_it_out_when_rerank_is_off(
    cache: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("UHP_RECALL_RERANK", "False")
    assert command_line.main(["prepare"]) == 0  # an empty cache: it would have had to download
    assert "not fetched" in capsys.readouterr().out
    assert not (cache / "models").exists()
    monkeypatch.setenv("UHP_RECALL_RERANK", "maybe")
    with pytest.raises(SystemExit, match="UHP_RECALL_RERANK"):
        command_line.main(["prepare"])
