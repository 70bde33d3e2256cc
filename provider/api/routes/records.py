"""Records: `/v1/memories/{id}/records...` and snapshots."""

from __future__ import annotations

from typing import Annotated, Literal
from urllib.parse import quote

from fastapi import APIRouter, Query, Request
from fastapi.responses import Response, StreamingResponse

from provider import ids
from provider.api.deps import CallerDep, ServicesDep
from provider.api.docs import answers
from provider.api.idempotency import idempotent, seed_of
from provider.blobs import chunks
from provider.protocol.answers.records import (
    RecordListOut,
    RecordOut,
    SnapshotListOut,
    SnapshotOut,
    records_out,
)
from provider.protocol.record_requests import RecordCreate, RecordRevise, SnapshotCreate

router = APIRouter(prefix="/v1/memories/{memory_id}", tags=["records"])

AsOf = Annotated[str | None, Query(max_length=128, description="An ISO 8601 instant or a snapshot id.")]


@router.post("/records", dependencies=[idempotent("write")], **answers(RecordOut))
async def remember(
    memory_id: str, body: RecordCreate, services: ServicesDep, caller: CallerDep, request: Request
) -> RecordOut:
    """Writes one record as stated (needs write)."""
    seed = seed_of(request)
    record_id = ids.derived(ids.RECORD, seed, memory_id) if seed else None
    return RecordOut.from_domain(
        await services.records.remember(caller, memory_id, body.draft(), record_id=record_id)
    )


@router.get("/records", **answers(RecordListOut))
async def list_records(
    memory_id: str,
    services: ServicesDep,
    caller: CallerDep,
    type: Annotated[str | None, Query(max_length=64, description="Only records of this type.")] = None,
    include: Annotated[
        Literal["active", "all"], Query(description="active (default) or all, forgotten included.")
    ] = "active",
    as_of: AsOf = None,
    limit: Annotated[int, Query(ge=1, le=100, description="Page size.")] = 50,
    cursor: Annotated[str | None, Query(max_length=256, description="From a previous page's `next`.")] = None,
) -> RecordListOut:
    """The memory's records, one page at a time."""
    reads, next_cursor = await services.records.page(
        caller, memory_id, kind=type, include=include, as_of=as_of, cursor=cursor, limit=limit
    )
    return RecordListOut(data=records_out(reads), next=next_cursor)


@router.get("/records/{record_id}", **answers(RecordOut))
async def get_record(
    memory_id: str, record_id: str, services: ServicesDep, caller: CallerDep, as_of: AsOf = None
) -> RecordOut:
    """One record, now or as of an instant."""
    return RecordOut.from_domain(await services.records.get(caller, memory_id, record_id, as_of))


@router.patch("/records/{record_id}", dependencies=[idempotent("write")], **answers(RecordOut))
async def revise(
    memory_id: str, record_id: str, body: RecordRevise, services: ServicesDep, caller: CallerDep
) -> RecordOut:
    """Appends a version (needs write)."""
    return RecordOut.from_domain(await services.records.revise(caller, memory_id, record_id, body.changes()))


@router.delete("/records/{record_id}", dependencies=[idempotent("write")], **answers(RecordOut))
async def forget(memory_id: str, record_id: str, services: ServicesDep, caller: CallerDep) -> RecordOut:
    """Closes the record and keeps its trace (needs write)."""
    return RecordOut.from_domain(await services.records.forget(caller, memory_id, record_id))


@router.get("/records/{record_id}/history", **answers(RecordListOut))
async def history(memory_id: str, record_id: str, services: ServicesDep, caller: CallerDep) -> RecordListOut:
    """Every version, oldest first."""
    versions = await services.records.history(caller, memory_id, record_id)
    return RecordListOut(data=records_out(versions))


@router.get("/records/{record_id}/content/{index}", response_model=None)
async def content_part(
    memory_id: str, record_id: str, index: int, services: ServicesDep, caller: CallerDep
) -> Response:
    """The exact bytes of a file part (or the words of a text part), streamed as they are read."""
    part = await services.content.part(caller, memory_id, record_id, index)
    headers = {"Content-Length": str(part.size), **served_bytes_headers(part.name)}
    return StreamingResponse(chunks(part.reader), media_type=part.media_type, headers=headers)


def served_bytes_headers(name: str | None) -> dict[str, str]:
    """Stored bytes are the writer's, not ours: a download, never sniffed, never run in our origin.

    A `text/html` or `image/svg+xml` opened from this address would otherwise run its scripts with
    the service's origin; the sandbox gives it an opaque origin and `default-src 'none'` loads nothing.
    """
    disposition = "attachment"
    if name:
        disposition += f"; filename*=UTF-8''{quote(name, safe='')}"
    return {
        "Content-Disposition": disposition,
        "X-Content-Type-Options": "nosniff",
        "Content-Security-Policy": "sandbox; default-src 'none'",
    }


@router.post("/snapshots", dependencies=[idempotent("write")], **answers(SnapshotOut))
async def create_snapshot(
    memory_id: str, body: SnapshotCreate, services: ServicesDep, caller: CallerDep
) -> SnapshotOut:
    """Names this instant (needs write)."""
    return SnapshotOut.from_domain(
        await services.snapshots.create(caller, memory_id, body.name, body.message)
    )


@router.get("/snapshots", **answers(SnapshotListOut))
async def list_snapshots(memory_id: str, services: ServicesDep, caller: CallerDep) -> SnapshotListOut:
    """The memory's named instants."""
    snapshots = await services.snapshots.listing(caller, memory_id)
    return SnapshotListOut(data=[SnapshotOut.from_domain(s) for s in snapshots])
