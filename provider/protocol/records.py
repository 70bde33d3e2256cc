"""Wire shape of a record, exactly as the chapter and `MemoryRecord` give it."""

from __future__ import annotations

from typing import Any

from provider import ids
from provider.models import ReadRecord, RecordVersion, Snapshot, StoredFile, Writer


def writer_json(writer: Writer) -> dict[str, Any]:
    """`{kind, id, type?}` plus the provider's two fields when it wrote the record."""
    body: dict[str, Any] = {"kind": writer.kind, "id": writer.id}
    for name in ("type", "on_behalf_of", "consolidation_id"):
        if getattr(writer, name):
            body[name] = getattr(writer, name)
    return body


def record_json(read: ReadRecord) -> dict[str, Any]:
    """A record as a read returns it: always `trust: untrusted`, content always a list."""
    v: RecordVersion = read.version
    if read.withheld:
        return withheld_json(v)
    body: dict[str, Any] = {
        "id": v.record_id,
        "object": "memory.record",
        "memory_id": v.memory_id,
        "type": v.type,
    }
    if v.title is not None:
        body["title"] = v.title
    body.update(
        content=v.content,
        attributes=v.attributes,
        version=v.version,
        status=v.status,
        supersedes=v.supersedes,
        time={
            "valid_from": v.valid_from,
            "valid_to": v.valid_to,
            "written_at": ids.iso(v.written_at),
            "invalidated_at": ids.iso(v.invalidated_at),
        },
        written_by=writer_json(v.writer),
        references=read.references,
        trust="untrusted",
    )
    if v.follows:
        body["follows"] = v.follows
    return body


def withheld_json(v: RecordVersion) -> dict[str, Any]:
    """A write's answer to a caller without `read`: where the record is, never what it says.

    `MemoryRecord` requires only id, memory_id, type and trust, so this is still one; `withheld: true`
    tells a client the fields are left out on purpose, not empty.
    """
    return {
        "id": v.record_id,
        "object": "memory.record",
        "memory_id": v.memory_id,
        "type": v.type,
        "version": v.version,
        "status": v.status,
        "supersedes": v.supersedes,
        "time": {"written_at": ids.iso(v.written_at), "invalidated_at": ids.iso(v.invalidated_at)},
        "withheld": True,
        "trust": "untrusted",
    }


def snapshot_json(snapshot: Snapshot) -> dict[str, Any]:
    """`MemorySnapshot`."""
    return {
        "id": snapshot.id,
        "object": "memory.snapshot",
        "memory_id": snapshot.memory_id,
        "name": snapshot.name,
        "message": snapshot.message,
        "at": ids.iso(snapshot.at_ms),
    }


def file_json(stored: StoredFile) -> dict[str, Any]:
    """An uploaded file, as `POST /v1/files` answers it (`created_at` in seconds)."""
    return {
        "id": stored.id,
        "object": "file",
        "filename": stored.filename,
        "bytes": stored.bytes,
        "created_at": stored.created_at_ms // 1000,
        "purpose": stored.purpose,
        "media_type": stored.media_type,
    }
