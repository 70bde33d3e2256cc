"""Writes `sync.py` and `aio.py`: one method per function of `routes.py`, with its signature.

Run `python -m provider.client.generate` after changing `routes.py`; `--check` exits 1 when the
files differ from what it would write (the tests run it).
"""

from __future__ import annotations

import inspect
import re
import shutil
import subprocess
import sys
import types
import typing
from pathlib import Path

from provider.client import call, routes
from provider.protocol.answers import shapes

HERE = Path(__file__).resolve().parent
CLASSES = {
    "sync.py": ("MemoryClient", "SyncTransport", "", "self.send"),
    "aio.py": ("AsyncMemoryClient", "AsyncTransport", "async ", "await self.send"),
}
NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
UNIONS = (typing.Union, types.UnionType)
BUILTIN = {"str", "int", "bool", "float", "bytes", "dict", "list", "None", "Any", "Literal", "Call"}


def surface() -> list[tuple[str, inspect.Signature, str]]:
    """(name, signature, first docstring line) of every public route function, in file order."""
    found = []
    for name, function in vars(routes).items():
        if (
            inspect.isfunction(function)
            and function.__module__ == routes.__name__
            and not name.startswith("_")
        ):
            found.append((name, inspect.signature(function), (function.__doc__ or "").splitlines()[0]))
    return found


def _parameter(parameter: inspect.Parameter) -> str:
    text = (
        parameter.name
        if parameter.annotation is inspect.Parameter.empty
        else f"{parameter.name}: {parameter.annotation}"
    )
    if parameter.kind is inspect.Parameter.VAR_KEYWORD:
        return "**" + text
    if parameter.default is not inspect.Parameter.empty:
        text += f" = {parameter.default!r}"
    return text


def _method(name: str, signature: inspect.Signature, doc: str, prefix: str, send: str) -> str:
    parameters, arguments, starred = ["self"], [], False
    for parameter in signature.parameters.values():
        if parameter.kind is inspect.Parameter.KEYWORD_ONLY and not starred:
            parameters.append("*")
            starred = True
        parameters.append(_parameter(parameter))
        if parameter.kind is inspect.Parameter.VAR_KEYWORD:
            arguments.append(f"**{parameter.name}")
        elif parameter.kind is inspect.Parameter.KEYWORD_ONLY:
            arguments.append(f"{parameter.name}={parameter.name}")
        else:
            arguments.append(parameter.name)
    answer = str(signature.return_annotation).removeprefix("Call[").removesuffix("]")
    return (
        f"    {prefix}def {name}({', '.join(parameters)}) -> {answer}:\n"
        f'        """{doc}"""\n'
        f"        return {send}(routes.{name}({', '.join(arguments)}))\n"
    )


def _imports(text: str, base: str) -> str:
    """The base class, and an import for each model or alias the annotations name, from its module."""
    by_module: dict[str, set[str]] = {"provider.client.transport": {base}}
    for name in set(NAME.findall(text)) - BUILTIN:
        value = getattr(routes, name, None)
        if inspect.isclass(value) and value.__module__.startswith("provider.protocol"):
            by_module.setdefault(value.__module__, set()).add(name)
        elif name in vars(shapes):  # an alias such as Privilege
            by_module.setdefault(shapes.__name__, set()).add(name)
        elif typing.get_origin(vars(call).get(name)) in UNIONS:  # the client's own alias, Stream
            by_module.setdefault(call.__name__, set()).add(name)
    return "".join(f"from {m} import {', '.join(sorted(names))}\n" for m, names in sorted(by_module.items()))


def _formatted(text: str, filename: str) -> str:
    """As `ruff format` leaves it, so the check compares like with like."""
    ruff = shutil.which("ruff", path=str(Path(sys.executable).parent)) or "ruff"
    done = subprocess.run(
        [ruff, "format", "--stdin-filename", str(HERE / filename), "-"],
        input=text, capture_output=True, text=True, check=True,
    )  # fmt: skip
    return done.stdout


def render(filename: str) -> str:
    cls, base, prefix, send = CLASSES[filename]
    methods = "\n".join(_method(name, sig, doc, prefix, send) for name, sig, doc in surface())
    kind = "async" if prefix else "sync"
    text = (
        f'"""The {kind} client, one method per route; made by `python -m provider.client.generate`."""\n\n'
        "from __future__ import annotations\n\n"
        "from typing import Any, Literal\n\n"
        "from provider.client import routes\n" + _imports(methods, base) + "\n\n"
        f"class {cls}({base}):\n"
        f'    """Typed {kind} access to every route of the chapter and the admin surface."""\n\n' + methods
    )
    return _formatted(text, filename)


def main(argv: list[str]) -> int:
    stale = []
    for filename in CLASSES:
        target = HERE / filename
        text = render(filename)
        if "--check" in argv:
            if not target.exists() or target.read_text() != text:
                stale.append(filename)
        else:
            target.write_text(text)
    if stale:
        print(f"stale: {', '.join(stale)}; run python -m provider.client.generate", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
