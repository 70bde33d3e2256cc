"""The ports of records: what its services need of storage.

That is records, their files, idempotency keys and vector slots.
The Neo4j stores in provider/store implement them; the composition root passes those in, and the fast
tests pass in-memory fakes.
"""

from __future__ import annotations

from typing import Protocol

from provider.models import (
    EmbeddedRow,
    EraseReach,
    FileAdmission,
    FileMeta,
    FileSweep,
    IdempotencyKey,
    IndexState,
    RecordVersion,
    RecordWords,
    SlotFill,
    SlotGap,
    Snapshot,
    StoredRecord,
    UnfinishedErasure,
    Vectors,
    VectorState,
)


class FileStorage(Protocol):
    """What the records services need of the file store."""

    async def create(
        self, file: FileMeta, *, purpose: str, now: int, max_files: int, max_bytes: int
    ) -> FileAdmission:
        """One uploaded file if its owner's quota has room, with what the owner held before it."""
        ...

    async def name(self, file_ids: list[str], now: int) -> list[str]:
        """Marks files as named by a record; the ids refused because the sweep is reclaiming them."""
        ...

    async def orphans(self, before: int, limit: int) -> list[str]:
        """Files no record has named, uploaded at or before `before`, oldest first."""
        ...

    async def claim(self, file_ids: list[str], now: int) -> list[str]:
        """Of these, the files still unnamed, now claimed: no record write may name them any more."""
        ...

    async def release(self, file_ids: list[str], now: int) -> None:
        """Claimed files a version turned out to name: never candidates again."""
        ...

    async def unnamed(self, file_ids: list[str]) -> dict[str, str]:
        """Of these, the files no record version names any more: file id → the digest of its bytes."""
        ...

    async def delete(self, file_ids: list[str]) -> None:
        """Removes file metadata."""
        ...

    async def unused_digests(self, digests: list[str], leaving: list[str]) -> list[str]:
        """Of these SHA-256 digests, those no File node holds but the `leaving` ones."""
        ...

    async def get_many(self, file_ids: list[str]) -> dict[str, FileMeta]:
        """Id → metadata for the ids that exist."""
        ...

    async def sweeps(self, before: int, limit: int) -> list[FileSweep]:
        """Notes of files to check (left by erase and memory delete), oldest first."""
        ...

    async def sweep_done(self, sweep_id: str) -> None:
        """Drops a note once its files are dealt with."""
        ...


class IdempotencyStorage(Protocol):
    """What the records services need of the idempotency store."""

    async def claim(
        self, key_id: str, fingerprint: str, token: str, *, now: int, expires_before: int, lease_until: int
    ) -> IdempotencyKey:
        """`fresh` is true when this request owns the key now (new, expired, or its lease ran out)."""
        ...

    async def renew(self, key_id: str, token: str, lease_until: int) -> bool:
        """False when the key is no longer this owner's."""
        ...

    async def complete(self, key_id: str, token: str, status: int, body: str, now: int) -> None:
        """Keeps the answer for replays."""
        ...

    async def release(self, key_id: str, token: str) -> None:
        """Lets a retry run again."""
        ...

    async def sweep(self, expires_before: int, stale_before: int, batch: int) -> int:
        """Deletes up to `batch` expired or abandoned keys; how many."""
        ...


class RecordStorage(Protocol):
    """What the records services need of the record store."""

    async def create(self, version: RecordVersion, words: str, vectors: Vectors | None) -> bool | None:
        """True when written, False when its id was there already, None when the memory vanished.

        Charged to the writer's quotas in the same transaction: past one, 429 and nothing written.
        """
        ...

    async def create_many(self, rows: list[EmbeddedRow]) -> int:
        """One transaction for a batch; ids that exist already are left alone. Returns how many were new."""
        ...

    async def embedding_page(self, memory_id: str, after: str, limit: int) -> list[RecordWords]:
        """Active records' ids and words, by id, after `after`."""
        ...

    async def set_embeddings(self, slot: str, vectors: dict[str, list[float]]) -> None:
        """New vectors in one slot (record id → vector) for the Record and its current version."""
        ...

    async def erase_reach(self, memory_id: str, record_ids: list[str]) -> EraseReach:
        """The named records and everything derived from them at any depth, with every derived one's sources.

        Walked a step at a time (each step one statement over a bounded frontier), keeping what it
        has seen, so a cycle ends the walk and no depth is cut off.
        """
        ...

    async def erase_begin(self, memory_id: str, named: list[str], pending: list[str], now: int) -> str:
        """Opens an erase: a note naming what was asked for and every record still to remove; its id."""
        ...

    async def erase(self, erasure_id: str, record_ids: list[str], now: int) -> None:
        """Removes a batch of an erase's records, every version with them, and strikes them off its note.

        In the same transaction it gives back what the versions were charged and leaves a note of the
        files they named.
        """
        ...

    async def unfinished_erasures(self, memory_id: str) -> list[UnfinishedErasure]:
        """Erases of this memory cut off part-way, oldest first, with what each has left to remove."""
        ...

    async def read(self, record_id: str) -> StoredRecord | None:
        """A record with all its versions, or None."""
        ...

    async def page(
        self, memory_id: str, *, kind: str | None, as_of: int | None, include_all: bool, skip: int, limit: int
    ) -> list[RecordVersion]:
        """One page of versions live at the instant."""
        ...

    async def locate(self, record_ids: list[str]) -> dict[str, str]:
        """Record id → memory id for the ids that exist."""
        ...

    async def revise(
        self, version: RecordVersion, words: str, vectors: Vectors | None, created_at: int
    ) -> bool:
        """False when another revision got there first. The new version's bytes are charged to its writer."""
        ...

    async def forget(self, memory_id: str, record_id: str, now: int) -> None:
        """Closes the current version as forgotten."""
        ...

    async def create_snapshot(self, snapshot: Snapshot) -> Snapshot | None:
        """A named instant, as stored; None when the memory does not exist."""
        ...

    async def snapshots(self, memory_id: str) -> list[Snapshot]:
        """A memory's snapshots, oldest first."""
        ...

    async def snapshot(self, snapshot_id: str) -> Snapshot | None:
        """One snapshot."""
        ...


class VectorStateStorage(Protocol):
    """What the records services need of the vectorstate store."""

    async def write(self, state: VectorState) -> None:
        """Records which model each slot holds, the one recall reads, and the slot being filled."""
        ...

    async def fill_page(self, source: str, target: str, after: str, limit: int) -> list[SlotGap]:
        """A page of records by id, each with its versions that hold `source` but not `target`."""
        ...

    async def fill(self, source: str, target: str, fills: list[SlotFill]) -> int:
        """Writes target vectors on versions, and each record's current one on the record."""
        ...

    async def missing(self, source: str, target: str) -> int:
        """Records and versions that still lack the target slot."""
        ...

    async def clear(self, slot: str, limit: int) -> int:
        """Removes one batch of a slot's vectors; 0 once the slot is empty."""
        ...

    async def create_index(self, slot: str, dimensions: int) -> None:
        """The vector index of a slot, for vectors of `dimensions`; kept as it is when it exists."""
        ...

    async def drop_index(self, slot: str) -> None:
        """Drops the vector index of a slot (a model move retiring it)."""
        ...

    async def index_states(self) -> dict[str, IndexState]:
        """Each vector index's state (ONLINE, POPULATING) and dimension, by index name."""
        ...
