"""Every route of the chapter and of the admin surface, as a `Call` with its answer's model.

Written once; `sync.py` and `aio.py` are generated from these signatures (`python -m
provider.client.generate`), and a test fails when they differ from what it would write.
"""

from __future__ import annotations

from typing import Any, Literal

from provider.client.call import Call, Stream, given, path
from provider.protocol.answers.admin import ApiKeyListOut, ApiKeyOut, IssuedKeyOut, RotatedKeyOut, UsageOut
from provider.protocol.answers.archive import RestoredOut
from provider.protocol.answers.lifecycle import (
    ConsolidationListOut,
    ConsolidationOut,
    ErasureOut,
    JobOut,
    ObservedOut,
    OperationResultOut,
    PrimeOut,
)
from provider.protocol.answers.queries import (
    QueryAnswerOut,
    QueryListOut,
    QueryOut,
    QueryRecordsOut,
    QueryRowsOut,
)
from provider.protocol.answers.recall import GraphOut, RecallOut
from provider.protocol.answers.records import (
    RecordListOut,
    RecordOut,
    SnapshotListOut,
    SnapshotOut,
    UploadedFileOut,
)
from provider.protocol.answers.shapes import Deleted, FreeList, MemoryDeleted, Privilege
from provider.protocol.answers.tree import (
    GrantListOut,
    GrantOut,
    HarnessMemoriesOut,
    HarnessOut,
    MembershipOut,
    MemoryListOut,
    MemoryOut,
    PrincipalOut,
)
from provider.protocol.answers.types import TypeListOut

MEMORY = "/v1/memories/{}"
RECORD = "/v1/memories/{}/records/{}"
TAR = "application/x-tar"


def _query_answer(payload: Any) -> QueryRowsOut | QueryRecordsOut:
    return QueryAnswerOut.model_validate(payload).root


def _json(payload: Any) -> dict[str, Any]:
    return dict(payload)


# -- discovery ---------------------------------------------------------------------------------


def discovery() -> Call[dict[str, Any]]:
    """`GET /v1/uhp`: what the server speaks and can do."""
    return Call("GET", "/v1/uhp", _json)


def providers() -> Call[FreeList]:
    """`GET /v1/memories/providers`: the capability document."""
    return Call("GET", "/v1/memories/providers", FreeList.model_validate)


def types() -> Call[TypeListOut]:
    """`GET /v1/memories/types`: the record types and their operations."""
    return Call("GET", "/v1/memories/types", TypeListOut.model_validate)


# -- the tree ----------------------------------------------------------------------------------


def list_memories(
    *,
    parent: str | None = None,
    ancestor: str | None = None,
    granted: bool | None = None,
    limit: int | None = None,
    cursor: str | None = None,
) -> Call[MemoryListOut]:
    """`GET /v1/memories`: a page of entry points, children, descendants or granted memories."""
    params = given(parent=parent, ancestor=ancestor, granted=granted, limit=limit, cursor=cursor)
    return Call("GET", "/v1/memories", MemoryListOut.model_validate, params=params)


def create_memory(
    name: str,
    *,
    description: str | None = None,
    parent_id: str | None = None,
    restricted: bool | None = None,
    provider: str | None = None,
) -> Call[MemoryOut]:
    """`POST /v1/memories`: a root, or a child of a memory the caller may create in."""
    body = given(
        name=name, description=description, parent_id=parent_id, restricted=restricted, provider=provider
    )
    return Call("POST", "/v1/memories", MemoryOut.model_validate, body=body, write=True)


def get_memory(memory_id: str) -> Call[MemoryOut]:
    """`GET /v1/memories/{id}`."""
    return Call("GET", path(MEMORY, memory_id), MemoryOut.model_validate)


def update_memory(memory_id: str, **changes: Any) -> Call[MemoryOut]:
    """`PUT /v1/memories/{id}`: name, description, restricted, parent_id (null: a root)."""
    return Call("PUT", path(MEMORY, memory_id), MemoryOut.model_validate, body=changes, write=True)


def delete_memory(memory_id: str) -> Call[MemoryDeleted]:
    """`DELETE /v1/memories/{id}`: the memory and its whole subtree."""
    return Call("DELETE", path(MEMORY, memory_id), MemoryDeleted.model_validate, write=True)


def list_grants(memory_id: str) -> Call[GrantListOut]:
    """`GET /v1/memories/{id}/grants`."""
    return Call("GET", path(MEMORY + "/grants", memory_id), GrantListOut.model_validate)


def create_grant(memory_id: str, principal: str, privileges: list[Privilege]) -> Call[GrantOut]:
    """`POST /v1/memories/{id}/grants` (needs delete)."""
    body = {"principal": principal, "privileges": privileges}
    return Call("POST", path(MEMORY + "/grants", memory_id), GrantOut.model_validate, body=body, write=True)


def delete_grant(memory_id: str, grant_id: str) -> Call[Deleted]:
    """`DELETE /v1/memories/{id}/grants/{grant}` (needs delete)."""
    return Call(
        "DELETE", path(MEMORY + "/grants/{}", memory_id, grant_id), Deleted.model_validate, write=True
    )


def harness_memories(harness_id: str) -> Call[HarnessMemoriesOut]:
    """`GET /v1/harnesses/{id}/memories`."""
    return Call("GET", path("/v1/harnesses/{}/memories", harness_id), HarnessMemoriesOut.model_validate)


def set_harness_memories(
    harness_id: str, *, default_memory_id: str | None = None, observe: bool | None = None
) -> Call[HarnessMemoriesOut]:
    """`PUT /v1/harnesses/{id}/memories`: fields left out keep their value."""
    body = given(default_memory_id=default_memory_id, observe=observe)
    url = path("/v1/harnesses/{}/memories", harness_id)
    return Call("PUT", url, HarnessMemoriesOut.model_validate, body=body, write=True)


# -- records -----------------------------------------------------------------------------------


def remember(
    memory_id: str,
    content: str | list[dict[str, Any]],
    *,
    type: str | None = None,
    title: str | None = None,
    attributes: dict[str, Any] | None = None,
    references: list[dict[str, Any]] | None = None,
    valid_from: str | None = None,
    valid_to: str | None = None,
) -> Call[RecordOut]:
    """`POST /v1/memories/{id}/records`: one record as stated (needs write)."""
    body = given(type=type, title=title, content=content, attributes=attributes, references=references)
    time = given(valid_from=valid_from, valid_to=valid_to)
    if time:
        body["time"] = time
    return Call("POST", path(MEMORY + "/records", memory_id), RecordOut.model_validate, body=body, write=True)


def list_records(
    memory_id: str,
    *,
    type: str | None = None,
    include: Literal["active", "all"] | None = None,
    as_of: str | None = None,
    limit: int | None = None,
    cursor: str | None = None,
) -> Call[RecordListOut]:
    """`GET /v1/memories/{id}/records`: one page."""
    params = given(type=type, include=include, as_of=as_of, limit=limit, cursor=cursor)
    return Call("GET", path(MEMORY + "/records", memory_id), RecordListOut.model_validate, params=params)


def get_record(memory_id: str, record_id: str, *, as_of: str | None = None) -> Call[RecordOut]:
    """`GET /v1/memories/{id}/records/{record}`, now or as of an instant or a snapshot."""
    return Call(
        "GET", path(RECORD, memory_id, record_id), RecordOut.model_validate, params=given(as_of=as_of)
    )


def revise(memory_id: str, record_id: str, **changes: Any) -> Call[RecordOut]:
    """`PATCH .../records/{record}`: each field given is restated (None sends null: `title` removed)."""
    return Call(
        "PATCH", path(RECORD, memory_id, record_id), RecordOut.model_validate, body=changes, write=True
    )


def forget(memory_id: str, record_id: str) -> Call[RecordOut]:
    """`DELETE .../records/{record}`: closes the record, keeps its trace."""
    return Call("DELETE", path(RECORD, memory_id, record_id), RecordOut.model_validate, write=True)


def history(memory_id: str, record_id: str) -> Call[RecordListOut]:
    """`GET .../records/{record}/history`: every version, oldest first."""
    return Call("GET", path(RECORD + "/history", memory_id, record_id), RecordListOut.model_validate)


def content_part(memory_id: str, record_id: str, index: int) -> Call[bytes]:
    """`GET .../records/{record}/content/{index}`: a part's exact bytes."""
    url = path(RECORD + "/content/{}", memory_id, record_id, str(index))
    return Call("GET", url, bytes, raw=True)


def create_snapshot(memory_id: str, name: str, *, message: str | None = None) -> Call[SnapshotOut]:
    """`POST /v1/memories/{id}/snapshots`: names this instant."""
    body = given(name=name, message=message)
    return Call(
        "POST", path(MEMORY + "/snapshots", memory_id), SnapshotOut.model_validate, body=body, write=True
    )


def list_snapshots(memory_id: str) -> Call[SnapshotListOut]:
    """`GET /v1/memories/{id}/snapshots`."""
    return Call("GET", path(MEMORY + "/snapshots", memory_id), SnapshotListOut.model_validate)


def upload_file(
    filename: str, data: bytes, *, media_type: str = "application/octet-stream", purpose: str | None = None
) -> Call[UploadedFileOut]:
    """`POST /v1/files` (multipart): a record's file part then names it by id."""
    form = given(purpose=purpose)
    files = {"file": (filename, data, media_type)}
    return Call("POST", "/v1/files", UploadedFileOut.model_validate, files=files, data=form, write=True)


# -- recall and the graph ----------------------------------------------------------------------


def recall(memory_id: str, **ask: Any) -> Call[RecallOut]:
    """`POST /v1/memories/{id}/recall`: `query`, `text`, `filters`, `types`, `as_of`, `limit`, ..."""
    return Call("POST", path(MEMORY + "/recall", memory_id), RecallOut.model_validate, body=ask)


def graph(memory_id: str, **ask: Any) -> Call[GraphOut]:
    """`POST /v1/memories/{id}/graph`: `around`, `hops`, `types`, `limit`."""
    return Call("POST", path(MEMORY + "/graph", memory_id), GraphOut.model_validate, body=ask)


# -- lifecycle ---------------------------------------------------------------------------------


def observe(
    memory_id: str, episodes: list[dict[str, Any]], *, respond_async: bool = False
) -> Call[ObservedOut]:
    """`POST /v1/memories/{id}/observe`: the records kept, or (202) the job that keeps them."""
    headers = {"Prefer": "respond-async"} if respond_async else {}
    url = path(MEMORY + "/observe", memory_id)
    return Call(
        "POST", url, ObservedOut.model_validate, body={"episodes": episodes}, write=True, headers=headers
    )


def job(memory_id: str, job_id: str) -> Call[JobOut]:
    """`GET /v1/memories/{id}/jobs/{job}`: what an observe's job has written."""
    return Call("GET", path(MEMORY + "/jobs/{}", memory_id, job_id), JobOut.model_validate)


def erase(memory_id: str, record_ids: list[str]) -> Call[ErasureOut]:
    """`POST /v1/memories/{id}/erase`: content removed for good, and what could not be reached."""
    body = {"record_ids": record_ids}
    return Call("POST", path(MEMORY + "/erase", memory_id), ErasureOut.model_validate, body=body, write=True)


def prime(memory_id: str, *, budget: int | None = None) -> Call[PrimeOut]:
    """`GET /v1/memories/{id}/prime`: the standing records as one fenced text."""
    return Call(
        "GET", path(MEMORY + "/prime", memory_id), PrimeOut.model_validate, params=given(budget=budget)
    )


def operate(memory_id: str, record_id: str, name: str, **input: Any) -> Call[OperationResultOut]:
    """`POST .../records/{record}/operations/{name}`: an operation the record's type offers."""
    url = path(RECORD + "/operations/{}", memory_id, record_id, name)
    return Call("POST", url, OperationResultOut.model_validate, body=input, write=True)


def consolidate(memory_id: str, *, budget: int | None = None) -> Call[ConsolidationOut]:
    """`POST /v1/memories/{id}/consolidations`: runs consolidation now."""
    body = {"budget": {"limit": budget}} if budget is not None else {}
    url = path(MEMORY + "/consolidations", memory_id)
    return Call("POST", url, ConsolidationOut.model_validate, body=body, write=True)


def list_consolidations(memory_id: str) -> Call[ConsolidationListOut]:
    """`GET /v1/memories/{id}/consolidations`: newest first."""
    return Call("GET", path(MEMORY + "/consolidations", memory_id), ConsolidationListOut.model_validate)


def get_consolidation(memory_id: str, run_id: str) -> Call[ConsolidationOut]:
    """`GET /v1/memories/{id}/consolidations/{run}`."""
    return Call(
        "GET", path(MEMORY + "/consolidations/{}", memory_id, run_id), ConsolidationOut.model_validate
    )


def consolidation_changes(memory_id: str, run_id: str) -> Call[FreeList]:
    """`GET .../consolidations/{run}/changes`: what the run did to each record."""
    return Call(
        "GET", path(MEMORY + "/consolidations/{}/changes", memory_id, run_id), FreeList.model_validate
    )


def revert_consolidation(memory_id: str, run_id: str) -> Call[ConsolidationOut]:
    """`POST .../consolidations/{run}/revert`: undone by appending versions."""
    url = path(MEMORY + "/consolidations/{}/revert", memory_id, run_id)
    return Call("POST", url, ConsolidationOut.model_validate, write=True)


# -- queries -----------------------------------------------------------------------------------


def free_query(
    memory_id: str,
    statement: str,
    *,
    params: dict[str, Any] | None = None,
    depth: int | None = None,
    max_staleness_ms: int | None = None,
) -> Call[QueryRowsOut | QueryRecordsOut]:
    """`POST /v1/memories/{id}/query`: read-only Cypher over what the caller may read."""
    body = given(statement=statement, params=params, depth=depth, max_staleness_ms=max_staleness_ms)
    return Call("POST", path(MEMORY + "/query", memory_id), _query_answer, body=body)


def list_queries(memory_id: str) -> Call[QueryListOut]:
    """`GET /v1/memories/{id}/queries`."""
    return Call("GET", path(MEMORY + "/queries", memory_id), QueryListOut.model_validate)


def define_query(memory_id: str, name: str, body: str, **definition: Any) -> Call[QueryOut]:
    """`PUT /v1/memories/{id}/queries/{name}`: `description`, `params`, `requires`, `language`."""
    url = path(MEMORY + "/queries/{}", memory_id, name)
    return Call("PUT", url, QueryOut.model_validate, body={"body": body, **definition}, write=True)


def run_query(
    memory_id: str, name: str, *, params: dict[str, Any] | None = None
) -> Call[QueryRowsOut | QueryRecordsOut]:
    """`POST /v1/memories/{id}/queries/{name}`: params checked against the query's schema."""
    body = {"params": params or {}}
    return Call("POST", path(MEMORY + "/queries/{}", memory_id, name), _query_answer, body=body)


# -- export and restore ------------------------------------------------------------------------


def export(memory_id: str, into: Stream) -> Call[int]:
    """`GET /v1/memories/{id}/export`: the subtree's tar, streamed into a path or file; its size."""
    return Call("GET", path(MEMORY + "/export", memory_id), int, download=into)


def restore(
    memory_id: str, archive: Stream, *, grants: bool | None = None, embed: bool | None = None
) -> Call[RestoredOut]:
    """`POST /v1/memories/{id}/restore`: an export streamed from a path or file, below the memory.

    `embed=True` embeds every version again instead of keeping the vectors the archive carries.
    """
    # No Idempotency-Key: the route is safe to send again (a retry finds everything present).
    url = path(MEMORY + "/restore", memory_id)
    headers = {"Content-Type": TAR}
    return Call(
        "POST",
        url,
        RestoredOut.model_validate,
        params=given(grants=grants, embed=embed),
        upload=archive,
        headers=headers,
    )


# -- admin (the admin key) ---------------------------------------------------------------------


def create_member(type: Literal["human", "agent"], name: str) -> Call[PrincipalOut]:
    """`POST /v1/admin/members`."""
    body = {"type": type, "name": name}
    return Call("POST", "/v1/admin/members", PrincipalOut.model_validate, body=body, write=True)


def issue_key(
    member_id: str, *, server: bool = False, expires_at: str | None = None, expires_in: int | None = None
) -> Call[IssuedKeyOut]:
    """`POST /v1/admin/members/{id}/keys`: `key` is in this answer only."""
    body = given(server=server, expires_at=expires_at, expires_in=expires_in)
    url = path("/v1/admin/members/{}/keys", member_id)
    return Call("POST", url, IssuedKeyOut.model_validate, body=body, write=True)


def list_keys(member_id: str) -> Call[ApiKeyListOut]:
    """`GET /v1/admin/members/{id}/keys`: never a key or its hash."""
    return Call("GET", path("/v1/admin/members/{}/keys", member_id), ApiKeyListOut.model_validate)


def member_usage(member_id: str) -> Call[UsageOut]:
    """`GET /v1/admin/members/{id}/usage`: what the member keeps, beside the quotas."""
    return Call("GET", path("/v1/admin/members/{}/usage", member_id), UsageOut.model_validate)


def revoke_key(member_id: str, key_id: str) -> Call[ApiKeyOut]:
    """`DELETE /v1/admin/members/{id}/keys/{key}`."""
    url = path("/v1/admin/members/{}/keys/{}", member_id, key_id)
    return Call("DELETE", url, ApiKeyOut.model_validate, write=True)


def rotate_key(
    member_id: str,
    key_id: str,
    *,
    grace_seconds: int | None = None,
    expires_at: str | None = None,
    expires_in: int | None = None,
) -> Call[RotatedKeyOut]:
    """`POST .../keys/{key}/rotate`: a new key; the old one ends after `grace_seconds`."""
    body = given(grace_seconds=grace_seconds, expires_at=expires_at, expires_in=expires_in)
    url = path("/v1/admin/members/{}/keys/{}/rotate", member_id, key_id)
    return Call("POST", url, RotatedKeyOut.model_validate, body=body, write=True)


def create_group(name: str) -> Call[PrincipalOut]:
    """`POST /v1/admin/groups`."""
    return Call("POST", "/v1/admin/groups", PrincipalOut.model_validate, body={"name": name}, write=True)


def add_to_group(group_id: str, member_id: str) -> Call[MembershipOut]:
    """`PUT /v1/admin/groups/{group}/members/{member}`."""
    url = path("/v1/admin/groups/{}/members/{}", group_id, member_id)
    return Call("PUT", url, MembershipOut.model_validate, write=True)


def remove_from_group(group_id: str, member_id: str) -> Call[MembershipOut]:
    """`DELETE /v1/admin/groups/{group}/members/{member}`."""
    url = path("/v1/admin/groups/{}/members/{}", group_id, member_id)
    return Call("DELETE", url, MembershipOut.model_validate, write=True)


def create_harness(name: str, member_id: str) -> Call[HarnessOut]:
    """`POST /v1/admin/harnesses`: a harness whose agent is the member."""
    body = {"name": name, "member_id": member_id}
    return Call("POST", "/v1/admin/harnesses", HarnessOut.model_validate, body=body, write=True)
