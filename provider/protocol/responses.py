"""Response shapes as the OpenAPI document states them: the chapter's objects, for clients and fuzzers.

These models document; they do not shape. Routes build their answers with the `*_json` functions
(exact to the chapter: a text part carries no null fields), and FastAPI is told only the schema, so
nothing is added to or dropped from an answer. The fuzzing suite checks every answer against these.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

Privilege = Literal["read", "write", "create", "delete"]


class Shape(BaseModel):
    """An object the chapter lets carry fields of a server's own."""

    model_config = ConfigDict(extra="allow")


class Count(Shape):
    """A count that may be unknown."""

    count: int | None = Field(None, description="How many; null when not counted.")


class MemoryOut(Shape):
    """`Memory`: one node of the tree as the caller sees it."""

    id: str = Field(description="Opaque to a client.")
    object: Literal["memory"] = "memory"
    name: str
    description: str = Field(description="What this memory holds; an agent reads it.")
    parent_id: str | None = Field(description="The parent, when the caller may see it.")
    ancestors: list[str] = Field(description="Ids from the root down to the parent, as far up as visible.")
    restricted: bool = Field(description="When true, grants on ancestors stop here.")
    provider: str
    privileges: list[Privilege] = Field(description="The caller's effective privileges here.")
    records: Count
    children: Count
    createdAt: int = Field(description="Milliseconds since the epoch.")
    updatedAt: int = Field(description="Milliseconds since the epoch.")


class MemoryListOut(Shape):
    """`MemoryList`: one page."""

    object: Literal["list"] = "list"
    data: list[MemoryOut]
    next: str | None = Field(None, description="The cursor of the next page; null on the last.")


class MemoryDeletedOut(Shape):
    """`MemoryDeleted`: every memory removed."""

    id: str
    deleted: bool
    memories: list[str] = Field(description="The named memory and its descendants.")


class DeletedOut(Shape):
    """`Deleted`."""

    id: str
    deleted: bool


class GrantOut(Shape):
    """`MemoryGrant`."""

    id: str
    object: Literal["memory.grant"] = "memory.grant"
    memory_id: str
    principal: str = Field(pattern=r"^(member|group|x\.[a-z0-9_.-]+):.+")
    privileges: list[Privilege]
    inherited: bool = Field(description="True when the grant sits on an ancestor.")


class GrantListOut(Shape):
    """`MemoryGrantList`."""

    object: Literal["list"] = "list"
    data: list[GrantOut]


class FileOut(Shape):
    """A file part's file, completed by the server from its store."""

    id: str
    name: str | None = None
    media_type: str | None = None
    bytes: int | None = None


class ContentPartOut(Shape):
    """`MemoryContentPart` as read back."""

    type: str
    text: str | None = None
    text_source: Literal["stated", "derived"] | None = None
    role: Literal["user", "assistant", "system", "tool"] | None = None
    file: FileOut | None = None


class ReferenceOut(Shape):
    """`MemoryReference`: whole when the reader may read the target, else the bare id."""

    record_id: str
    rel: str | None = None
    memory_id: str | None = None
    available: bool


class WriterOut(Shape):
    """`MemoryWriter`, stamped by the server."""

    kind: str = Field(pattern=r"^(member|provider|x\.[a-z0-9_.-]+)$")
    id: str
    type: Literal["human", "agent"] | None = None
    on_behalf_of: str | None = None
    consolidation_id: str | None = None


class RecordTimeOut(Shape):
    """When the record holds and when it was written (ISO 8601)."""

    valid_from: str | None = Field(None, description="Absent only when the record is `withheld`.")
    valid_to: str | None = Field(None, description="Absent only when the record is `withheld`.")
    written_at: str | None
    invalidated_at: str | None


class RecordOut(Shape):
    """`MemoryRecord`: always `trust: untrusted`, content always a list."""

    id: str
    object: Literal["memory.record"] = "memory.record"
    memory_id: str
    type: str
    title: str | None = Field(None, max_length=300)
    content: list[ContentPartOut] | None = Field(None, description="Absent only when `withheld`.")
    attributes: dict[str, Any] | None = Field(None, description="Absent only when `withheld`.")
    version: int
    status: Literal["active", "superseded", "forgotten"]
    supersedes: int | None
    time: RecordTimeOut
    written_by: WriterOut | None = Field(None, description="Absent only when `withheld`.")
    references: list[ReferenceOut] | None = Field(None, description="Absent only when `withheld`.")
    follows: dict[str, Any] | None = None
    withheld: bool | None = Field(
        None,
        description="True on a write's answer to a caller without read: the record is named, "
        "what it says is left out.",
    )
    trust: Literal["untrusted"]


class RecordListOut(Shape):
    """`MemoryRecordList`."""

    object: Literal["list"] = "list"
    data: list[RecordOut]
    next: str | None = None


class NeighbourOut(Shape):
    """`MemoryNeighbour`."""

    id: str
    name: str
    description: str
    records: Count
    children: Count
    privileges: list[Privilege]


class PlaceOut(Shape):
    """Where a result or a node is."""

    id: str
    name: str | None = None


class RecallResultOut(Shape):
    """One hit."""

    record: RecordOut
    memory: PlaceOut
    score: float | None
    why: list[str] = Field(description="The signals that found it.")


class RecallOut(Shape):
    """`MemoryRecall`."""

    object: Literal["memory.recall"] = "memory.recall"
    results: list[RecallResultOut]
    parent: NeighbourOut | None = None
    children: list[NeighbourOut]
    degraded: list[str] = Field(description="What the request asked for and was not done.")
    abstain: bool = Field(description="True when nothing returned answers the question.")


class RecordRefOut(Shape):
    """`MemoryRecordRef`."""

    record_id: str
    memory_id: str | None = None


class GraphNodeOut(Shape):
    """A record and where it is."""

    record: RecordOut
    memory: PlaceOut


class GraphEdgeOut(Shape):
    """A reference between two records."""

    from_: RecordRefOut = Field(alias="from")
    to: RecordRefOut
    rel: str | None = None
    available: bool


class GraphOut(Shape):
    """`MemoryGraph`."""

    object: Literal["memory.graph"] = "memory.graph"
    nodes: list[GraphNodeOut]
    edges: list[GraphEdgeOut]
    truncated: bool
    degraded: list[str]


class ErasureOut(Shape):
    """`MemoryErasure`."""

    object: Literal["memory.erasure"] = "memory.erasure"
    erased: list[str]
    unreachable: list[str] = Field(description="Content the provider could not remove; empty is a guarantee.")


class SnapshotOut(Shape):
    """`MemorySnapshot`."""

    id: str
    object: Literal["memory.snapshot"] = "memory.snapshot"
    memory_id: str
    name: str
    message: str
    at: str | None


class SnapshotListOut(Shape):
    """`MemorySnapshotList`."""

    object: Literal["list"] = "list"
    data: list[SnapshotOut]


class ConsolidationOut(Shape):
    """`MemoryConsolidation`."""

    id: str
    object: Literal["memory.consolidation"] = "memory.consolidation"
    memory_id: str
    status: Literal["queued", "running", "completed", "stopped", "failed"]
    trigger: str | None = None
    started_at: int | None = None
    finished_at: int | None = None
    read: dict[str, Any]
    changes: dict[str, Any]
    budget: dict[str, Any]
    written_by: WriterOut
    error: str


class ConsolidationListOut(Shape):
    """`MemoryConsolidationList`."""

    object: Literal["list"] = "list"
    data: list[ConsolidationOut]


class FreeListOut(Shape):
    """A list of the chapter's free-form objects (capability documents, changes)."""

    object: Literal["list"] = "list"
    data: list[dict[str, Any]]


class PrimeOut(Shape):
    """The memory's standing records as one fenced text."""

    object: Literal["memory.prime"] = "memory.prime"
    memory_id: str
    trust: Literal["untrusted"]
    text: str
    records: list[Any]
    omitted: int
    tokens: dict[str, Any]


class HarnessMemoryOut(Shape):
    """A memory the harness's agent holds a grant on."""

    id: str
    name: str | None = None
    privileges: list[Privilege]
    default: bool | None = None


class HarnessMemoriesOut(Shape):
    """`HarnessMemories`."""

    object: Literal["harness.memories"] = "harness.memories"
    principal: str
    default_memory_id: str | None = None
    observe: bool | None = None
    data: list[HarnessMemoryOut]


class ErrorOut(Shape):
    """`Error`."""

    type: Literal[
        "invalid_request_error",
        "authentication_error",
        "permission_error",
        "rate_limit_error",
        "harness_error",
        "server_error",
    ]
    code: str = Field(min_length=1)
    message: str = Field(min_length=1)
    param: str | None = None
    detail: dict[str, Any] | None = None


class ErrorEnvelopeOut(Shape):
    """`ErrorEnvelope`: every refusal."""

    error: ErrorOut


ERRORS: dict[int | str, dict[str, Any]] = {
    status: {"model": ErrorEnvelopeOut, "description": text}
    for status, text in (
        (400, "Malformed request."),
        (401, "No or unknown credential."),
        (403, "Seen, but the privilege is missing."),
        (404, "Not found, or not visible to the caller."),
        (409, "The memory is busy."),
        (413, "The body is larger than the service accepts."),
        (422, "The body or a parameter breaks a rule; `param` names the field."),
        (503, "The store cannot answer right now."),
    )
}


def documented(model: type[BaseModel], description: str = "The answer.") -> dict[int | str, dict[str, Any]]:
    """A route's `responses`: its answer's schema and the error envelope of every refusal."""
    answer: dict[int | str, dict[str, Any]] = {200: {"model": model, "description": description}}
    return answer | ERRORS


class FreeObjectOut(Shape):
    """An object of the chapter's whose fields this provider does not fix."""


class PrincipalOut(Shape):
    """A member or a group as the admin surface made it, with the principal string a grant names."""

    id: str
    name: str
    principal: str


class MembershipOut(Shape):
    """Whether a member now belongs to a group."""

    group_id: str
    member_id: str
    member: bool


class HarnessOut(Shape):
    """A harness and the member its agent runs as."""

    id: str
    member_id: str
    principal: str


class UploadedFileOut(Shape):
    """`File`: what a record's file part names by id."""

    id: str
    object: Literal["file"] = "file"
    filename: str
    bytes: int = Field(ge=0)
    created_at: int
    media_type: str


class ApiKeyOut(Shape):
    """An API key as an operator may know it: never the key itself or its hash."""

    id: str = Field(description="The key's id (`hkey_...`), for revoking and rotating it.")
    member_id: str
    server: bool = Field(description="A server key may act for members via UHP-On-Behalf-Of.")
    created_at: str = Field(description="RFC 3339 instant.")
    expires_at: str | None = Field(description="When the key stops working; null when it never expires.")
    last_used_at: str | None = Field(
        description="When the key last authenticated, to the minute (stamped at most once a minute)."
    )
    revoked_at: str | None = Field(
        description="When the key is or was revoked; in the future while a rotation's grace runs."
    )
    revoked: bool = Field(description="True once revoked_at has passed: the key is refused.")
    expired: bool = Field(description="True once expires_at has passed: the key is refused.")


class ApiKeyListOut(Shape):
    """A member's keys, newest first, revoked and expired ones included."""

    object: Literal["list"] = "list"
    data: list[ApiKeyOut]


class IssuedKeyOut(ApiKeyOut):
    """A new key: `key` is shown this once; only its SHA-256 hash is kept."""

    key: str


class RotatedKeyOut(IssuedKeyOut):
    """A new key in an old one's place, and the old one with the end the rotation gave it."""

    previous: ApiKeyOut


class JobRefOut(Shape):
    """An observe's job as its 202 names it."""

    object: Literal["memory.job"] = "memory.job"
    id: str
    status: Literal["pending", "completed", "failed"]


class ObservedOut(Shape):
    """An observe's answer: the records kept (200), or no records yet and the job (202)."""

    object: Literal["list"] = "list"
    data: list[RecordOut]
    next: str | None = None
    job: JobRefOut | None = None


class JobOut(Shape):
    """`MemoryJob`: what an observe that answered 202 has written since."""

    object: Literal["memory.job"] = "memory.job"
    id: str
    status: Literal["pending", "completed", "failed"]
    error: str | None = None
    data: list[RecordOut]
