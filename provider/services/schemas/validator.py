"""A JSON Schema validator that fetches nothing, matches patterns on RE2, and stops when told.

The library's Draft 2020-12 validator, extended: every keyword is metered (a check past `STEPS`
keyword applications or `SECONDS` of the checking thread's CPU time stops; CPU, not wall, time, so
a loaded machine that makes the check wait for a core does not refuse a schema that costs little),
`pattern`, `patternProperties`, `additionalProperties` and `format: regex` use RE2 (linear-time
matching, where Python's `re` can backtrack for ever on `^(a+)+$`), `uniqueItems` hashes instead of
comparing pairs, and the registry refuses to retrieve any URI. `unevaluatedProperties` and
`unevaluatedItems` are not offered: the library evaluates them outside the meter and matches
property patterns with Python's `re`.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any

import re2
from jsonschema import Draft202012Validator, FormatChecker, ValidationError, validators
from referencing import Registry, Resource
from referencing.exceptions import NoSuchResource

from provider.errors import MemoryInvalidError, MemoryUnsupportedError

STEPS = 100_000  # keyword applications one check may make
SECONDS = 1.0  # and the CPU time it may take, whichever ends first
CLOCK_EVERY = 64  # spends between readings of the thread's CPU clock (a reading costs ~1-2 us)
UNOFFERED = ("unevaluatedProperties", "unevaluatedItems")
WEIGHED = ("enum", "required")  # cost their length
REFERENCES = ("$ref", "$dynamicRef")  # a lookup costs about ten simple keywords
Keyword = Callable[[Any, Any, Any, Any], Any]


def _refuse(uri: str) -> Resource[Any]:
    """The registry's only way to fetch: none. A schema is one document."""
    raise NoSuchResource(ref=uri)  # type: ignore[call-arg]


REGISTRY: Registry[Any] = Registry(retrieve=_refuse)  # type: ignore[call-arg]


class Spent(Exception):
    """A check ran out of steps or CPU time."""


@dataclass
class _Meter:
    """What one check may still spend, and the patterns it compiled (freed with it)."""

    left: int
    deadline: float  # on the checking thread's CPU clock
    spends: int = 0
    patterns: dict[str, Any] = field(default_factory=dict)


_meter: ContextVar[_Meter | None] = ContextVar("uhp_schema_meter", default=None)


def _spend(steps: int) -> None:
    meter = _meter.get()
    if meter is None:
        return
    meter.left -= steps
    meter.spends += 1
    if meter.left < 0 or (meter.spends % CLOCK_EVERY == 0 and time.thread_time() > meter.deadline):
        raise Spent


def metered(work: Callable[[], None]) -> None:
    """Runs a check with a fresh meter; running out of steps, time or stack is a 422, never a 500."""
    token = _meter.set(_Meter(STEPS, time.thread_time() + SECONDS))
    try:
        work()
    except Spent:
        raise MemoryInvalidError(
            "Checking params against this schema takes too long; simplify the schema.", param="params"
        ) from None
    except RecursionError:
        raise MemoryInvalidError("The params schema refers to itself without end.", param="params") from None
    finally:
        _meter.reset(token)


def compile_pattern(pattern: str) -> Any:
    """A pattern on RE2; `re2.error` when RE2 cannot run it (backreferences, lookaround)."""
    meter = _meter.get()
    if meter is not None and pattern in meter.patterns:
        return meter.patterns[pattern]
    options = re2.Options()
    options.log_errors = False
    compiled = re2.compile(pattern, options)
    if meter is not None:
        meter.patterns[pattern] = compiled
    return compiled


def _pattern(validator: Any, pattern: str, instance: Any, schema: Any) -> Iterator[ValidationError]:
    if validator.is_type(instance, "string") and not compile_pattern(pattern).search(instance):
        yield ValidationError("does not match the pattern")


def _pattern_properties(
    validator: Any, patterns: dict[str, Any], instance: Any, schema: Any
) -> Iterator[ValidationError]:
    if not validator.is_type(instance, "object"):
        return
    for pattern, subschema in patterns.items():
        compiled = compile_pattern(pattern)
        for key, value in instance.items():
            if compiled.search(key):
                yield from validator.descend(value, subschema, path=key, schema_path=pattern)


def _additional_properties(
    validator: Any, extra: Any, instance: Any, schema: Any
) -> Iterator[ValidationError]:
    if not validator.is_type(instance, "object"):
        return
    named, patterns = schema.get("properties", {}), list(schema.get("patternProperties", {}))
    extras = [
        key
        for key in instance
        if key not in named and not any(compile_pattern(p).search(key) for p in patterns)
    ]
    if validator.is_type(extra, "object"):
        for key in extras:
            yield from validator.descend(instance[key], extra, path=key)
    elif extra is False and extras:
        yield ValidationError("has properties the schema does not allow")


def _canonical(value: Any) -> Any:
    """A hashable stand-in, equal exactly when JSON Schema calls two values equal (1 == 1.0, True != 1)."""
    if isinstance(value, bool) or value is None:
        return ("literal", value)
    if isinstance(value, int | float):
        return ("number", value)
    if isinstance(value, list):
        return ("list", tuple(_canonical(v) for v in value))
    if isinstance(value, dict):
        return ("object", frozenset((k, _canonical(v)) for k, v in value.items()))
    return ("text", value)


def _unique_items(validator: Any, unique: Any, instance: Any, schema: Any) -> Iterator[ValidationError]:
    """By hashing (linear), where the library compares unsortable items pair by pair."""
    if unique and validator.is_type(instance, "array"):
        _spend(len(instance))
        if len({_canonical(item) for item in instance}) < len(instance):
            yield ValidationError("has items that are not unique")


def _unoffered(validator: Any, value: Any, instance: Any, schema: Any) -> Iterator[ValidationError]:
    raise MemoryUnsupportedError(
        "Params schemas may not use unevaluatedProperties or unevaluatedItems on this provider.",
        param="params",
    )


def _metered(name: str, keyword: Keyword) -> Keyword:
    weight = 10 if name in REFERENCES else 1

    def run(validator: Any, value: Any, instance: Any, schema: Any) -> Any:
        _spend(weight + (len(value) if name in WEIGHED and isinstance(value, list) else 0))
        return keyword(validator, value, instance, schema)

    return run


_KEYWORDS: dict[str, Keyword] = {
    **Draft202012Validator.VALIDATORS,
    "pattern": _pattern,
    "patternProperties": _pattern_properties,
    "additionalProperties": _additional_properties,
    "uniqueItems": _unique_items,
    **dict.fromkeys(UNOFFERED, _unoffered),
}
# Not registered for any `$schema`: the library switches class only on a registered dialect, which
# is why a params schema may name its dialect at the top only (params_schema drops it there).
SafeValidator: Any = validators.extend(
    Draft202012Validator, {name: _metered(name, keyword) for name, keyword in _KEYWORDS.items()}
)
FORMATS = FormatChecker(formats=())
FORMATS.checks("regex", raises=re2.error)(compile_pattern)
