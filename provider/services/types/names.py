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
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from provider.models import NamedRecord

WORD = re.compile(r"\w+")


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


def primary_name(row: NamedRecord) -> str | None:
    """An added type's `name` attribute; a plain entity's title (or the first line of its text)."""
    if isinstance(row.name, str) and row.name.strip():
        return row.name
    first = row.title or (row.text or "").split("\n", 1)[0]
    return first if first.strip() else None


def identifiers(row: NamedRecord) -> list[str]:
    """What identifies a record beyond its names: its emails, then its domains."""
    return _strings(row.emails) + _strings(row.domains)


def names_of(row: NamedRecord) -> list[str]:
    """Every name a record answers to: its name, its aliases, then what identifies it (emails, domains)."""
    first = primary_name(row)
    names = [first] if first else []
    names += _strings(row.aliases) + identifiers(row)
    return list(dict.fromkeys(names))


@dataclass(frozen=True)
class _Name:
    words: tuple[str, ...]
    capital: bool  # a one-word name written with a capital: the text must capitalise it too
    entity: NamedRecord


class NameMatcher:
    """Finds the records an episode mentions by any of their names."""

    def __init__(self, entities: Iterable[NamedRecord]):
        self.first: dict[str, list[_Name]] = {}
        for entity in entities:
            for name in names_of(entity):
                words = tuple(folded(name).split())
                if not words:
                    continue
                capital = len(words) == 1 and "@" not in name and plain(name.strip())[:1].isupper()
                self.first.setdefault(words[0], []).append(_Name(words, capital, entity))

    def mentioned(self, text: str) -> list[NamedRecord]:
        """The records named in the text, each once, in the order they are first named."""
        written = WORD.findall(plain(text))
        words = [w.casefold() for w in written]
        found: dict[str, NamedRecord] = {}
        for at, word in enumerate(words):
            for name in self.first.get(word, ()):
                entity_id = name.entity.id
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
    rows: dict[str, NamedRecord] = field(default_factory=dict)

    def add(self, row: NamedRecord) -> None:
        """Keeps a record; the earliest kept wins every key."""
        kind, record_id = row.type, row.id
        self.rows[record_id] = row
        if name := primary_name(row):
            self.names.setdefault((kind, folded(name)), record_id)
        for alias in _strings(row.aliases):
            self.aliases.setdefault((kind, folded(alias)), record_id)
        for value in _identities(row):
            self.identities.setdefault((kind, value), record_id)

    def match(self, row: NamedRecord) -> str | None:
        """The kept record this one duplicates, or None."""
        kind = row.type
        for value in _identities(row):
            if (kind, value) in self.identities:
                return self.identities[(kind, value)]
        name = primary_name(row)
        key = (kind, folded(name)) if name else None
        candidates = [self.names.get(key), self.aliases.get(key)] if key else []
        candidates += [self.names.get((kind, folded(alias))) for alias in _strings(row.aliases)]
        for candidate in candidates:
            if candidate is not None and _compatible(self.rows[candidate], row):
                return candidate
        return None


def _identities(row: NamedRecord) -> set[str]:
    return {v.strip().casefold() for v in identifiers(row)}


def _compatible(kept: NamedRecord, row: NamedRecord) -> bool:
    """Not two different people of one name: where both give emails (or domains), some is shared."""
    mine, theirs = _identities(kept), _identities(row)
    return not mine or not theirs or bool(mine & theirs)
