"""Records as reads and writes answer them (`MemoryRecord`), snapshots and uploaded files."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import MISSING, Field

from provider import ids
from provider.models import ReadRecord, Snapshot, StoredFile, Writer
from provider.protocol.answers.shapes import Answer


class WriterOut(Answer):
    """`MemoryWriter`, stamped by the server; the provider's two fields only when it wrote."""

    kind: str = Field(pattern=r"^(member|provider|x\.[a-z0-9_.-]+)$")
    id: str
    type: Literal["human", "agent"] | MISSING = MISSING
    on_behalf_of: str | MISSING = MISSING
    consolidation_id: str | MISSING = MISSING

    @classmethod
    def from_domain(cls, writer: Writer) -> WriterOut:
        stamped = {name: getattr(writer, name) for name in ("type", "on_behalf_of", "consolidation_id")}
        return cls(kind=writer.kind, id=writer.id, **{k: v for k, v in stamped.items() if v})


class FileOut(Answer):
    """A file part's file, completed by the server from its store."""

    id: str
    name: str | MISSING | None = MISSING
    media_type: str | MISSING | None = MISSING
    bytes: int | MISSING | None = MISSING


class ContentPartOut(Answer):
    """`MemoryContentPart` as stored; an extension part whole, as its writer gave it (nulls included)."""

    type: str
    text: str | MISSING | None = MISSING
    text_source: Literal["stated", "derived"] | MISSING | None = MISSING
    role: Literal["user", "assistant", "system", "tool"] | MISSING | None = MISSING
    file: FileOut | MISSING | None = MISSING


class ReferenceOut(Answer):
    """`MemoryReference`: whole when the reader may read the target, else the bare id."""

    record_id: str
    rel: str | MISSING | None = MISSING
    memory_id: str | MISSING | None = MISSING
    available: bool


class RecordTimeOut(Answer):
    """When the record holds and when it was written (ISO 8601)."""

    valid_from: str | MISSING | None = Field(
        MISSING, description="Absent only when the record is `withheld`."
    )
    valid_to: str | MISSING | None = Field(MISSING, description="Absent only when the record is `withheld`.")
    written_at: str | None
    invalidated_at: str | None


class RecordOut(Answer):
    """`MemoryRecord`: always `trust: untrusted`, content always a list.

    A write's answer to a caller without `read` is `withheld`: it names the record and where it is,
    never what it says.
    """

    id: str
    object: Literal["memory.record"] = "memory.record"
    memory_id: str
    type: str
    title: str | MISSING = Field(MISSING, max_length=300)
    content: list[ContentPartOut] | MISSING = Field(MISSING, description="Absent only when `withheld`.")
    attributes: dict[str, Any] | MISSING = Field(MISSING, description="Absent only when `withheld`.")
    version: int
    status: Literal["active", "superseded", "forgotten"]
    supersedes: int | None
    time: RecordTimeOut
    written_by: WriterOut | MISSING = Field(MISSING, description="Absent only when `withheld`.")
    references: list[ReferenceOut] | MISSING = Field(MISSING, description="Absent only when `withheld`.")
    trust: Literal["untrusted"] = "untrusted"
    follows: dict[str, Any] | MISSING = MISSING
    withheld: Literal[True] | MISSING = Field(
        MISSING,
        description="True on a write's answer to a caller without read: the record is named, "
        "what it says is left out.",
    )

    @classmethod
    def from_domain(cls, read: ReadRecord) -> RecordOut:
        v = read.version
        written_at, invalidated_at = ids.iso(v.written_at), ids.iso(v.invalidated_at)
        common: dict[str, Any] = {
            "id": v.record_id,
            "memory_id": v.memory_id,
            "type": v.type,
            "version": v.version,
            "status": v.status,
            "supersedes": v.supersedes,
        }
        if read.withheld:
            time = RecordTimeOut(written_at=written_at, invalidated_at=invalidated_at)
            return cls(**common, time=time, withheld=True)
        said: dict[str, Any] = {"title": v.title} if v.title is not None else {}
        if v.follows:
            said["follows"] = v.follows
        time = RecordTimeOut(
            valid_from=v.valid_from, valid_to=v.valid_to, written_at=written_at, invalidated_at=invalidated_at
        )
        return cls(
            **common,
            **said,
            content=v.content,
            attributes=v.attributes,
            time=time,
            written_by=WriterOut.from_domain(v.writer),
            references=read.references,
        )


def records_out(reads: list[ReadRecord]) -> list[RecordOut]:
    """Each read as the wire carries it, in order."""
    return [RecordOut.from_domain(read) for read in reads]


class RecordListOut(Answer):
    """`MemoryRecordList`: a page (`next`) or a record's whole history (no `next`)."""

    object: Literal["list"] = "list"
    data: list[RecordOut]
    next: str | MISSING | None = Field(MISSING, description="The next page's cursor; null on the last.")


class SnapshotOut(Answer):
    """`MemorySnapshot`."""

    id: str
    object: Literal["memory.snapshot"] = "memory.snapshot"
    memory_id: str
    name: str
    message: str
    at: str | None

    @classmethod
    def from_domain(cls, snapshot: Snapshot) -> SnapshotOut:
        return cls(
            id=snapshot.id,
            memory_id=snapshot.memory_id,
            name=snapshot.name,
            message=snapshot.message,
            at=ids.iso(snapshot.at_ms),
        )


class SnapshotListOut(Answer):
    """`MemorySnapshotList`."""

    object: Literal["list"] = "list"
    data: list[SnapshotOut]


class UploadedFileOut(Answer):
    """`File`: what a record's file part names by id (`created_at` in seconds)."""

    id: str
    object: Literal["file"] = "file"
    filename: str
    bytes: int = Field(ge=0)
    created_at: int
    purpose: str
    media_type: str

    @classmethod
    def from_domain(cls, stored: StoredFile) -> UploadedFileOut:
        return cls(
            id=stored.id,
            filename=stored.filename,
            bytes=stored.bytes,
            created_at=stored.created_at_ms // 1000,
            purpose=stored.purpose,
            media_type=stored.media_type,
        )
