"""The base of every request body: bounds read per request, and a walk that refuses what Neo4j cannot keep.

A caller's JSON reaches the store only through a model derived from `RequestBody`. Before pydantic
looks at the fields, one iterative walk over the raw body refuses integers past 64 bits, floats that
are not finite, strings with lone surrogates and nesting past the body's depth bound, each with the
dotted path of the value (the API turns the path into the envelope's `param`). The walk is
iterative, so a deep body cannot exhaust the interpreter's stack.

The bounds are settings; the API puts the configured `Limits` in a context variable for each request
(`use_limits`), and code outside a request (bulk import, tests) gets the defaults or sets its own.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any, TypeVar

from pydantic import BaseModel, ConfigDict, ValidationError, model_validator
from pydantic_core import PydanticCustomError

from provider.config import Limits
from provider.errors import MemoryInvalidError

INT64_MIN, INT64_MAX = -(2**63), 2**63 - 1


_limits: ContextVar[Limits] = ContextVar("uhp_limits", default=Limits())  # noqa: B039 (frozen)


def current_limits() -> Limits:
    """The bounds that apply to the request being validated."""
    return _limits.get()


@contextmanager
def use_limits(limits: Limits) -> Iterator[None]:
    """Bounds for the code run inside (a request, a bulk import)."""
    token = _limits.set(limits)
    try:
        yield
    finally:
        _limits.reset(token)


def invalid(path: str, message: str) -> PydanticCustomError:
    """A validation error whose `path` (dotted, relative to where it is raised) the API appends to `param`."""
    return PydanticCustomError("uhp_invalid", "{message}", {"message": message, "path": path})


def _join(path: str, key: object) -> str:
    return f"{path}.{key}" if path else str(key)


def _scalar_problem(value: object) -> str | None:
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, int):
        return None if INT64_MIN <= value <= INT64_MAX else "integers must fit in 64 bits"
    if isinstance(value, float):
        return None if math.isfinite(value) else "numbers must be finite"
    if isinstance(value, str) and not value.isascii():  # isascii is O(1); ASCII has no surrogates
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            return "text must be valid Unicode (no lone surrogates)"
    return None


Place = tuple[Any, ...]  # (key, parent place): the dotted path is built only for a refusal


def _dotted(place: Place | None, path: str) -> str:
    keys: list[object] = []
    while place is not None:
        keys.append(place[0])
        place = place[1]
    for key in reversed(keys):
        path = _join(path, key)
    return path


def _plainly_fine(value: Any) -> bool:
    """A scalar the store keeps, told by its type and a cheap test (no walk, no encoding)."""
    kind = type(value)
    if kind is str:
        return value.isascii()  # type: ignore[no-any-return]
    if kind is int:
        return INT64_MIN <= value <= INT64_MAX  # type: ignore[no-any-return]
    if kind is float:
        return math.isfinite(value)
    return kind is bool or value is None


def check_json(value: Any, *, max_depth: int, path: str = "") -> None:
    """Refuses the first value the store cannot keep, or nesting deeper than `max_depth`.

    It runs on the event loop over every value of a body (up to UHP_MAX_BODY_BYTES), so it is kept
    cheap: plain scalars are passed with one type test and paths are only spelled out for a refusal.
    """
    stack: list[tuple[Any, Place | None, int]] = [(value, None, 0)]
    while stack:
        node, place, depth = stack.pop()
        if isinstance(node, dict | list):
            if depth >= max_depth:
                raise invalid(_dotted(place, path), f"nesting is deeper than {max_depth} levels")
            items = node.items() if isinstance(node, dict) else enumerate(node)
            for key, child in items:
                if isinstance(key, str) and not key.isascii() and (problem := _scalar_problem(key)):
                    raise invalid(_dotted(place, path), f"a key is not valid: {problem}")
                if _plainly_fine(child):
                    continue
                stack.append((child, (key, place), depth + 1))
        elif problem := _scalar_problem(node):
            raise invalid(_dotted(place, path), problem)


def json_size(value: Any) -> int:
    """Compact UTF-8 JSON size: what a bound on a free-form object counts."""
    return len(json.dumps(value, separators=(",", ":"), ensure_ascii=False).encode("utf-8"))


def keys_of(value: Any) -> tuple[int, int]:
    """Keys at every level of an object (lists are walked too), and the longest key's length."""
    total, longest, stack = 0, 0, [value]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            total += len(node)
            longest = max([longest, *(len(str(k)) for k in node)])
            stack.extend(node.values())
        elif isinstance(node, list):
            stack.extend(node)
    return total, longest


def depth_of(value: Any) -> int:
    """Levels of nesting: 0 for a scalar, 1 for a flat object or list."""
    deepest, stack = 0, [(value, 0)]
    while stack:
        node, depth = stack.pop()
        if isinstance(node, dict | list):
            children = node.values() if isinstance(node, dict) else node
            deepest = max(deepest, depth + 1)
            stack.extend((child, depth + 1) for child in children)
    return deepest


def check_free_object(value: dict[str, Any], *, what: str) -> dict[str, Any]:
    """Bounds a free-form object (attributes, a budget, params): size, depth, keys.

    Size first: json.dumps runs in C, so a body-sized object (millions of values) is refused in a
    fraction of the time the Python walks for depth and keys would hold the event loop.
    """
    limits = current_limits()
    if json_size(value) > limits.attribute_bytes:
        raise invalid("", f"{what} are at most {limits.attribute_bytes} bytes as JSON")
    if depth_of(value) > limits.attribute_depth:
        raise invalid("", f"{what} nest at most {limits.attribute_depth} levels")
    keys, longest = keys_of(value)
    if keys > limits.attribute_keys:
        raise invalid("", f"{what} hold at most {limits.attribute_keys} keys")
    if longest > limits.attribute_key_chars:
        raise invalid("", f"a key of {what} is at most {limits.attribute_key_chars} characters")
    return value


def check_items(value: list[Any], *, what: str) -> list[Any]:
    """Bounds a list a caller sends."""
    cap = current_limits().list_items
    if len(value) > cap:
        raise invalid("", f"{what} holds at most {cap} items")
    return value


def check_text(value: str, *, what: str) -> str:
    """Bounds one string a caller sends."""
    cap = current_limits().text_chars
    if len(value) > cap:
        raise invalid("", f"{what} is at most {cap} characters")
    return value


class WireModel(BaseModel):
    """A part of a request: fields it does not know are ignored, as the chapter's schemas allow."""

    model_config = ConfigDict(extra="ignore", populate_by_name=True, strict=True)


class RequestBody(WireModel):
    """A whole request body: the store-safety walk runs once over the raw JSON before the fields."""

    @model_validator(mode="before")
    @classmethod
    def _storable(cls, data: Any) -> Any:
        check_json(data, max_depth=current_limits().json_depth)
        return data


Model = TypeVar("Model", bound=BaseModel)
UNION_TAG_START = ("list[", "dict[", "function-", "str", "int", "bool", "float", "nullable[")


def param_of(
    location: tuple[Any, ...] | list[Any], kind: str, context: dict[str, Any] | None, *, marked: bool = True
) -> str | None:
    """A pydantic error's location as the envelope's dotted `param`.

    Union tags pydantic adds to a location (`str`, `list[ContentPart]`, our `=and` discriminator
    tags) are not fields and are dropped; a wire model's own check appends the path below the
    field it ran on. `marked`: the location starts with FastAPI's marker (`body`, `query`, `path`),
    as it does in a route and not in `parse`; only that first part is dropped, since a field may be
    named `body` or `query` too.
    """
    skip = 1 if marked and location and location[0] in ("body", "query", "path", "header") else 0
    parts = [
        str(part)
        for part in list(location)[skip:]
        if not (isinstance(part, str) and (part.startswith(UNION_TAG_START) or part.startswith("=")))
    ]
    inner = (context or {}).get("path") if kind == "uhp_invalid" else None
    if inner:
        parts.append(str(inner))
    return ".".join(parts) or None


def parse(model: type[Model], data: Any, *, prefix: str = "") -> Model:
    """Validates data outside a route (bulk import, observe); the first problem as `memory_invalid`."""
    try:
        return model.model_validate(data)
    except ValidationError as e:
        first = e.errors()[0]
        param = param_of(first["loc"], first["type"], first.get("ctx"), marked=False)
        param = f"{prefix}.{param}" if prefix and param else prefix or param
        raise MemoryInvalidError(f"{param or 'The body'}: {first['msg']}.", param=param) from None
