"""Records in Neo4j: a Record node per id, a RecordVersion node per version, REFERENCES between Records.

The Record node holds the current state and, while active, the search projection the indexes read.
"""

from __future__ import annotations

import json
import uuid
from typing import Any

from provider.ids import parse_instant
from provider.models import (
    EmbeddedRow,
    EraseReach,
    NamedRecord,
    RecordVersion,
    RecordWords,
    Snapshot,
    StoredRecord,
    UnfinishedErasure,
    Vectors,
    Writer,
)
from provider.store.driver import Neo4jStore, Row
from provider.store.usage import Charge, Neo4jUsageStore

ATTRIBUTE_PREFIX = "attr."
# Records an erase's walk down derived_from asks about in one statement.
REACH_STEP_IDS = 1000


def flatten_attributes(attributes: dict[str, Any], prefix: str = ATTRIBUTE_PREFIX) -> dict[str, Any]:
    """Scalar attributes (and lists of scalars) as `attr.<dotted.key>` properties, so Cypher can filter."""
    flat: dict[str, Any] = {}
    for key, value in attributes.items():
        name = f"{prefix}{key}"
        if isinstance(value, dict):
            flat.update(flatten_attributes(value, f"{name}."))
        elif isinstance(value, str | int | float | bool) or _string_list(value):
            flat[name] = value
    return flat


def _string_list(value: object) -> bool:
    return isinstance(value, list) and bool(value) and all(isinstance(v, str) for v in value)


def _instant_ms(raw: str | None) -> int | None:
    return parse_instant(raw) if raw else None


def version_properties(v: RecordVersion, words: str, vectors: Vectors | None = None) -> dict[str, Any]:
    """A RecordVersion node's properties: JSON for nested shapes, plain values for what analysts query.

    `charged_*` say what the version counts against its payer's quotas (and its tree's), so an erase
    gives back exactly what the write took: its stored content and attributes (ASCII JSON, so a
    character is a byte), and the record itself on its first version.
    """
    content_json, attributes_json = json.dumps(v.content), json.dumps(v.attributes)
    return {
        "record_id": v.record_id,
        "memory_id": v.memory_id,
        "type": v.type,
        "title": v.title,
        "text": words,
        "content_json": content_json,
        "attributes_json": attributes_json,
        "references_json": json.dumps(v.references),
        "version": v.version,
        "status": v.status,
        "supersedes": v.supersedes,
        "valid_from": v.valid_from,
        "valid_to": v.valid_to,
        "written_at": v.written_at,
        "invalidated_at": v.invalidated_at,
        "superseded_at": v.superseded_at,
        "forgotten_at": v.forgotten_at,
        "writer_kind": v.writer.kind,
        "writer_id": v.writer.id,
        "writer_type": v.writer.type,
        "writer_on_behalf_of": v.writer.on_behalf_of,
        "writer_consolidation_id": v.writer.consolidation_id,
        "follows_json": json.dumps(v.follows) if v.follows else None,
        "valid_from_ms": _instant_ms(v.valid_from),
        "valid_to_ms": _instant_ms(v.valid_to),
        "charged_to": v.writer.payer,
        "charged_bytes": len(content_json) + len(attributes_json),
        "charged_records": 1 if v.supersedes is None else 0,
        **flatten_attributes(v.attributes),
        **(vectors or {}),
    }


def record_properties(
    v: RecordVersion, words: str, vectors: Vectors | None, created_at: int
) -> dict[str, Any]:
    """The Record node: identity, current state, and the search projection while it is active."""
    props: dict[str, Any] = {
        "id": v.record_id,
        "memory_id": v.memory_id,
        "type": v.type,
        "title": v.title,
        "text": words,
        "status": v.status,
        "version": v.version,
        "created_at": created_at,
        "updated_at": v.written_at,
        "valid_from": v.valid_from,
        "valid_to": v.valid_to,
        "written_at": v.written_at,
        "valid_from_ms": _instant_ms(v.valid_from),
        "valid_to_ms": _instant_ms(v.valid_to),
        "follows_json": json.dumps(v.follows) if v.follows else None,
        **flatten_attributes(v.attributes),
    }
    if v.status == "active":
        props.update(search_title=v.title or "", search_text=words, search_memory=v.memory_id)
        props.update(vectors or {})
    return props


def version_from(row: dict[str, Any]) -> RecordVersion:
    """Back from node properties to the domain version."""
    return RecordVersion(
        record_id=row["record_id"],
        memory_id=row["memory_id"],
        type=row["type"],
        title=row.get("title"),
        content=json.loads(row["content_json"]),
        attributes=json.loads(row["attributes_json"]),
        references=json.loads(row["references_json"]),
        version=row["version"],
        status=row["status"],
        supersedes=row.get("supersedes"),
        valid_from=row.get("valid_from"),
        valid_to=row.get("valid_to"),
        written_at=row["written_at"],
        invalidated_at=row.get("invalidated_at"),
        superseded_at=row.get("superseded_at"),
        forgotten_at=row.get("forgotten_at"),
        writer=Writer(
            kind=row["writer_kind"],
            id=row["writer_id"],
            type=row.get("writer_type"),
            on_behalf_of=row.get("writer_on_behalf_of"),
            consolidation_id=row.get("writer_consolidation_id"),
        ),
        follows=json.loads(row["follows_json"]) if row.get("follows_json") else None,
    )


def snapshot_from(row: Row) -> Snapshot:
    """A snapshot's columns as the domain's `Snapshot`."""
    return Snapshot(
        id=row["id"],
        memory_id=row["memory_id"],
        name=row["name"],
        message=row["message"] or "",
        at_ms=row["at"],
    )


def _edges(references: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [{"rel": r["rel"], "record_id": r["record_id"], "position": i} for i, r in enumerate(references)]


def charge_of(versions: list[dict[str, Any]], made: set[str] | None = None) -> Charge | None:
    """What these version nodes (those of records in `made`, when given) charge their one payer."""
    kept = [v for v in versions if made is None or v["record_id"] in made]
    added = [(v["memory_id"], v["charged_records"], v["charged_bytes"]) for v in kept]
    return Charge.of_records(kept[0]["charged_to"], added) if kept else None


def named_record(row: Row) -> NamedRecord:
    """A row with a record's id, type, title, text and its name attributes, as the matching reads it."""
    return NamedRecord(
        id=row["id"],
        type=row["type"],
        title=row["title"],
        text=row["text"],
        name=row["name"],
        aliases=row["aliases"],
        emails=row["emails"],
        domains=row["domains"],
    )


class Neo4jRecordStore:
    """Writes versions and reads them back; never overwrites one."""

    def __init__(self, store: Neo4jStore, usage: Neo4jUsageStore):
        """`usage` holds the quota counters its writes charge in the same transaction."""
        self.store = store
        self.usage = usage

    async def create(self, version: RecordVersion, words: str, vectors: Vectors | None) -> bool | None:
        """True when written, False when its id was there already, None when the memory vanished.

        Charged to the writer's quotas in the same transaction: past one, 429 and nothing written.
        """
        properties = version_properties(version, words, vectors)
        rows = await self.usage.charged(
            "record_create",
            {
                "memory_id": version.memory_id,
                "record": record_properties(version, words, vectors, version.written_at),
                "version": properties,
                "references": _edges(version.references),
            },
            lambda rows: charge_of([properties]) if rows and rows[0]["created"] else None,
        )
        return bool(rows[0]["created"]) if rows else None

    async def create_many(self, rows: list[EmbeddedRow]) -> int:
        """One transaction for a batch; ids that exist already are left alone. Returns how many were new."""
        if not rows:
            return 0
        batch: list[dict[str, Any]] = [
            {
                "record": record_properties(v, words, vector, v.written_at),
                "version": version_properties(v, words, vector),
                "references": _edges(v.references),
            }
            for v, words, vector in rows
        ]
        result = await self.usage.charged(
            "record_create_many",
            {"memory_id": rows[0][0].memory_id, "rows": batch},
            lambda done: charge_of([r["version"] for r in batch], set(done[0]["made"])) if done else None,
        )
        return int(result[0]["created"]) if result else 0

    async def embedding_page(self, memory_id: str, after: str, limit: int) -> list[RecordWords]:
        """Active records' ids and words, by id, after `after`."""
        rows = await self.store.read("record_embedding_page", memory_id=memory_id, after=after, limit=limit)
        return [RecordWords(record_id=r["id"], words=r["words"] or "") for r in rows]

    async def set_embeddings(self, slot: str, vectors: dict[str, list[float]]) -> None:
        """New vectors in one slot (record id → vector) for the Record and its current version."""
        rows = [{"id": record_id, "embedding": vector} for record_id, vector in vectors.items()]
        await self.store.write("record_embedding_set", slot=slot, rows=rows)

    async def entities(
        self, memory_ids: list[str], types: tuple[str, ...] = ("entity",)
    ) -> list[NamedRecord]:
        """Active records of these types (entities, people, companies) with the names they go by."""
        rows = await self.store.read("entity_names", memory_ids=memory_ids, types=list(types))
        return [named_record(row) for row in rows]

    async def standing(self, memory_id: str, limit: int) -> list[RecordVersion]:
        """Active records marked `attributes.standing`, oldest first."""
        rows = await self.store.read("record_standing", memory_id=memory_id, limit=limit)
        return [version_from(r["version"]) for r in rows]

    async def erase_reach(self, memory_id: str, record_ids: list[str]) -> EraseReach:
        """The named records and everything derived from them at any depth, with every derived one's sources.

        Walked a step at a time (each step one statement over a bounded frontier), keeping what it
        has seen, so a cycle ends the walk and no depth is cut off.
        """
        row = (await self.store.read("record_erase_named", memory_id=memory_id, ids=record_ids))[0]
        memory_of = {p["id"]: p["memory_id"] for p in row["present"]}
        sources: dict[str, frozenset[str]] = {}
        frontier = sorted(memory_of)
        while frontier:
            reached: list[str] = []
            for start in range(0, len(frontier), REACH_STEP_IDS):
                step = frontier[start : start + REACH_STEP_IDS]
                for d in await self.store.read("record_erase_derived", ids=step):
                    if d["id"] not in memory_of:
                        reached.append(d["id"])
                    memory_of.setdefault(d["id"], d["memory_id"])
                    sources[d["id"]] = frozenset(d["sources"])
            frontier = sorted(set(reached))
        return EraseReach(missing=list(row["missing"]), memory_of=memory_of, sources=sources)

    async def erase_begin(self, memory_id: str, named: list[str], pending: list[str], now: int) -> str:
        """Opens an erase: a note naming what was asked for and every record still to remove; its id."""
        erasure_id = "hers_" + uuid.uuid4().hex
        await self.store.write(
            "record_erase_begin",
            erasure_id=erasure_id,
            memory_id=memory_id,
            named=named,
            pending=pending,
            now=now,
        )
        return erasure_id

    async def erase(self, erasure_id: str, record_ids: list[str], now: int) -> None:
        """Removes a batch of an erase's records, every version with them, and strikes them off its note.

        In the same transaction it gives back what the versions were charged and leaves a note of the
        files they named.
        """
        await self.usage.released(
            "record_erase",
            {"ids": record_ids, "erasure_id": erasure_id, "sweep_id": "hfsw_" + uuid.uuid4().hex, "now": now},
        )

    async def unfinished_erasures(self, memory_id: str) -> list[UnfinishedErasure]:
        """Erases of this memory cut off part-way, oldest first, with what each has left to remove."""
        rows = await self.store.read("record_erase_unfinished", memory_id=memory_id)
        return [UnfinishedErasure(id=r["id"], pending=list(r["pending"])) for r in rows]

    async def sweep_erasures(self, before: int, batch: int) -> int:
        """Forgets notes of finished erases made before `before`; how many."""
        rows = await self.store.write("erasure_sweep", before=before, batch=batch)
        return int(rows[0]["swept"]) if rows else 0

    async def read(self, record_id: str) -> StoredRecord | None:
        """A record with all its versions, or None."""
        rows = await self.store.read("record_read", id=record_id)
        if not rows:
            return None
        row = rows[0]
        return StoredRecord(
            id=row["id"],
            memory_id=row["memory_id"],
            current=row["current"],
            versions=[version_from(v) for v in row["versions"]],
        )

    async def page(
        self, memory_id: str, *, kind: str | None, as_of: int | None, include_all: bool, skip: int, limit: int
    ) -> list[RecordVersion]:
        """One page of versions live at the instant."""
        rows = await self.store.read(
            "record_list",
            memory_id=memory_id,
            type=kind,
            as_of=as_of,
            include_all=include_all,
            skip=skip,
            limit=limit,
        )
        return [version_from(r["version"]) for r in rows]

    async def locate(self, record_ids: list[str]) -> dict[str, str]:
        """Record id → memory id for the ids that exist."""
        rows = await self.store.read("record_locate", ids=record_ids)
        return {r["id"]: r["memory_id"] for r in rows}

    async def revise(
        self, version: RecordVersion, words: str, vectors: Vectors | None, created_at: int
    ) -> bool:
        """False when another revision got there first. The new version's bytes are charged to its writer."""
        properties = version_properties(version, words, vectors)
        rows = await self.usage.charged(
            "record_revise",
            {
                "id": version.record_id,
                "memory_id": version.memory_id,
                "expected": version.supersedes,
                "now": version.written_at,
                "record": record_properties(version, words, vectors, created_at),
                "version": properties,
                "references": _edges(version.references),
            },
            lambda rows: charge_of([properties]) if rows else None,
        )
        return bool(rows)

    async def forget(self, memory_id: str, record_id: str, now: int) -> None:
        """Closes the current version as forgotten."""
        await self.store.write("record_forget", id=record_id, memory_id=memory_id, now=now)

    async def create_snapshot(self, snapshot: Snapshot) -> Snapshot | None:
        """A named instant, as stored; None when the memory does not exist."""
        rows = await self.store.write(
            "snapshot_create",
            id=snapshot.id,
            memory_id=snapshot.memory_id,
            name=snapshot.name,
            message=snapshot.message,
            at=snapshot.at_ms,
        )
        return snapshot_from(rows[0]) if rows else None

    async def snapshots(self, memory_id: str) -> list[Snapshot]:
        """A memory's snapshots, oldest first."""
        return [snapshot_from(r) for r in await self.store.read("snapshot_list", memory_id=memory_id)]

    async def snapshot(self, snapshot_id: str) -> Snapshot | None:
        """One snapshot."""
        rows = await self.store.read("snapshot_get", id=snapshot_id)
        return snapshot_from(rows[0]) if rows else None
