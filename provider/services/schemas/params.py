"""A named query's params schema: checked once when defined, and again before a run trusts it.

The definer writes the schema and any reader's run is checked against it, so the schema is input
the service must survive. A definition is refused (422) when it names a dialect other than Draft
2020-12 or names one anywhere but at the top, gives `$id` (a schema is one document), points a
`$ref` anywhere but inside itself (`#…`) or at nothing, holds a pattern RE2 cannot run, uses
`unevaluated*`, or fails the metaschema. The walk visits what a validator can reach: the
subschemas of applicator keywords and the targets of references, each once.

A run checks the stored schema by the same rules (a definition kept before them is refused, not
trusted), then validates params with `schema_validator.SafeValidator`, metered. Both checks run in
worker processes, off the event loop and outside its interpreter lock.
"""

from __future__ import annotations

import asyncio
import json
import multiprocessing
from collections.abc import Callable, Iterator
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from functools import lru_cache
from typing import Any

import re2
from jsonschema import Draft202012Validator
from jsonschema.exceptions import best_match
from referencing.exceptions import Unresolvable
from referencing.jsonschema import DRAFT202012

from provider import metrics
from provider.errors import MemoryInvalidError, MemoryUnsupportedError, ProviderError, UnavailableError
from provider.services.schemas.validator import (
    FORMATS,
    REGISTRY,
    UNOFFERED,
    SafeValidator,
    compile_pattern,
    metered,
)

DIALECT = "https://json-schema.org/draft/2020-12/schema"
ONE = ("not", "if", "then", "else", "items", "contains", "additionalProperties", "propertyNames")
MANY = ("allOf", "anyOf", "oneOf", "prefixItems")
NAMED = ("properties", "patternProperties", "$defs", "definitions", "dependentSchemas")
Path = tuple[str | int, ...]
WORKERS = 2  # processes that run checks


class _Workers:
    """Checks run in processes of their own, two at a time, started on first use (or by `warm`).

    A check is pure Python; in a thread it would hold the interpreter lock the event loop needs and
    slow every other request while it runs. In a process it competes for a core, and the OS shares
    cores fairly. A flood of heavy checks waits its turn in this pool and takes nothing else.
    """

    pool: ProcessPoolExecutor | None = None

    @classmethod
    def get(cls) -> ProcessPoolExecutor:
        if cls.pool is None:
            cls.pool = ProcessPoolExecutor(WORKERS, mp_context=multiprocessing.get_context("spawn"))
        return cls.pool

    @classmethod
    def drop(cls) -> None:
        pool, cls.pool = cls.pool, None
        if pool is not None:
            pool.shutdown(wait=False, cancel_futures=True)


REFUSALS: dict[str, type[ProviderError]] = {
    error.code: error for error in (MemoryInvalidError, MemoryUnsupportedError)
}
Refusal = tuple[str, str, str | None, dict[str, Any] | None]


def _refusal(work: Callable[..., None], *args: Any) -> Refusal | None:
    """In a worker: the check's refusal as plain data (an exception would lose its param in pickling)."""
    try:
        work(*args)
    except ProviderError as e:
        return e.code, e.message, e.param, e.detail
    return None


def warm() -> None:
    """Starts the workers now, so the first check does not wait for them."""
    for _ in range(WORKERS):
        _Workers.get().submit(_refusal, _noop)


def _noop() -> None:
    return None


async def _off_loop(work: Callable[..., None], *args: Any) -> None:
    """Runs a check in the workers; its refusal is raised here, as the check raised it there."""
    try:
        with metrics.SCHEMA_CHECKS_WAITING.track_inprogress():
            refusal = await asyncio.get_running_loop().run_in_executor(_Workers.get(), _refusal, work, *args)
    except BrokenProcessPool:
        _Workers.drop()
        raise UnavailableError("The params check could not run; try again.") from None
    if refusal is not None:
        code, message, param, detail = refusal
        raise REFUSALS.get(code, MemoryInvalidError)(message, param=param, detail=detail)


async def in_worker(work: Callable[..., None], *args: Any) -> None:
    """Another bounded check (a record type's attributes) in the same workers, refused the same way."""
    await _off_loop(work, *args)


def _where(path: Path) -> str:
    return "".join(f".{part}" for part in path)


def _check_node(node: dict[str, Any], path: Path) -> None:
    """The rules one schema object keeps: its dialect, no `$id`, offered keywords, RE2 patterns."""
    where = "params" + _where(path)
    if "$schema" in node and (path or node["$schema"] != DIALECT):
        raise MemoryUnsupportedError(
            f"A params schema may name its dialect at the top only, as {DIALECT}.", param=where + ".$schema"
        )
    if "$id" in node:
        raise MemoryUnsupportedError(
            "A params schema is one document: $id is not supported.", param=where + ".$id"
        )
    for name in UNOFFERED:
        if name in node:
            raise MemoryUnsupportedError(f"{name} is not offered in params schemas.", param=f"{where}.{name}")
    patterns = [("pattern", node["pattern"])] if isinstance(node.get("pattern"), str) else []
    if isinstance(node.get("patternProperties"), dict):
        patterns += [(f"patternProperties.{key}", key) for key in node["patternProperties"]]
    for place, pattern in patterns:
        try:
            compile_pattern(pattern)
        except re2.error:
            raise MemoryUnsupportedError(
                "The pattern is not one RE2 runs (no backreferences or lookaround).", param=f"{where}.{place}"
            ) from None


def _children(node: dict[str, Any], path: Path) -> Iterator[tuple[Any, Path]]:
    """The subschemas the applicator keywords hold, with their places."""
    for key in ONE:
        if key in node:
            yield node[key], (*path, key)
    for key in MANY:
        if isinstance(node.get(key), list):
            yield from ((child, (*path, key, i)) for i, child in enumerate(node[key]))
    for key in NAMED:
        if isinstance(node.get(key), dict):
            yield from ((child, (*path, key, name)) for name, child in node[key].items())


def _targets(resolver: Any, node: dict[str, Any], path: Path) -> Iterator[tuple[Any, Path]]:
    """What the node's references lead to: only places inside the schema (`#…`) that exist."""
    for key in ("$ref", "$dynamicRef"):
        ref = node.get(key)
        if not isinstance(ref, str):
            continue
        where = "params" + _where((*path, key))
        if not ref.startswith("#"):
            raise MemoryUnsupportedError(
                "References in a params schema stay inside it (#/...); nothing is fetched.", param=where
            )
        try:
            yield resolver.lookup(ref).contents, (*path, key)
        except Unresolvable:
            raise MemoryInvalidError("The reference points at nothing in the schema.", param=where) from None


def _walk(schema: dict[str, Any]) -> None:
    """Every object a validator can reach, each checked once (iterative: depth costs no stack)."""
    resolver = REGISTRY.resolver_with_root(DRAFT202012.create_resource(schema))
    stack: list[tuple[Any, Path]] = [(schema, ())]
    seen: set[int] = set()
    while stack:
        node, path = stack.pop()
        if not isinstance(node, dict) or id(node) in seen:
            continue
        seen.add(id(node))
        _check_node(node, path)
        stack.extend(_targets(resolver, node, path))
        stack.extend(_children(node, path))


def _against_metaschema(schema: dict[str, Any]) -> None:
    meta = SafeValidator(Draft202012Validator.META_SCHEMA, registry=REGISTRY, format_checker=FORMATS)
    error = best_match(meta.iter_errors(schema))
    if error is not None:
        raise MemoryInvalidError(
            f"params is not a valid JSON Schema ({error.validator} fails here).",
            param="params" + _where(tuple(error.absolute_path)),
        )


def check_definition(schema: dict[str, Any]) -> None:
    """Refuses a schema this provider cannot check safely, naming the place in it."""

    def work() -> None:
        _walk(schema)
        _against_metaschema(schema)

    metered(work)


async def checked_definition(schema: dict[str, Any]) -> None:
    """`check_definition` in a worker (the metaschema alone costs ~0.3 s on 64 KB)."""
    await _off_loop(check_definition, schema)


@lru_cache(maxsize=256)
def _usable(text: str) -> None:
    """A stored schema passes today's rules (cached by its JSON: a definition is checked once)."""
    try:
        check_definition(json.loads(text))
    except ProviderError as e:
        raise MemoryInvalidError(
            "This query's params schema breaks the rules for params schemas; define the query again.",
            param="params",
            detail={"schema_param": e.param},
        ) from None


def check_params(schema: dict[str, Any], params: dict[str, Any]) -> None:
    """A run's params against the schema; the message names the place and keyword, never the value."""
    _usable(json.dumps(schema, sort_keys=True))
    # The dialect is dropped: a reference back to the top would switch to the library's own class.
    root = {key: value for key, value in schema.items() if key != "$schema"}

    def work() -> None:
        validator = SafeValidator(root, registry=REGISTRY, format_checker=FORMATS)
        error = best_match(validator.iter_errors(params))
        if error is not None:
            where = _where(tuple(error.absolute_path))
            raise MemoryInvalidError(
                f"params{where} does not match the query's schema ({error.validator}).",
                param="params" + where,
                detail={"schema_path": [str(p) for p in error.absolute_schema_path]},
            )

    metered(work)


async def checked_params(schema: dict[str, Any], params: dict[str, Any]) -> None:
    """`check_params` in a worker."""
    await _off_loop(check_params, schema, params)
