"""What every answer shares: the base model, counts, deletions, free lists and the error envelope."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

Privilege = Literal["read", "write", "create", "delete"]


class Answer(BaseModel):
    """An object the chapter lets carry fields of a server's own; names as the wire spells them."""

    model_config = ConfigDict(
        extra="allow", serialize_by_alias=True, validate_by_name=True, validate_by_alias=True
    )

    def wire(self) -> dict[str, Any]:
        """The JSON value sent: what MCP tools and the CLI print, the same as the route's bytes."""
        return self.model_dump(mode="json")


class Count(Answer):
    """A count that may be unknown."""

    count: int | None = Field(description="How many; null when not counted.")


class Deleted(Answer):
    """`Deleted`: a grant removed."""

    id: str
    object: Literal["memory.grant.deleted"] = "memory.grant.deleted"
    deleted: bool


class MemoryDeleted(Answer):
    """`MemoryDeleted`: every memory removed."""

    id: str
    object: Literal["memory.deleted"] = "memory.deleted"
    deleted: bool
    memories: list[str] = Field(description="The named memory and its descendants.")


class FreeList(Answer):
    """A list of the chapter's free-form objects (capability documents, consolidation changes)."""

    object: Literal["list"] = "list"
    data: list[dict[str, Any]]


class ErrorOut(Answer):
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


class ErrorEnvelopeOut(Answer):
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
