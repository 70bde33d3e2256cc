"""Services return domain types; the wire's `"object": ...` dicts are built at the edge (api/, cli).

A static check over provider/services: a dict literal with an "object" key is a wire answer built in
the wrong layer. The answers not moved yet are listed by name; the list may only shrink (a name
listed that no longer builds one fails too, so it is taken off when its answer moves).
"""

from __future__ import annotations

import ast
from pathlib import Path

SERVICES = Path(__file__).resolve().parents[2] / "provider" / "services"

# Still built in a service, to be moved to the edge (issue 29): (module, function).
NOT_MOVED_YET = {
    ("capabilities.py", "provider_document"),
    ("lifecycle/consolidation.py", "run_json"),
}


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


def test_no_service_builds_a_new_wire_answer() -> None:
    built = wire_dicts()
    assert built - NOT_MOVED_YET == set(), "build these answers at the edge, from a domain type"


def test_the_list_of_answers_not_moved_yet_only_shrinks() -> None:
    assert NOT_MOVED_YET - wire_dicts() == set(), "moved: take these off NOT_MOVED_YET"


def test_the_check_sees_a_wire_dict_and_only_that() -> None:
    source = (
        "async def start(self):\n    return {'object': 'memory.job', 'id': 1}\n"
        "def plain():\n    return {'id': 1, 'objects': []}\n"
    )
    assert wire_dicts_in(source, "m.py") == {("m.py", "start")}
