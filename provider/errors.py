"""The exception tree. Each leaf carries its UHP error code; HTTP status lives in the API's table.

ProviderError
├── InvalidRequestError        invalid_request_error
│   ├── MemoryInvalidError     memory_invalid
│   ├── MemoryUnsupportedError memory_unsupported
│   ├── UnsupportedVersionError unsupported_protocol_version
│   └── TooLargeError          uhp_memory.body_too_large (a body), file_too_large (an upload)
├── AuthenticationError        authentication_error
├── PermissionDeniedError      permission_error
│   └── MemoryForbiddenError   memory_forbidden
├── NotFoundError
│   ├── MemoryNotFoundError    memory_not_found
│   ├── RecordNotFoundError    memory_record_not_found
│   ├── GrantNotFoundError     memory_grant_not_found
│   ├── HarnessNotFoundError   harness_not_found
│   ├── MemberNotFoundError    member_not_found
│   ├── FileNotFoundInStoreError file_not_found
│   ├── MemoriesNotAttachedError memories_not_attached
│   ├── JobNotFoundError       uhp_memory.job_not_found
│   └── ResponseNotFoundError  response_not_found
├── QuotaExhaustedError        quota_exhausted (rate_limit_error: a principal's file quota is full)
├── RateLimitedError           rate_limited (rate_limit_error: past a budget or a fair queue's depth)
├── ConflictError              memory_busy
│   └── RestoreClashError      uhp_memory.restore_clash
└── UnavailableError           memory_unavailable
    └── BusyError              memory_unavailable (a fair queue's wait ran out: come back later)
"""

from __future__ import annotations

from typing import Any


class ProviderError(Exception):
    """Root of every error the service raises on purpose."""

    code = "server_error"
    kind = "server_error"

    def __init__(self, message: str, *, param: str | None = None, detail: dict[str, Any] | None = None):
        super().__init__(message)
        self.message = message
        self.param = param
        self.detail = detail


class InvalidRequestError(ProviderError):
    """The request is malformed."""

    code = "invalid_input"
    kind = "invalid_request_error"


class MemoryInvalidError(InvalidRequestError):
    """A memory request breaks a rule of the chapter."""

    code = "memory_invalid"


class InvalidInputError(InvalidRequestError):
    """A field of the admin surface is out of range."""

    code = "invalid_input"


class MemoryUnsupportedError(InvalidRequestError):
    """The provider does not do what was asked."""

    code = "memory_unsupported"


class UnsupportedVersionError(InvalidRequestError):
    """The client named a protocol version this server does not speak."""

    code = "unsupported_protocol_version"


class TooLargeError(InvalidRequestError):
    """A body past UHP_MAX_BODY_BYTES (vendor code: the protocol's file_too_large names uploads)."""

    code = "uhp_memory.body_too_large"


class FileTooLargeError(TooLargeError):
    """An upload past UHP_MAX_UPLOAD_BYTES: the protocol's own code for an oversized file."""

    code = "file_too_large"


class AuthenticationError(ProviderError):
    """No credential, or one the server does not know."""

    code = "invalid_credential"
    kind = "authentication_error"


class PermissionDeniedError(ProviderError):
    """The caller is known but may not do this."""

    code = "insufficient_scope"
    kind = "permission_error"


class MemoryForbiddenError(PermissionDeniedError):
    """The caller sees the memory but lacks the privilege."""

    code = "memory_forbidden"


class NotFoundError(ProviderError):
    """Something named in the request does not exist for this caller."""

    code = "not_found"
    kind = "invalid_request_error"


class MemoryNotFoundError(NotFoundError):
    """Unknown and unreadable look the same."""

    code = "memory_not_found"


class RecordNotFoundError(NotFoundError):
    """The record is not in the memory named in the path."""

    code = "memory_record_not_found"


class GrantNotFoundError(NotFoundError):
    """No such grant on this memory."""

    code = "memory_grant_not_found"


class HarnessNotFoundError(NotFoundError):
    """No such harness."""

    code = "harness_not_found"


class MemberNotFoundError(NotFoundError):
    """No such member or group (admin surface)."""

    code = "member_not_found"


class FileNotFoundInStoreError(NotFoundError):
    """No such file."""

    code = "file_not_found"


class ConsolidationNotFoundError(NotFoundError):
    """No such consolidation run in this memory (a vendor-prefixed code: the chapter defines none)."""

    code = "uhp_memory.consolidation_not_found"


class MemoriesNotAttachedError(NotFoundError):
    """A harness whose agent holds no grant."""

    code = "memories_not_attached"


class JobNotFoundError(NotFoundError):
    """No such observe job in this memory (a vendor-prefixed code: the chapter defines none)."""

    code = "uhp_memory.job_not_found"


class ResponseNotFoundError(NotFoundError):
    """No such response: this service runs no tasks, so it holds none."""

    code = "response_not_found"


class QuotaExhaustedError(ProviderError):
    """A principal's uploads hold their quota of bytes or files: the protocol's own code for it."""

    code = "quota_exhausted"
    kind = "rate_limit_error"


class RateLimitedError(ProviderError):
    """A caller past its rate, its requests in flight, or its share of a full queue: try again later.

    `retry_after` is whole seconds, at least 1: what the answer's `Retry-After` says.
    """

    code = "rate_limited"
    kind = "rate_limit_error"

    def __init__(self, message: str, *, retry_after: int, detail: dict[str, Any] | None = None):
        super().__init__(message, detail={"retry_after": retry_after, **(detail or {})})
        self.retry_after = max(1, retry_after)


class ConflictError(ProviderError):
    """The memory is busy with other work."""

    code = "memory_busy"
    kind = "invalid_request_error"


class RestoreClashError(ConflictError):
    """A restore found an id in use by something else: it writes nothing over it."""

    code = "uhp_memory.restore_clash"

    def __init__(self, kind: str, existing_id: str):
        super().__init__(
            f"The archive's {kind} {existing_id} has an id in use here by something else (or by "
            "something you may not restore into); nothing was written over it.",
            param="archive",
            detail={"kind": kind, "id": existing_id},
        )


class UnavailableError(ProviderError):
    """The store cannot be reached right now."""

    code = "memory_unavailable"
    kind = "server_error"


class BusyError(UnavailableError):
    """Every slot of a class stayed taken for the whole wait: the service is busy, not the caller.

    The slots may be held by work waiting on something that is away (Neo4j restarting). It is not a
    caller past a limit, so it is 503, not 429. `retry_after` is what `Retry-After` says.
    """

    def __init__(self, message: str, *, retry_after: int, detail: dict[str, Any] | None = None):
        super().__init__(message, detail={"retry_after": retry_after, **(detail or {})})
        self.retry_after = max(1, retry_after)


class RerankerUnavailableError(UnavailableError):
    """The cross-encoder could not be fetched or run; recall answers in its fused order instead."""
