"""In-memory RecallStorage and GraphStorage over the records fake, doing what their Cypher says.

tests/contract/test_recall_storage.py runs the same scenarios on these and on Neo4jRecallStore and
Neo4jGraphStore. The rules come from the statements' own headers (cypher/recall_*.cypher,
cypher/graph_*.cypher): a record is searched by its current version; a forgotten record leaves the
vector and word indexes; filters are a DNF over the record's properties; ties break by id; a history
read ranks the newest `window` versions current at an instant.

Words are cut as Lucene's standard analyzer cuts them for the words our tests write (letters and
digits, lower case, apostrophes kept); the index-wide scoring of `text` is BM25 over every indexed
record, which the contract holds only to membership and order, not to Lucene's exact numbers.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from typing import Any

from provider.ids import parse_instant
from provider.models import (
    Contradiction,
    Dnf,
    HeldReference,
    HistoryRanking,
    Hit,
    Located,
    RecordVersion,
    RerankText,
    ScopeSize,
    Searched,
    Subject,
    WordHolder,
    WordMatches,
)
from provider.models.words import WORD, searched_words
from tests.fakes.records import FakeRecord, FakeRecordStore

# The store's own choices, restated: past this many records an index search answers, not a scan.
EXACT_MAX_RECORDS = 5_000
SCOPE_CLAUSE_MAX = 400


def _flat(attributes: dict[str, Any], prefix: str = "attr.") -> dict[str, Any]:
    """Attributes as the node holds them: scalars and lists of strings under dotted `attr.` keys."""
    flat: dict[str, Any] = {}
    for key, value in attributes.items():
        if isinstance(value, dict):
            flat.update(_flat(value, f"{prefix}{key}."))
        elif isinstance(value, str | int | float | bool) or (
            isinstance(value, list) and value and all(isinstance(v, str) for v in value)
        ):
            flat[f"{prefix}{key}"] = value
    return flat


def _ms(instant: str | None) -> int | None:
    return parse_instant(instant) if instant else None


def properties(version: RecordVersion) -> dict[str, Any]:
    """What a filter reads of a version (and of a record, whose properties are its current version's)."""
    return {
        "type": version.type,
        "status": version.status,
        "written_at": version.written_at,
        "invalidated_at": version.invalidated_at,
        "valid_from_ms": _ms(version.valid_from),
        "valid_to_ms": _ms(version.valid_to),
        **_flat(version.attributes),
    }


def _holds(value: Any, op: str, wanted: Any) -> bool:
    """One predicate as Cypher judges it: a comparison with null (or across kinds) is never true."""
    if op == "exists":
        return bool((value is not None) == wanted)
    if op == "ne":
        return value is None or value != wanted
    if value is None:
        return False
    if op == "eq":
        return bool(value == wanted)
    if op == "in":
        return isinstance(wanted, list) and bool(value in wanted)
    numbers = (int, float)
    comparable = (isinstance(value, numbers) and isinstance(wanted, numbers)) or (
        isinstance(value, str) and isinstance(wanted, str)
    )
    if not comparable or isinstance(value, bool) or isinstance(wanted, bool):
        return False
    outcomes: dict[str, bool] = {
        "lt": value < wanted,
        "lte": value <= wanted,
        "gt": value > wanted,
        "gte": value >= wanted,
    }
    return outcomes.get(op, False)


def passes(props: dict[str, Any], dnf: Dnf) -> bool:
    """Some conjunction holds in full ([[]]: every record passes)."""
    return any(all(_holds(props.get(p["key"]), p["op"], p["value"]) for p in conj) for conj in dnf)


def cosine(left: list[float], right: list[float]) -> float | None:
    if len(left) != len(right):
        return None
    dot = sum(a * b for a, b in zip(left, right, strict=True))
    norms = math.sqrt(sum(a * a for a in left)) * math.sqrt(sum(b * b for b in right))
    return dot / norms if norms else None


def tokens(text: str) -> list[str]:
    """The words the full-text index keeps of a text: lower case, apostrophes inside a word kept."""
    return [match.group(0).lower() for match in WORD.finditer(text)]


def _contains(haystack: list[str], phrase: list[str]) -> bool:
    size = len(phrase)
    return size > 0 and any(haystack[i : i + size] == phrase for i in range(len(haystack) - size + 1))


class FakeRecallStore:
    """Scoped retrieval over FakeRecordStore's records; every read takes the scope it is given."""

    def __init__(self, records: FakeRecordStore):
        self.records = records

    # -- what the indexes hold ---------------------------------------------------------------------

    def _current(self, record: FakeRecord) -> RecordVersion:
        version = record.version(record.current)
        assert version is not None
        return version

    def _scoped(self, scope: list[str]) -> Iterator[FakeRecord]:
        wanted = set(scope)
        yield from (r for r in self.records.records.values() if r.memory_id in wanted)

    def _indexed_words(self, record: FakeRecord) -> str:
        """Title and words while the record is active (search_title, search_text); nothing after."""
        if record.status != "active":
            return ""
        title = self._current(record).title or ""
        return f"{title}\n{record.words}" if title else record.words

    def _length(self, record: FakeRecord) -> int:
        title = self._current(record).title or ""
        return len(title) + len(record.words) if record.status == "active" else 0

    def _searchable_vector(self, record: FakeRecord, slot: str) -> list[float] | None:
        if record.status != "active":
            return None
        return record.vectors.get(record.current, {}).get(slot)

    def scope_size(self, scope: list[str]) -> ScopeSize:
        """Records in the scope, in the whole store, and a version stamp per memory (its record count)."""
        counts: dict[str, int] = {}
        for record in self._scoped(scope):
            counts[record.memory_id] = counts.get(record.memory_id, 0) + 1
        return ScopeSize(sum(counts.values()), len(self.records.records), counts)

    # -- the port ------------------------------------------------------------------------------------

    async def vector(
        self,
        scope: list[str],
        vector: list[float],
        dnf: Dnf,
        k: int,
        size: ScopeSize | None = None,
        slot: str = "embedding",
    ) -> Searched:
        """Cosine against every active record of the scope passing the filters; best first, ties by id."""
        scored: list[Hit] = []
        for record in self._scoped(scope):
            held = self._searchable_vector(record, slot)
            if held is None or not passes(properties(self._current(record)), dnf):
                continue
            score = cosine(held, vector)
            if score is not None:
                scored.append(Hit(record.id, record.memory_id, score))
        scored.sort(key=lambda h: (-(h.score or 0.0), h.record_id))
        size = size or self.scope_size(scope)
        return Searched(scored[:k], "exact" if size.in_scope <= EXACT_MAX_RECORDS else "index")

    def _holders(self, scope: list[str], term: str) -> list[FakeRecord]:
        phrase = tokens(term)
        return sorted(
            (r for r in self._scoped(scope) if _contains(tokens(self._indexed_words(r)), phrase)),
            key=lambda r: r.id,
        )

    async def words(self, scope: list[str], text: str, dnf: Dnf, fetch: int) -> WordMatches:
        """Per distinct word, the scope's records holding it; the holders passing the filters, by id."""
        terms = list(dict.fromkeys(word.lower() for word in searched_words(text)))
        if not terms:
            return WordMatches(holding=[], found=[], capped=False)
        share = max(1, fetch // len(terms))
        holding: list[int] = []
        held_by: dict[str, list[int]] = {}
        capped = False
        for index, term in enumerate(terms):
            holders = self._holders(scope, term)
            capped = capped or len(holders) >= share
            holders = holders[:share]
            holding.append(len(holders))
            for record in holders:
                held_by.setdefault(record.id, []).append(index)
        found = [
            WordHolder(record_id, record.memory_id, self._length(record), tuple(sorted(held)))
            for record_id, held in sorted(held_by.items())
            if passes(properties(self._current(record := self.records.records[record_id])), dnf)
        ]
        return WordMatches(holding=holding, found=found, capped=capped)

    async def text(self, scope: list[str], text: str, dnf: Dnf, k: int) -> list[Hit]:
        """BM25 with statistics over every indexed record (Lucene's index-wide view), in scope only."""
        terms = [word.lower() for word in searched_words(text)]
        if not terms:
            return []
        indexed = [r for r in self.records.records.values() if r.status == "active"]
        lengths = {r.id: max(len(tokens(self._indexed_words(r))), 1) for r in indexed}
        mean = sum(lengths.values()) / max(len(lengths), 1)
        holders = {
            term: {r.id for r in self._holders([m.memory_id for m in indexed], term)} for term in terms
        }
        scored: list[Hit] = []
        for record in self._scoped(scope):
            if record.status != "active" or not passes(properties(self._current(record)), dnf):
                continue
            score = 0.0
            for term in terms:
                if record.id in holders[term]:
                    held = len(holders[term])
                    rarity = math.log(1 + (len(indexed) - held + 0.5) / (held + 0.5))
                    score += rarity * 2.2 / (1 + 1.2 * (0.25 + 0.75 * lengths[record.id] / mean))
            if score > 0:
                scored.append(Hit(record.id, record.memory_id, score))
        scored.sort(key=lambda h: (-(h.score or 0.0), h.record_id))
        return scored[:k]

    async def fields(self, scope: list[str], dnf: Dnf, k: int, size: ScopeSize | None = None) -> Searched:
        """Active records of the scope passing the filters, newest first, ties by id."""
        found = [
            (self._current(r).written_at, r)
            for r in self._scoped(scope)
            if r.status == "active" and passes(properties(self._current(r)), dnf)
        ]
        found.sort(key=lambda pair: (-pair[0], pair[1].id))
        size = size or self.scope_size(scope)
        newest_first = size.in_scope * 2 >= size.total > 0
        hits = [Hit(r.id, r.memory_id, None) for _, r in found[:k]]
        return Searched(hits, "fields_newest" if newest_first else "fields")

    async def history(
        self,
        scope: list[str],
        as_of: int,
        include_all: bool,
        dnf: Dnf,
        *,
        vector: list[float] | None,
        words: list[str],
        k: int,
        window: int,
        slot: str = "embedding",
    ) -> HistoryRanking:
        """The newest `window` versions current at `as_of`, each signal's top k ranked among them."""
        live: list[tuple[RecordVersion, list[float] | None]] = []
        for record in self._scoped(scope):
            for version in record.versions:
                current = version.written_at <= as_of and (
                    version.superseded_at is None or version.superseded_at > as_of
                )
                shown = include_all or version.forgotten_at is None or version.forgotten_at > as_of
                if current and shown and passes(properties(version), dnf):
                    held = record.vectors.get(version.version, {}).get(slot)
                    live.append((version, held))
        live.sort(key=lambda row: (-row[0].written_at, row[0].record_id))
        window_rows, cut = live[:window], len(live) > window
        meaning: list[tuple[float, RecordVersion]] = []
        if vector is not None:
            for version, held in window_rows:
                score = cosine(held, vector) if held is not None else None
                if score is not None:
                    meaning.append((score, version))
        matched: list[tuple[float, RecordVersion]] = []
        for version, _ in window_rows:
            haystack = self._version_words(version).lower()
            count = sum(1 for word in words if word in haystack)
            if count:
                matched.append((count / len(words), version))

        def best(rows: list[tuple[float, RecordVersion]]) -> list[Hit]:
            rows.sort(key=lambda row: (-row[0], -row[1].written_at, row[1].record_id))
            return [Hit(v.record_id, v.memory_id, score) for score, v in rows[:k]]

        return HistoryRanking(
            meaning=best(meaning),
            words=best(matched),
            newest=[Hit(v.record_id, v.memory_id, None) for v, _ in window_rows[:k]],
            cut=cut,
        )

    def _version_words(self, version: RecordVersion) -> str:
        pieces = [version.title] if version.title else []
        pieces += [p["text"] for p in version.content if isinstance(p.get("text"), str)]
        return "\n".join(pieces)

    async def versions_at(self, record_ids: list[str], at: int) -> list[RecordVersion]:
        """The version of each record current at `at` (the highest of two written in one ms)."""
        found: list[RecordVersion] = []
        for record_id in record_ids:
            record = self.records.records.get(record_id)
            if record is None:
                continue
            live = [
                v
                for v in record.versions
                if v.written_at <= at and (v.superseded_at is None or v.superseded_at > at)
            ]
            if live:
                found.append(max(live, key=lambda v: v.version))
        return found

    async def times(self, record_ids: list[str]) -> dict[str, int]:
        """Its valid_from, else when its current version was written."""
        found: dict[str, int] = {}
        for record_id in record_ids:
            record = self.records.records.get(record_id)
            if record is not None:
                current = self._current(record)
                found[record_id] = _ms(current.valid_from) or current.written_at
        return found

    async def contradictions(self, record_ids: list[str]) -> list[Contradiction]:
        """(result, other side, its memory) for each active record joined by `contradicts`, either way."""
        rows: set[Contradiction] = set()
        for of in record_ids:
            if of not in self.records.records:
                continue
            for record in self.records.records.values():
                if record.id == of or record.status != "active":
                    continue
                held = self.records.edges(record)
                holds = self.records.edges(self.records.records[of])
                if ("contradicts", of) in held or ("contradicts", record.id) in holds:
                    rows.add(Contradiction(of, record.id, record.memory_id))
        return sorted(rows)

    async def rerank_texts(self, record_ids: list[str], chars: int, now_ms: int) -> dict[str, RerankText]:
        """Title and words cut at `chars`, and whether its valid time has ended."""
        found: dict[str, RerankText] = {}
        for record_id in record_ids:
            record = self.records.records.get(record_id)
            if record is None:
                continue
            current = self._current(record)
            head = f"{current.title}\n" if current.title else ""
            valid_to = _ms(current.valid_to)
            found[record_id] = RerankText(
                (head + record.words)[:chars], valid_to is not None and valid_to <= now_ms
            )
        return found

    async def subjects(self, record_ids: list[str], slot: str = "embedding") -> dict[str, Subject]:
        """Type, speaker, time and vector of each record that has a time and a searchable vector."""
        found: dict[str, Subject] = {}
        for record_id in record_ids:
            record = self.records.records.get(record_id)
            held = self._searchable_vector(record, slot) if record is not None else None
            if record is None or held is None:
                continue
            current = self._current(record)
            speaker = current.attributes.get("speaker")
            found[record_id] = Subject(
                type=current.type,
                speaker=speaker if isinstance(speaker, str) else None,
                at=_ms(current.valid_from) or current.written_at,
                vector=list(held),
            )
        return found

    async def current(self, record_ids: list[str]) -> dict[str, RecordVersion]:
        """Current versions by id, for the ids that exist."""
        return {i: self._current(self.records.records[i]) for i in record_ids if i in self.records.records}


class FakeGraphStore:
    """Records as nodes and their references as edges, never stepping outside the scope."""

    def __init__(self, records: FakeRecordStore):
        self.records = records

    async def nodes(
        self, scope: list[str], around: str | None, hops: int, types: list[str] | None, limit: int
    ) -> list[Located]:
        """Without a start: active records newest first; around one: by distance, then id."""
        wanted = set(scope)
        live = {
            r.id: r for r in self.records.records.values() if r.memory_id in wanted and r.status == "active"
        }
        if around is None:
            found = sorted(
                (r for r in live.values() if types is None or r.type in types),
                key=lambda r: (-self._written(r), r.id),
            )
            return [Located(r.id, r.memory_id) for r in found[:limit]]
        if around not in live:
            return []
        distance = {around: 0}
        frontier = [around]
        for step in range(1, min(hops, 3) + 1):
            following: list[str] = []
            for record_id in frontier:
                for other in self._neighbours(record_id, live):
                    if other not in distance:
                        distance[other] = step
                        following.append(other)
            frontier = following
        kept = [(d, i) for i, d in distance.items() if i == around or types is None or live[i].type in types]
        return [Located(i, live[i].memory_id) for d, i in sorted(kept)[:limit]]

    def _written(self, record: FakeRecord) -> int:
        version = record.version(record.current)
        return version.written_at if version is not None else 0

    def _neighbours(self, record_id: str, live: dict[str, FakeRecord]) -> set[str]:
        out = {target for _, target in self.records.edges(live[record_id]) if target in live}
        into = {r.id for r in live.values() if any(t == record_id for _, t in self.records.edges(r))}
        return (out | into) - {record_id}

    async def edges(self, record_ids: list[str]) -> list[HeldReference]:
        """Each edge a record holds, in the order its current version names them, by holder id."""
        held: list[HeldReference] = []
        for record_id in sorted(set(record_ids)):
            record = self.records.records.get(record_id)
            if record is None:
                continue
            for rel, target in self.records.edges(record):
                held.append(
                    HeldReference(
                        record.id, record.memory_id, target, self.records.records[target].memory_id, rel
                    )
                )
        return held
