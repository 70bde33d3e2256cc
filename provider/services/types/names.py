"""How people, companies and entities are recognised: by the names they answer to. Pure.

A name matches as whole words, ignoring case and accents (`INES VARGA` is `Inès Varga`), with one
exception measured on real conversations (LoCoMo, docs/PERFORMANCE.md): a one-word name written
with a capital (`Joy`, `Will`, `Mel`) matches only where the text writes it with a capital too, so a
person called Joy is not linked to every "joy". Emails and domains match whatever their case.

Matching runs over an index from each name's first word, so an episode costs its own length plus
the names that start with one of its words, not one pattern per known name.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

WORD = re.compile(r"\w+")
LISTED = ("aliases",)
IDENTIFYING = ("emails", "domains")  # values no two different records share


def plain(text: str) -> str:
    """Accents removed, case kept."""
    decomposed = unicodedata.normalize("NFKD", text)
    return "".join(c for c in decomposed if not unicodedata.combining(c))


def folded(text: str) -> str:
    """Case-folded, accents removed, spacing collapsed: the form two names are compared in."""
    return " ".join(word.casefold() for word in WORD.findall(plain(text)))


def _strings(value: Any) -> list[str]:
    values = value if isinstance(value, list) else [value]
    return [v for v in values if isinstance(v, str) and v.strip()]


def primary_name(row: Mapping[str, Any]) -> str | None:
    """An added type's `name` attribute; a plain entity's title (or the first line of its text)."""
    if isinstance(row.get("name"), str) and row["name"].strip():
        return str(row["name"])
    first = row.get("title") or (row.get("text") or "").split("\n", 1)[0]
    return str(first) if isinstance(first, str) and first.strip() else None


def names_of(row: Mapping[str, Any]) -> list[str]:
    """Every name a record answers to: its name, its aliases, then what identifies it (emails, domains)."""
    first = primary_name(row)
    names = [first] if first else []
    for key in (*LISTED, *IDENTIFYING):
        names += _strings(row.get(key))
    return list(dict.fromkeys(names))


@dataclass(frozen=True)
class _Name:
    words: tuple[str, ...]
    capital: bool  # a one-word name written with a capital: the text must capitalise it too
    entity: Mapping[str, Any]


class NameMatcher:
    """Finds the records an episode mentions by any of their names."""

    def __init__(self, entities: Iterable[Mapping[str, Any]]):
        self.first: dict[str, list[_Name]] = {}
        for entity in entities:
            for name in names_of(entity):
                words = tuple(folded(name).split())
                if not words:
                    continue
                capital = len(words) == 1 and "@" not in name and plain(name.strip())[:1].isupper()
                self.first.setdefault(words[0], []).append(_Name(words, capital, entity))

    def mentioned(self, text: str) -> list[Mapping[str, Any]]:
        """The records named in the text, each once, in the order they are first named."""
        written = WORD.findall(plain(text))
        words = [w.casefold() for w in written]
        found: dict[str, Mapping[str, Any]] = {}
        for at, word in enumerate(words):
            for name in self.first.get(word, ()):
                entity_id = str(name.entity["id"])
                if entity_id in found or (name.capital and not written[at][:1].isupper()):
                    continue
                if tuple(words[at : at + len(name.words)]) == name.words:
                    found[entity_id] = name.entity
        return list(found.values())


@dataclass
class EntityIndex:
    """The people and companies a consolidation run keeps, found by what identifies them.

    Two records of one type are the same when they share an email or a domain, or when one's name
    is the other's name or alias and their emails (or domains), where both give some, overlap. Two
    aliases alone never decide it: two people may both be called Bob.
    """

    names: dict[tuple[str, str], str] = field(default_factory=dict)
    aliases: dict[tuple[str, str], str] = field(default_factory=dict)
    identities: dict[tuple[str, str], str] = field(default_factory=dict)
    rows: dict[str, Mapping[str, Any]] = field(default_factory=dict)

    def add(self, row: Mapping[str, Any]) -> None:
        """Keeps a record; the earliest kept wins every key."""
        kind, record_id = str(row["type"]), str(row["id"])
        self.rows[record_id] = row
        if name := primary_name(row):
            self.names.setdefault((kind, folded(name)), record_id)
        for alias in _strings(row.get("aliases")):
            self.aliases.setdefault((kind, folded(alias)), record_id)
        for value in _identities(row):
            self.identities.setdefault((kind, value), record_id)

    def match(self, row: Mapping[str, Any]) -> str | None:
        """The kept record this one duplicates, or None."""
        kind = str(row["type"])
        for value in _identities(row):
            if (kind, value) in self.identities:
                return self.identities[(kind, value)]
        name = primary_name(row)
        key = (kind, folded(name)) if name else None
        candidates = [self.names.get(key), self.aliases.get(key)] if key else []
        candidates += [self.names.get((kind, folded(alias))) for alias in _strings(row.get("aliases"))]
        for candidate in candidates:
            if candidate is not None and _compatible(self.rows[candidate], row):
                return candidate
        return None


def _identities(row: Mapping[str, Any]) -> set[str]:
    return {v.strip().casefold() for key in IDENTIFYING for v in _strings(row.get(key))}


def _compatible(kept: Mapping[str, Any], row: Mapping[str, Any]) -> bool:
    """Not two different people of one name: where both give emails (or domains), some is shared."""
    mine, theirs = _identities(kept), _identities(row)
    return not mine or not theirs or bool(mine & theirs)
