"""Hypothesis strategies for the JSON a hostile client writes, as the exact bytes it sends.

Values are built as a small tree (`Obj` keeps duplicate keys and order, `Raw` is a token written
verbatim) and `encode` writes it: lone surrogates leave as `\\ud800` escapes (json.dumps' ASCII
escaping of a Python string that holds one), non-finite numbers as `1e999`, `NaN`, `Infinity`,
integers past 64 bits or past Python's 4300-digit parse limit as digits, deep nesting as brackets
written in one go (no recursion), and INVALID_UTF8 as bytes that are not UTF-8 at all.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from hypothesis import strategies as st


@dataclass(frozen=True)
class Raw:
    """A token written as it is: `1e999`, `NaN`, thousands of digits, deep brackets."""

    token: str


@dataclass(frozen=True)
class Obj:
    """A JSON object as its pairs: keys may repeat, order is kept."""

    pairs: tuple[tuple[str, Any], ...]


INVALID_UTF8 = Raw("\x00INVALID_UTF8\x00")  # replaced by bytes no decoder accepts
_INVALID_BYTES = b'"\xed\xa0\x80 \xff\xfe \xc3"'  # a UTF-8-encoded surrogate, stray bytes, a cut sequence

SURROGATES = ["\ud800", "\udfff", "\udbff", "\udc00", "\ud83d", "\ud83d\ude00"]
ODD = ["\x00", "\u202e", "\ufeff", "\uffff", "\U0010ffff", "e\u0301", "\u200b", "\U0001d54f", "\r\n"]
ODD += ["\\", '"', "'", "{", "}", "$", "`", "../", "%00", "<script>", "attributes.", ".", "\t", "*"]
NON_FINITE = ["1e999", "-1e999", "1E400", "NaN", "Infinity", "-Infinity", "-0", "1e-999"]
HUGE = [str(2**63), str(-(2**63) - 1), str(2**64), str(2**200), "9" * 5000, "-" + "1" * 4400]


def encode(value: Any) -> str:
    """The JSON text of a value tree (lists and objects nest only as deep as a draw makes them)."""
    if isinstance(value, Raw):
        return value.token
    if isinstance(value, Obj):
        return "{" + ",".join(f"{json.dumps(k)}:{encode(v)}" for k, v in value.pairs) + "}"
    if isinstance(value, list | tuple):
        return "[" + ",".join(encode(v) for v in value) + "]"
    return json.dumps(value)  # ensure_ascii: a lone surrogate leaves as its \\uXXXX escape


def to_bytes(value: Any) -> bytes:
    """The request body, byte for byte."""
    return encode(value).encode("utf-8").replace(INVALID_UTF8.token.encode(), _INVALID_BYTES)


def deep(depth: int, kind: str = "[") -> Raw:
    """`[[[…1…]]]` or `{"a":{"a":…1…}}`, `depth` levels, written without recursion."""
    if kind == "[":
        return Raw("[" * depth + "1" + "]" * depth)
    return Raw('{"a":' * depth + "1" + "}" * depth)


def long_text(chars: int) -> str:
    """Words, `chars` characters of them: long texts without drawing each character."""
    words = "the quick brown fox jumps over a lazy dog near acme harbour "
    return (words * (chars // len(words) + 1))[:chars]


odd_text = st.one_of(
    st.text(max_size=40),
    st.lists(st.sampled_from(SURROGATES + ODD), min_size=1, max_size=12).map("".join),
    st.tuples(st.text(max_size=10), st.sampled_from(SURROGATES), st.text(max_size=10)).map("".join),
    st.sampled_from([1_000, 70_000, 200_001]).map(long_text),
)
keys = st.one_of(
    st.sampled_from(["", " ", ".", "a.b", "$where", "__proto__", "constructor", "id", "x" * 300]),
    odd_text.filter(lambda k: len(k) < 400),
)
scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(allow_nan=False, allow_infinity=False),
    st.sampled_from(NON_FINITE + HUGE).map(Raw),
    odd_text,
    st.just(INVALID_UTF8),
)


def _containers(children: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    return st.one_of(
        st.lists(children, max_size=6),
        st.lists(st.tuples(keys, children), max_size=6).map(lambda pairs: Obj(tuple(pairs))),
    )


values = st.one_of(
    st.recursive(scalars, _containers, max_leaves=25),
    st.sampled_from([9, 33, 1_000, 100_000]).flatmap(lambda d: st.sampled_from([deep(d), deep(d, "{")])),
    st.sampled_from([600, 5_000]).map(lambda n: Obj(tuple((f"k{i}", i) for i in range(n)))),  # wide
    st.sampled_from([1_001, 20_000]).map(lambda n: list(range(n))),  # long lists
)
