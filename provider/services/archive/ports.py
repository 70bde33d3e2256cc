"""The ports of archive: what its services need of storage.

That is whole records, files and snapshots, read for export and written by restore.
The Neo4j stores in provider/store implement them and the composition root passes those in. These
ports have no fakes yet: their services are tested against Neo4j (tests/api, tests/integration).
"""

from __future__ import annotations

from typing import Any, Protocol

from provider.models import PagedRecord, RecordVersion, RestoredRecord


class ArchiveStorage(Protocol):
    """What the archive services need of the archive store."""

    async def memories(self, memory_ids: list[str]) -> dict[str, dict[str, Any]]:
        """Id → what the archive keeps of each memory."""
        ...

    async def records_page(self, memory_id: str, after: str, limit: int, slot: str) -> list[PagedRecord]:
        """Records after `after` (by id): every version, the creation time, each version's vector.

        The vector is the one in `slot`, or None.
        """
        ...

    async def files(self, file_ids: list[str]) -> dict[str, dict[str, Any]]:
        """Id → file metadata (sha256 included) for the ids that exist."""
        ...

    async def grants(self, memory_id: str) -> list[dict[str, Any]]:
        """The grants sitting on one memory."""
        ...

    async def snapshots(self, memory_id: str) -> list[dict[str, Any]]:
        """A memory's snapshots, oldest first."""
        ...

    async def restore_memory(self, **params: Any) -> dict[str, Any] | None:
        """Creates the memory or returns the one with its id; None when the parent is absent.

        A memory made is charged to the restorer's quota of memories: past it, 429 and nothing made.
        """
        ...

    async def existing(self, record_ids: list[str]) -> dict[str, list[RecordVersion]]:
        """Of these ids, those present, with every version."""
        ...

    async def files_existing(self, file_ids: list[str], principal: str) -> dict[str, dict[str, Any]]:
        """Of these file ids, those that exist: sha256, owner, and the memories whose versions name them."""
        ...

    async def restore_records(self, records: list[RestoredRecord], payer: str) -> int:
        """Writes records whose ids are absent, in one transaction; how many were new.

        Every version is charged to `payer` (the restorer), whoever wrote it: past a quota, 429 and
        nothing of the batch written.
        """
        ...

    async def link(self, current: list[RecordVersion]) -> None:
        """Lays the REFERENCES edges of restored records' current versions (again, harmlessly)."""
        ...

    async def restore_file(self, file: dict[str, Any], owner: str, now: int) -> dict[str, Any]:
        """Creates the file's metadata or returns the file with its id."""
        ...

    async def restore_snapshot(self, snapshot: dict[str, Any]) -> dict[str, Any] | None:
        """Creates the snapshot or returns the one with its id."""
        ...

    async def restore_grant(self, memory_id: str, grant: dict[str, Any]) -> None:
        """Creates an explicit grant unless the principal holds one there already."""
        ...
