"""Services return domain types; the wire's `"object": ...` dicts are built at the edge (api/, cli).

A static check over provider/services: a dict literal with an "object" key is a wire answer built in
the wrong layer.
"""

from __future__ import annotations

import ast
from pathlib import Path

SERVICES = Path(__file__).resolve().parents[2] / "provider" / "services"


def wire_dicts_in(source: str, module: str) -> set[tuple[str, str]]:
    """(module, enclosing function) of each dict literal with an "object" key in `source`."""
    found: set[tuple[str, str]] = set()
    for function in ast.walk(ast.parse(source)):
        if not isinstance(function, ast.FunctionDef | ast.AsyncFunctionDef):
            continue
        for node in ast.walk(function):
            if isinstance(node, ast.Dict) and any(
                isinstance(key, ast.Constant) and key.value == "object" for key in node.keys
            ):
                found.add((module, function.name))
    return found


def wire_dicts() -> set[tuple[str, str]]:
    """The same over every module of provider/services."""
    found: set[tuple[str, str]] = set()
    for path in sorted(SERVICES.rglob("*.py")):
        found |= wire_dicts_in(path.read_text(), path.relative_to(SERVICES).as_posix())
    return found


def test_no_service_builds_a_wire_answer() -> None:
    assert wire_dicts() == set(), "build these answers at the edge (api/, protocol/) from a domain type"


def test_the_check_sees_a_wire_dict_and_only_that() -> None:
    source = (
        "async def start(self):\n    return {'object': 'memory.job', 'id': 1}\n"
        "def plain():\n    return {'id': 1, 'objects': []}\n"
    )
    assert wire_dicts_in(source, "m.py") == {("m.py", "start")}
