"""Recall's vector cache: a small scope's embeddings held in memory, scored exactly with numpy.

Exact cosine inside Cypher costs ~18 us a record (a 2,000-record child: ~36 ms); the same scores
from a matrix held here cost well under a millisecond. Entries are per memory and stamped with the
memory's `records_version`, which every statement that changes a record's embedding bumps in the
same transaction, and which the request read before it asked for vectors: an entry is used only
while its stamp equals the version the request just read, so it is never stale, and losing it only
costs a load. The budget bounds the bytes held; the least recently used memories go first.

A memory is loaded only once it has been asked about `load_after` times at one version: until then
Cypher scans it. A memory written between every two questions (an agent remembering, then recalling)
would otherwise be loaded again for each question, and a load decodes every vector through the
driver: ~240 ms for 431 records, against ~30 ms for the scan (LongMemEval haystacks, 2026-12-06).
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from provider.models import Hit
from provider.store.driver import Neo4jStore

ASKED_MAX = 10_000  # memories whose question count is kept (about 1 MB)
Matrix = npt.NDArray[np.float32]


@dataclass(frozen=True)
class Entry:
    """One memory's scored records at one records_version: ids and unit-length rows."""

    version: int
    ids: list[str]
    rows: Matrix
    slot: str = "embedding"  # the vector property the rows came from

    @property
    def nbytes(self) -> int:
        return int(self.rows.nbytes) + 64 * len(self.ids)


@dataclass
class CacheStats:
    """Counters for tests and the benchmark."""

    hits: int = 0
    loads: int = 0
    too_big: int = 0
    deferred: int = 0  # questions scanned in Cypher because a memory was new at its version


class VectorCache:
    """Per-memory matrices keyed by records_version, within `budget_bytes`."""

    def __init__(self, store: Neo4jStore, budget_bytes: int, load_after: int):
        self.store = store
        self.budget = budget_bytes
        self.load_after = load_after
        self.held: OrderedDict[str, Entry] = OrderedDict()
        # memory id -> (the version last asked about while not held, how many times): bounded, LRU.
        self.asked: OrderedDict[str, tuple[int, int]] = OrderedDict()
        self.bytes = 0
        self.stats = CacheStats()

    def fits(self, records: int, dimension: int) -> bool:
        """Whether a scope of this many records could be held at all (384 float32s and an id each)."""
        if records * (4 * dimension + 64) <= self.budget:
            return True
        self.stats.too_big += 1
        return False

    def worth_loading(self, versions: dict[str, int], slot: str = "embedding") -> bool:
        """Whether to answer from the cache (loading what it lacks), or to scan in Cypher this time.

        From the cache when each memory is held at its version or has now been asked about
        `load_after` times at it; a question scanned instead is counted in `stats.deferred`.
        """
        ready = True
        for memory_id, version in versions.items():
            if self._current(memory_id, version, slot) is not None:
                continue
            seen, count = self.asked.pop(memory_id, (version, 0))
            count = count + 1 if seen == version else 1
            self.asked[memory_id] = (version, count)
            ready = ready and count >= self.load_after
        while len(self.asked) > ASKED_MAX:
            self.asked.popitem(last=False)
        if not ready:
            self.stats.deferred += 1
        return ready

    async def exact(
        self,
        versions: dict[str, int],
        vector: list[float],
        k: int,
        passing: set[str] | None = None,
        slot: str = "embedding",
    ) -> list[Hit] | None:
        """The top k by cosine over the memories' records (only the ids in `passing`, when given).

        None when the memories could not all be held at once: the caller scans in Cypher then.
        """
        stale = [m for m, version in versions.items() if self._current(m, version, slot) is None]
        if stale:
            await self._load(stale, versions, slot)
        entries = [(m, self._current(m, v, slot)) for m, v in versions.items()]
        if any(entry is None for _, entry in entries):
            return None  # evicted while loading (a scope near the budget): Cypher answers it
        self.stats.hits += len(versions) - len(stale)
        ranking = Ranking(vector, [(m, e) for m, e in entries if e is not None])
        return ranking.best(k) if passing is None else ranking.best_among(k, passing)

    def _current(self, memory_id: str, version: int, slot: str = "embedding") -> Entry | None:
        entry = self.held.get(memory_id)
        if entry is None or entry.version != version or entry.slot != slot:
            return None
        self.held.move_to_end(memory_id)
        return entry

    async def _load(self, memory_ids: list[str], versions: dict[str, int], slot: str) -> None:
        rows = await self.store.read("recall_vectors_of_memories", memory_ids=memory_ids, slot=slot)
        for row in rows:
            memory_id = str(row["memory_id"])
            matrix = np.asarray(row["vectors"], dtype=np.float32)
            if matrix.ndim != 2:  # an empty memory
                matrix = np.zeros((0, 1), dtype=np.float32)
            norms = np.linalg.norm(matrix, axis=1, keepdims=True)
            norms[norms == 0] = 1.0
            self._put(
                memory_id, Entry(versions[memory_id], [str(i) for i in row["ids"]], matrix / norms, slot)
            )
            self.stats.loads += 1

    def _put(self, memory_id: str, entry: Entry) -> None:
        old = self.held.pop(memory_id, None)
        if old is not None:
            self.bytes -= old.nbytes
        self.held[memory_id] = entry
        self.bytes += entry.nbytes
        while self.bytes > self.budget and len(self.held) > 1:
            _, dropped = self.held.popitem(last=False)
            self.bytes -= dropped.nbytes


class Ranking:
    """Cosine of one question against every cached row of a scope, best first, ties by record id."""

    def __init__(self, vector: list[float], entries: list[tuple[str, Entry]]):
        query = np.asarray(vector, dtype=np.float32)
        query = query / (float(np.linalg.norm(query)) or 1.0)
        usable = [(m, e) for m, e in entries if e.ids and e.rows.shape[1] == len(query)]
        self.ids = [i for _, e in usable for i in e.ids]
        self.memories = [m for m, e in usable for _ in e.ids]
        parts = [e.rows @ query for _, e in usable]
        self.scores = np.concatenate(parts) if parts else np.zeros(0, dtype=np.float32)

    def best(self, k: int) -> list[Hit]:
        """The best k of every row."""
        if k < len(self.scores):
            # A few past k, so that ties at the edge are still ordered by id.
            edge = min(k + 8, len(self.scores))
            return self._ordered(np.argpartition(-self.scores, edge - 1)[:edge].tolist(), k)
        return self._ordered(range(len(self.scores)), k)

    def best_among(self, k: int, passing: set[str]) -> list[Hit]:
        """The best k of the records whose ids are in `passing` (those a filter kept)."""
        return self._ordered([i for i, record_id in enumerate(self.ids) if record_id in passing], k)

    def _ordered(self, rows: Iterable[int], k: int) -> list[Hit]:
        ranked = sorted(rows, key=lambda i: (-float(self.scores[i]), self.ids[i]))[:k]
        return [Hit(self.ids[i], self.memories[i], float(self.scores[i])) for i in ranked]
