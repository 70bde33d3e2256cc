"""Recall filters, checked at the edge (protocol/recall_requests.py), compiled to a small DNF.

The DNF (a list of conjunctions of `{key, op, value}`) is a parameter of static Cypher, so a
filter never becomes query text.
"""

from __future__ import annotations

from provider.errors import MemoryInvalidError
from provider.ids import parse_instant
from provider.models import Dnf, FilterLeaf, FilterNode, Predicate

TIME_KEYS = {
    "time.valid_from": "valid_from_ms",
    "time.valid_to": "valid_to_ms",
    "time.written_at": "written_at",
    "time.invalidated_at": "invalidated_at",
}
MAX_CONJUNCTIONS = 64


def compile_filters(tree: FilterNode | None, types: list[str] | None = None) -> Dnf:
    """The DNF for a checked filter tree, with the `types` restriction added to every conjunction."""
    dnf: Dnf = [[]] if tree is None else _walk(tree, "filters")
    if types:
        dnf = [[*conj, {"key": "type", "op": "in", "value": list(types)}] for conj in dnf]
    return dnf


def _walk(node: FilterNode, where: str) -> Dnf:
    if isinstance(node, FilterLeaf):
        return [[_leaf(node)]]
    parts = [_walk(child, f"{where}.{node.kind}.{i}") for i, child in enumerate(node.children)]
    if node.kind == "or":
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


def _leaf(node: FilterLeaf) -> Predicate:
    key = _key(node.field)
    if node.op == "exists":
        return {"key": key, "op": node.op, "value": node.value is not False}
    value = node.value
    if key in TIME_KEYS.values():
        value = [parse_instant(v) for v in value] if isinstance(value, list) else parse_instant(value)
    return {"key": key, "op": node.op, "value": value}


def _key(field: str) -> str:
    if field in TIME_KEYS:
        return TIME_KEYS[field]
    if field.startswith("attributes."):
        return "attr." + field[len("attributes.") :]
    return "type"
