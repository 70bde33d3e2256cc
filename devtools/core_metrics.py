"""`python -m devtools core-metrics`: how loose the middle is, counted the same way before and after a change.

Counts what issue 42 named: modules and lines, service modules that import the store, service
signatures that take or return `dict[str, Any]` (or a raw row), store methods that return raw rows, and
the places outside the store that build a store. Prints a table; `--json` prints the numbers alone.
"""

from __future__ import annotations

import ast
import json
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PROVIDER = ROOT / "provider"


def _modules(folder: Path) -> list[Path]:
    return sorted(p for p in folder.rglob("*.py") if "__pycache__" not in p.parts)


def _lines(paths: list[Path]) -> int:
    return sum(len(p.read_text().splitlines()) for p in paths)


def _signature(node: ast.FunctionDef | ast.AsyncFunctionDef) -> str:
    return ast.unparse(node.args) + " -> " + (ast.unparse(node.returns) if node.returns is not None else "")


def _loose(annotation: str) -> bool:
    """A raw row: `Row`, a list or optional of them, or a bare `dict[str, Any]`."""
    return "dict[str, Any]" in annotation or re.search(r"\bRow\b", annotation) is not None


def _functions(path: Path) -> list[ast.FunctionDef | ast.AsyncFunctionDef]:
    """Every function and method, private ones too: a helper's loose signature leaks like a public one."""
    tree = ast.parse(path.read_text())
    return [n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)]


def _store_methods(path: Path) -> tuple[int, int]:
    """(public methods of the Neo4j*Store classes, those returning a raw row or rows)."""
    tree = ast.parse(path.read_text())
    total = raw = 0
    for cls in (n for n in tree.body if isinstance(n, ast.ClassDef) and n.name.startswith("Neo4j")):
        for node in cls.body:
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and not node.name.startswith("_"):
                total += 1
                returns = ast.unparse(node.returns) if node.returns is not None else ""
                raw += _loose(returns)
    return total, raw


def counts() -> dict[str, int]:
    """Every figure of the table, by name."""
    provider = _modules(PROVIDER)
    services = _modules(PROVIDER / "services")
    store_methods = [_store_methods(p) for p in _modules(PROVIDER / "store")]
    builders = [
        p
        for p in provider
        if "store" not in p.relative_to(PROVIDER).parts[:1] and "Neo4jStore.from_settings(" in p.read_text()
    ]
    return {
        "provider modules": len(provider),
        "provider lines": _lines(provider),
        "service modules": len(services),
        "service lines": _lines(services),
        "service modules importing the store": sum(
            "provider.store" in p.read_text() or "from provider import store" in p.read_text()
            for p in services
        ),
        "service signatures with dict[str, Any]": sum(
            "dict[str, Any]" in _signature(f) for p in services for f in _functions(p)
        ),
        "store methods": sum(t for t, _ in store_methods),
        "store methods returning raw rows": sum(r for _, r in store_methods),
        "modules outside the store that open a Neo4j store": len(builders),
    }


def main(argv: list[str]) -> int:
    """Prints the table (or JSON with `--json`)."""
    figures = counts()
    if "--json" in argv:
        print(json.dumps(figures, indent=2))
        return 0
    width = max(map(len, figures))
    for name, value in figures.items():
        print(f"{name:<{width}}  {value:>6}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
