"""How a bench ends: the Neo4j it used given back, its table printed, its figures kept as JSON."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

from tests.neo4j_target import Neo4jTarget, provision

T = TypeVar("T")


def on_neo4j(measure: Callable[[Neo4jTarget], T]) -> T:
    """Runs `measure` on a provisioned Neo4j and stops whatever was started for it, even on failure."""
    target = provision()
    try:
        return measure(target)
    finally:
        target.close()


def report(result: dict[str, Any], table: Callable[[dict[str, Any]], str], out: Path | str) -> None:
    """Prints the bench's table and writes its figures where `--out` says."""
    print(table(result))
    path = Path(out)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    print(f"\nwrote {path}")


def aligned(rows: list[list[str]]) -> list[str]:
    """A table's rows as lines: the first column left-aligned, the others right-aligned, two apart."""
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    return [
        row[0].ljust(widths[0]) + "".join(c.rjust(w + 2) for c, w in zip(row[1:], widths[1:], strict=True))
        for row in rows
    ]
