"""The Cypher catalogue: every file explains itself, every file is used, an unknown name fails fast."""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path

import pytest

from provider.store.catalogue import CYPHER_DIR, cypher_files, names, statement
from provider.store.schema import schema_statements

PROVIDER_DIR = Path(__file__).resolve().parents[2] / "provider"
FILES = cypher_files()


@cache
def provider_source() -> str:
    return "\n".join(path.read_text(encoding="utf-8") for path in sorted(PROVIDER_DIR.rglob("*.py")))


def header(text: str) -> str:
    """The leading comment block."""
    lines = []
    for line in text.splitlines():
        if not line.startswith("//"):
            break
        lines.append(line)
    return "\n".join(lines)


def test_the_catalogue_holds_every_file() -> None:
    assert FILES, f"no .cypher files in {CYPHER_DIR}"
    assert names() == [path.stem for path in FILES]


@pytest.mark.parametrize("path", FILES, ids=[path.stem for path in FILES])
def test_each_file_opens_with_a_header_naming_its_parameters(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    assert text.startswith("//"), f"{path.name} must open with a // header comment"
    assert "Parameters" in header(text), f"{path.name}: the header must list its Parameters (or say none)"
    assert text[len(header(text)) :].strip(), f"{path.name} has a header but no statement"
    assert statement(path.stem) == text


@pytest.mark.parametrize("path", FILES, ids=[path.stem for path in FILES])
def test_each_file_is_used_by_the_provider(path: Path) -> None:
    if path.stem in schema_statements():
        # Schema files are applied by their shared prefix, in order, so none is named on its own.
        return
    quoted = re.compile(rf"""["']{re.escape(path.stem)}["']""")
    assert quoted.search(provider_source()), f"{path.name} is not referenced by name anywhere in provider/"


def test_schema_files_are_applied_in_order_and_only_they() -> None:
    applied = schema_statements()
    assert applied == sorted(applied)
    assert applied == [p.stem for p in FILES if re.fullmatch(r"schema_\d{3}_\w+", p.stem)]


def test_an_unknown_name_fails_fast() -> None:
    with pytest.raises(LookupError, match="no_such_statement"):
        statement("no_such_statement")
