"""The map a newcomer reads first is true to the code (docs/ARCHITECTURE.md, pyproject's import contracts).

- Every file or folder ARCHITECTURE.md names exists.
- Every module of `provider` sits in a layer of the layers contract, and every part of
  `provider.services` in a layer of the capabilities contract: no module is outside the rules.
- Every port method says what it promises.
"""

from __future__ import annotations

import ast
import re
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
NAMED = re.compile(r"`((?:[a-z_]+/)*[a-z_]+(?:\.py|/))`")
# Where a path the map gives short (`store/driver.py`, `ports.py`) is read from.
BASES = ("", "provider", "provider/services", "provider/store", "provider/blobs", "provider/api")


def contracts() -> dict[str, dict[str, object]]:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    return {c["name"]: c for c in config["tool"]["importlinter"]["contracts"]}


def layered(name_start: str) -> set[str]:
    """Every module a layers contract (found by the start of its name) names."""
    contract = next(c for name, c in contracts().items() if name.startswith(name_start))
    layers = contract["layers"]
    assert isinstance(layers, list)
    return {part.strip() for layer in layers for part in str(layer).split("|")}


def exists(named: str) -> bool:
    if "/" in named.rstrip("/"):
        return any((ROOT / base / named).exists() for base in BASES)
    return any(ROOT.glob(f"**/{named.rstrip('/')}"))


def test_every_path_the_map_names_exists() -> None:
    text = (ROOT / "docs" / "ARCHITECTURE.md").read_text(encoding="utf-8")
    named = sorted(set(NAMED.findall(text)))
    assert named, "the map names no files"
    missing = [path for path in named if not exists(path)]
    assert missing == [], f"docs/ARCHITECTURE.md names what is not there: {missing}"


def test_every_provider_module_sits_in_a_layer() -> None:
    layers = layered("Layers run one way")
    modules = {
        f"provider.{path.stem if path.suffix == '.py' else path.name}"
        for path in (ROOT / "provider").iterdir()
        if (path.suffix == ".py" and path.stem != "__init__") or (path / "__init__.py").exists()
    }
    assert sorted(modules - layers) == []


def test_every_part_of_the_services_sits_in_a_capability_layer() -> None:
    layers = layered("Capabilities run one way")
    parts = {
        path.stem if path.suffix == ".py" else path.name
        for path in (ROOT / "provider" / "services").iterdir()
        if (path.suffix == ".py" and path.stem != "__init__") or (path / "__init__.py").exists()
    }
    assert sorted(parts - layers) == []


DOTTED = re.compile(r"`([A-Za-z_]+)\.([a-z_]+)`")
# `store/records.py: Neo4jRecordStore.create`, `provider/ids.py: now_ms`: a place in a file.
PLACED = re.compile(r"`((?:[a-z_]+/)*[a-z_]+)\.py: (?:([A-Z][A-Za-z]+)\.)?([a-z_]+)`")
CYPHER = re.compile(r"`([a-z_0-9]+)\.cypher`")


def sources() -> dict[Path, str]:
    return {path: path.read_text(encoding="utf-8") for path in (ROOT / "provider").rglob("*.py")}


def test_every_class_method_and_module_function_the_map_names_exists() -> None:
    text = (ROOT / "docs" / "ARCHITECTURE.md").read_text(encoding="utf-8")
    code = sources()
    missing = []
    for owner, name in sorted(set(DOTTED.findall(text))):
        if name in ("py", "cypher", "toml", "md", "state") or owner == "provider":
            continue  # a file or module name, or Starlette's request.state
        if owner[0].isupper():
            found = any(
                re.search(rf"class {owner}\b[\s\S]*?def {name}\(", source)
                for source in code.values()
                if f"class {owner}" in source
            )
        else:
            found = any(
                path.stem == owner and re.search(rf"^(async )?def {name}\(", source, re.M)
                for path, source in code.items()
            )
        if not found:
            missing.append(f"{owner}.{name}")
    assert missing == [], f"docs/ARCHITECTURE.md names what the code does not hold: {missing}"


def test_every_statement_the_map_names_exists() -> None:
    text = (ROOT / "docs" / "ARCHITECTURE.md").read_text(encoding="utf-8")
    shipped = {path.stem for path in (ROOT / "cypher").glob("*.cypher")}
    assert sorted(set(CYPHER.findall(text)) - shipped) == []


def test_every_place_in_a_file_the_map_names_exists() -> None:
    text = (ROOT / "docs" / "ARCHITECTURE.md").read_text(encoding="utf-8")
    missing = []
    for path, owner, name in sorted(set(PLACED.findall(text))):
        files = [ROOT / base / f"{path}.py" for base in BASES if (ROOT / base / f"{path}.py").exists()]
        source = files[0].read_text(encoding="utf-8") if files else ""
        if owner:
            found = bool(re.search(rf"class {owner}\b[\s\S]*?def {name}\(", source))
        else:
            found = bool(re.search(rf"^(async )?def {name}\(", source, re.M))
        if not found:
            missing.append(f"{path}.py: {owner + '.' if owner else ''}{name}")
    assert missing == [], f"docs/ARCHITECTURE.md names what the code does not hold: {missing}"


def test_every_port_method_says_what_it_promises() -> None:
    """A port is the contract a fake and a store both keep: each method says what it answers."""
    silent = [
        f"{path.relative_to(ROOT)}: {cls.name}.{fn.name}"
        for path in sorted((ROOT / "provider" / "services").rglob("ports.py"))
        for cls in ast.parse(path.read_text(encoding="utf-8")).body
        if isinstance(cls, ast.ClassDef)
        for fn in cls.body
        if isinstance(fn, ast.FunctionDef | ast.AsyncFunctionDef) and ast.get_docstring(fn) is None
    ]
    assert not silent, f"give these port methods a docstring: {silent}"
