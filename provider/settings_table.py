"""The settings table of docs/CONFIGURATION.md, written from `Settings` and its field docstrings."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from pydantic import AliasChoices, SecretStr
from pydantic.fields import FieldInfo
from pydantic_settings import BaseSettings

from provider.config import Settings

BEGIN = "<!-- settings table: from provider/config.py by `python -m provider settings-table --write` -->"
END = "<!-- end of the settings table -->"
DOCUMENT = Path(__file__).resolve().parent.parent / "docs" / "CONFIGURATION.md"
HEADER = "| variable | default | meaning |\n|---|---|---|"
BYTES = (("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10))
HOURS = (("h", 3600),)


def env_names(name: str, field: FieldInfo, prefix: str) -> list[str]:
    """The environment variables a field is read from, the first being the one to use."""
    alias = field.validation_alias
    if isinstance(alias, AliasChoices):
        return [choice for choice in alias.choices if isinstance(choice, str)]
    if isinstance(alias, str):
        return [alias]
    return [prefix + name.upper()]


def _in_units(name: str, value: int) -> str:
    """Bytes also in binary units, and seconds in hours, where one divides the value evenly."""
    units = BYTES if name.endswith("_bytes") else HOURS if name.endswith("_seconds") else ()
    for unit, size in units:
        if value >= size and value % size == 0:
            return f" ({value // size} {unit})"
    return ""


def shown_default(name: str, field: FieldInfo) -> str:
    """The default as an operator would write it; a secret's is never shown."""
    if field.annotation is SecretStr:
        return "(secret)"
    value = field.get_default(call_default_factory=True)
    if value is None:
        return "(none)"
    if value == "":
        return "(empty)"
    if isinstance(value, Path):
        home = Path.home()
        text = f"~/{value.relative_to(home)}" if value.is_relative_to(home) else str(value)
        return f"`{text}`"
    if isinstance(value, bool | list):
        return f"`{json.dumps(value, separators=(',', ':'))}`"
    if isinstance(value, int):
        return f"`{value}`{_in_units(name, value)}"
    return f"`{value}`"


def row(name: str, field: FieldInfo, prefix: str) -> str:
    """One line of the table: the variable (and its other names), the default, the description."""
    first, *others = env_names(name, field, prefix)
    variable = f"`{first}`" + (f" (or {', '.join(f'`{n}`' for n in others)})" if others else "")
    meaning = " ".join((field.description or "").split()).replace("|", "\\|")
    return f"| {variable} | {shown_default(name, field)} | {meaning} |"


def table(settings: type[BaseSettings] = Settings) -> str:
    """The whole table, one row per field in the order the class declares them."""
    prefix = str(settings.model_config.get("env_prefix", ""))
    rows = [row(name, field, prefix) for name, field in settings.model_fields.items()]
    return "\n".join([HEADER, *rows])


def spliced(document: str, generated: str) -> str:
    """The document with the text between the two markers replaced by `generated`."""
    head, begin, rest = document.partition(BEGIN)
    _, end, tail = rest.partition(END)
    if not begin or not end:
        raise ValueError(f"the document lacks the markers {BEGIN!r} and {END!r}")
    return f"{head}{BEGIN}\n{generated}\n{END}{tail}"


def main(argv: list[str]) -> int:
    """`python -m provider settings-table [--write]`: print the table, or put it into the document."""
    parser = argparse.ArgumentParser(prog="python -m provider settings-table")
    parser.add_argument("--write", action="store_true", help=f"replace the table in {DOCUMENT.name}")
    args = parser.parse_args(argv)
    generated = table()
    if not args.write:
        print(generated)
        return 0
    try:
        DOCUMENT.write_text(spliced(DOCUMENT.read_text(), generated))
    except (OSError, ValueError) as e:
        print(f"settings-table: {e}", file=sys.stderr)
        return 1
    print(f"settings-table: {DOCUMENT} rewritten", file=sys.stderr)
    return 0
