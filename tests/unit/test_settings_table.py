"""docs/CONFIGURATION.md's settings table is the one `Settings` generates, and it shows no secret."""

from __future__ import annotations

from pathlib import Path

import pytest
from pydantic import AliasChoices, Field, SecretStr
from pydantic_settings import BaseSettings, SettingsConfigDict

from provider import settings_table
from provider.config import setting_fields


def documented_table() -> str:
    text = settings_table.DOCUMENT.read_text()
    _, _, rest = text.partition(settings_table.BEGIN)
    table, end, _ = rest.partition(settings_table.END)
    assert end, f"{settings_table.DOCUMENT} lacks the settings table's markers"
    return table.strip("\n")


def test_the_documented_table_is_the_generated_one() -> None:
    assert documented_table() == settings_table.grouped(), (
        "docs/CONFIGURATION.md's settings table differs from provider/config.py's Settings; "
        "regenerate it with `python -m provider settings-table --write`"
    )


def test_every_setting_has_one_place_among_the_capabilities() -> None:
    placed = [name for _, names in settings_table.CAPABILITIES for name in names]
    assert sorted(placed) == sorted(setting_fields()), (
        "each field of Settings belongs in exactly one group of provider/settings_table.py: CAPABILITIES"
    )


def test_every_setting_is_described() -> None:
    undescribed = [name for name, (_, field, _) in setting_fields().items() if not field.description]
    assert not undescribed, f"give these a docstring in provider/config.py: {undescribed}"


class Example(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="X_", use_attribute_docstrings=True)

    token: SecretStr = SecretStr("hunter2-not-a-default-to-print")
    """A secret with | a pipe."""
    uri: str = Field("", validation_alias=AliasChoices("PLAIN_URI", "X_URI"))
    """Read under two names."""
    cache: Path = Path.home() / ".cache" / "x"
    """Under the home directory."""
    part_bytes: int = 8 * 1024 * 1024
    """A size."""
    kinds: list[str] = ["text/*"]
    """A list."""
    weight: float | None = None
    """Nothing by default."""


@pytest.fixture
def rows() -> dict[str, str]:
    lines = settings_table.table(Example).splitlines()[2:]
    return {line.split(" | ")[0].removeprefix("| "): line for line in lines}


def test_a_secret_shows_no_default(rows: dict[str, str]) -> None:
    assert "hunter2" not in "\n".join(rows.values())
    assert rows["`X_TOKEN`"] == "| `X_TOKEN` | (secret) | A secret with \\| a pipe. |"


def test_names_and_defaults_read_as_an_operator_writes_them(rows: dict[str, str]) -> None:
    assert "`PLAIN_URI` (or `X_URI`)" in rows
    assert "| `~/.cache/x` |" in rows["`X_CACHE`"]
    assert "| `8388608` (8 MiB) |" in rows["`X_PART_BYTES`"]
    assert '| `["text/*"]` |' in rows["`X_KINDS`"]
    assert "| (none) |" in rows["`X_WEIGHT`"]


def test_splicing_keeps_the_prose_around_the_table() -> None:
    begin, end = settings_table.BEGIN, settings_table.END
    document = f"before\n{begin}\nold\n{end}\nafter\n"
    assert settings_table.spliced(document, "new") == f"before\n{begin}\nnew\n{end}\nafter\n"
    with pytest.raises(ValueError, match="markers"):
        settings_table.spliced("no markers here", "new")
