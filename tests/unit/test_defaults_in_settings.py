"""Every default is written once, in provider/config.py: no service constructor carries one of its own.

A literal default on a constructor (a number, a string, a flag) is a second place a setting's value
lives, and the two drift apart: recall's constructor once fused by rank with no date lift while the
settings said scores and 0.5. Collaborators may still default to None (none given), and an output
stream to stderr.
"""

from __future__ import annotations

import ast
from pathlib import Path

SERVICES = Path(__file__).resolve().parents[2] / "provider" / "services"


def _is_error(base: ast.expr) -> bool:
    return ast.unparse(base).endswith(("Error", "Exception"))


def literal_defaults(path: Path) -> list[str]:
    """`Class.parameter = value` for each constructor parameter of the module whose default is a literal."""
    found = []
    for node in ast.walk(ast.parse(path.read_text())):
        if not isinstance(node, ast.ClassDef) or any(_is_error(base) for base in node.bases):
            continue  # an exception's flags describe the failure, they are no setting
        for init in (n for n in node.body if isinstance(n, ast.FunctionDef) and n.name == "__init__"):
            args = init.args
            positional = list(
                zip(args.args[len(args.args) - len(args.defaults) :], args.defaults, strict=True)
            )
            keyword = [
                (a, d) for a, d in zip(args.kwonlyargs, args.kw_defaults, strict=True) if d is not None
            ]
            for arg, default in positional + keyword:
                if isinstance(default, ast.Constant) and default.value is not None:
                    found.append(f"{node.name}.{arg.arg} = {ast.unparse(default)}")
                if isinstance(default, ast.BinOp | ast.UnaryOp):  # 4 * 1024, -1
                    found.append(f"{node.name}.{arg.arg} = {ast.unparse(default)}")
    return found


def test_no_service_constructor_has_a_literal_default() -> None:
    offenders = {str(p.relative_to(SERVICES)): literal_defaults(p) for p in sorted(SERVICES.rglob("*.py"))}
    assert {path: found for path, found in offenders.items() if found} == {}


def test_the_check_sees_a_literal_default(tmp_path: Path) -> None:
    module = tmp_path / "m.py"
    module.write_text(
        "class S:\n    def __init__(self, a, *, lease_ms: int = 30_000, gone=None):\n        pass\n"
    )
    assert literal_defaults(module) == ["S.lease_ms = 30000"]
