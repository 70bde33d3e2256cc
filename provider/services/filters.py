"""Recall filters: `{field, op, value}`, `{and: [...]}`, `{or: [...]}` compiled to a small DNF.

The DNF (a list of conjunctions of `{key, op, value}`) is a parameter of static Cypher, so a
filter never becomes query text.
"""

from __future__ import annotations

from typing import Any

from provider.errors import MemoryInvalidError
from provider.ids import parse_instant

OPS = ("eq", "ne", "lt", "lte", "gt", "gte", "in", "exists")
TIME_KEYS = {
    "time.valid_from": "valid_from_ms",
    "time.valid_to": "valid_to_ms",
    "time.written_at": "written_at",
    "time.invalidated_at": "invalidated_at",
}
MAX_CONJUNCTIONS = 64
MAX_DEPTH = 6

Predicate = dict[str, Any]
Dnf = list[list[Predicate]]


def compile_filters(tree: Any, types: list[str] | None = None) -> Dnf:
    """The DNF for a filter tree, with the `types` restriction added to every conjunction."""
    dnf: Dnf = [[]] if tree is None else _walk(tree, 0, "filters")
    if types:
        dnf = [[*conj, {"key": "type", "op": "in", "value": list(types)}] for conj in dnf]
    return dnf


def _walk(node: Any, depth: int, where: str) -> Dnf:
    if depth > MAX_DEPTH or not isinstance(node, dict):
        raise MemoryInvalidError("A filter is {field, op, value}, {and: [...]} or {or: [...]}.", param=where)
    if "and" in node or "or" in node:
        return _combine(node, depth, where)
    return [[_leaf(node, where)]]


def _combine(node: dict[str, Any], depth: int, where: str) -> Dnf:
    key = "and" if "and" in node else "or"
    children = node[key]
    if not isinstance(children, list) or not children:
        raise MemoryInvalidError(f"{key} takes a non-empty list of filters.", param=f"{where}.{key}")
    parts = [_walk(child, depth + 1, f"{where}.{key}.{i}") for i, child in enumerate(children)]
    if key == "or":
        result = [conj for part in parts for conj in part]
    else:
        result = [[]]
        for part in parts:
            result = [left + right for left in result for right in part]
            if len(result) > MAX_CONJUNCTIONS:
                break
    if len(result) > MAX_CONJUNCTIONS:
        raise MemoryInvalidError("The filter is too complex; simplify it.", param=where)
    return result


def _leaf(node: dict[str, Any], where: str) -> Predicate:
    field, op, value = node.get("field"), node.get("op", "eq"), node.get("value")
    if op not in OPS:
        raise MemoryInvalidError(f"op is one of {', '.join(OPS)}.", param=f"{where}.op")
    key = _key(field, where)
    if op == "exists":
        return {"key": key, "op": op, "value": value is not False}
    if op == "in" and not isinstance(value, list):
        raise MemoryInvalidError("in takes a list.", param=f"{where}.value")
    if key in TIME_KEYS.values():
        value = _instant(value, where)
    return {"key": key, "op": op, "value": value}


def _key(field: Any, where: str) -> str:
    if field == "type":
        return "type"
    if isinstance(field, str) and field in TIME_KEYS:
        return TIME_KEYS[field]
    if isinstance(field, str) and field.startswith("attributes.") and len(field) > len("attributes."):
        return "attr." + field[len("attributes.") :]
    raise MemoryInvalidError("field is type, attributes.<name> or time.<field>.", param=f"{where}.field")


def _instant(value: Any, where: str) -> Any:
    try:
        if isinstance(value, list):
            return [parse_instant(v) for v in value]
        return parse_instant(value)
    except (TypeError, ValueError, AttributeError) as e:
        raise MemoryInvalidError(
            "A time filter's value is an ISO 8601 instant.", param=f"{where}.value"
        ) from e
