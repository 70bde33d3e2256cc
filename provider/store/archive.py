"""What export reads and restore writes in Neo4j: whole records with every version, files, snapshots."""

from __future__ import annotations

from typing import Any

from provider.models import PagedRecord, RecordVersion, RestoredRecord, StoredRecord
from provider.store.driver import Neo4jStore, Row
from provider.store.records import charge_of, record_properties, version_from, version_properties
from provider.store.usage import Charge, Neo4jUsageStore


class Neo4jArchiveStore:
    """Pages a memory's records for export; restores records, memories, files, snapshots and grants."""

    def __init__(self, store: Neo4jStore, usage: Neo4jUsageStore):
        """`usage` holds the quota counters its writes charge in the same transaction."""
        self.store = store
        self.usage = usage

    async def memories(self, memory_ids: list[str]) -> dict[str, Row]:
        """Id → what the archive keeps of each memory."""
        return {r["id"]: r for r in await self.store.read("archive_memories", ids=memory_ids)}

    async def records_page(self, memory_id: str, after: str, limit: int, slot: str) -> list[PagedRecord]:
        """Records after `after` (by id): every version, the creation time, each version's vector.

        The vector is the one in `slot`, or None.
        """
        rows = await self.store.read(
            "archive_records_page", memory_id=memory_id, after=after, limit=limit, slot=slot
        )
        return [
            PagedRecord(_stored(r, memory_id), int(r["created_at"] or 0), [e[0] for e in r["embeddings"]])
            for r in rows
        ]

    async def files(self, file_ids: list[str]) -> dict[str, Row]:
        """Id → file metadata (sha256 included) for the ids that exist."""
        return {r["id"]: r for r in await self.store.read("archive_files", ids=file_ids)}

    async def grants(self, memory_id: str) -> list[Row]:
        """The grants sitting on one memory."""
        return await self.store.read("archive_grants", memory_id=memory_id)

    async def snapshots(self, memory_id: str) -> list[Row]:
        """A memory's snapshots, oldest first."""
        return await self.store.read("snapshot_list", memory_id=memory_id)

    async def restore_memory(self, **params: Any) -> Row | None:
        """Creates the memory or returns the one with its id; None when the parent is absent.

        A memory made is charged to the restorer's quota of memories: past it, 429 and nothing made.
        """
        made = Charge(payer=params["restorer"], memories=1)
        rows = await self.usage.charged(
            "restore_memory", params, lambda rows: made if rows and rows[0]["created"] else None
        )
        return rows[0] if rows else None

    async def existing(self, record_ids: list[str]) -> dict[str, list[RecordVersion]]:
        """Of these ids, those present, with every version."""
        rows = await self.store.read("restore_existing", ids=record_ids)
        return {r["id"]: [version_from(v) for v in r["versions"]] for r in rows}

    async def files_existing(self, file_ids: list[str], principal: str) -> dict[str, Row]:
        """Of these file ids, those that exist: sha256, owner, and the memories whose versions name them."""
        if not file_ids:
            return {}
        rows = await self.store.read("restore_files_existing", ids=file_ids, principal=principal)
        return {r["id"]: r for r in rows}

    async def restore_records(self, records: list[RestoredRecord], payer: str) -> int:
        """Writes records whose ids are absent, in one transaction; how many were new.

        Every version is charged to `payer` (the restorer), whoever wrote it: past a quota, 429 and
        nothing of the batch written.
        """
        if not records:
            return 0
        rows = [_restore_row(r, payer) for r in records]
        versions = [v for row in rows for v in row["versions"]]
        result = await self.usage.charged(
            "restore_records",
            {"rows": rows},
            lambda done: charge_of(versions, set(done[0]["made"])) if done else None,
        )
        return int(result[0]["created"]) if result else 0

    async def link(self, current: list[RecordVersion]) -> None:
        """Lays the REFERENCES edges of restored records' current versions (again, harmlessly)."""
        rows = [
            {
                "id": v.record_id,
                "references": [
                    {"rel": r["rel"], "record_id": r["record_id"], "position": i}
                    for i, r in enumerate(v.references)
                ],
            }
            for v in current
            if v.references
        ]
        if rows:
            await self.store.write("restore_references", rows=rows)

    async def restore_file(self, file: dict[str, Any], owner: str, now: int) -> Row:
        """Creates the file's metadata or returns the file with its id."""
        return (await self.store.write("restore_file", file=file, owner=owner, now=now))[0]

    async def restore_snapshot(self, snapshot: dict[str, Any]) -> Row | None:
        """Creates the snapshot or returns the one with its id."""
        rows = await self.store.write("restore_snapshot", snapshot=snapshot)
        return rows[0] if rows else None

    async def restore_grant(self, memory_id: str, grant: dict[str, Any]) -> None:
        """Creates an explicit grant unless the principal holds one there already."""
        await self.store.write("restore_grant", memory_id=memory_id, grant=grant)


def _stored(row: Row, memory_id: str) -> StoredRecord:
    return StoredRecord(
        id=row["id"],
        memory_id=memory_id,
        current=row["current"],
        versions=[version_from(v) for v in row["versions"]],
    )


def _restore_row(record: RestoredRecord, payer: str) -> dict[str, Any]:
    """The Record node as the latest version makes it, and every version's node, charged to `payer`."""
    latest = record.versions[-1]
    properties = record_properties(latest, record.words[-1], record.vectors[-1], record.created_at)
    properties["updated_at"] = max(latest.written_at, latest.forgotten_at or 0)
    versions = [
        {**version_properties(v, words, vector), "charged_to": payer}
        for v, words, vector in zip(record.versions, record.words, record.vectors, strict=True)
    ]
    return {"record": properties, "versions": versions}
