"""The chapter's refusals as exceptions: one class per error `type`, the `code` kept as given."""

from __future__ import annotations

from typing import Any


class UhpError(Exception):
    """A refusal in the chapter's error envelope, or an answer that is not one (then `code` says so)."""

    def __init__(
        self,
        status: int,
        code: str,
        message: str,
        *,
        param: str | None = None,
        detail: dict[str, Any] | None = None,
        request_id: str | None = None,
    ):
        super().__init__(f"{status} {code}: {message}")
        self.status = status
        self.code = code
        self.message = message
        self.param = param
        self.detail = detail or {}
        self.request_id = request_id


class InvalidRequestError(UhpError):
    """400, 413 or 422: the request breaks a rule; `param` names the field."""


class AuthenticationError(UhpError):
    """401: no key, or one the service does not know."""


class PermissionDeniedError(UhpError):
    """403: the memory is seen, the privilege is missing."""


class NotFoundError(UhpError):
    """404: not there, or not visible to the caller (the two look the same)."""


class ConflictError(UhpError):
    """409: the memory is busy, or an idempotency key is reused with another body."""


class RateLimitError(UhpError):
    """429: a quota or a rate limit."""


class UnavailableError(UhpError):
    """503: the store cannot answer right now; a retry may succeed."""


class ServerError(UhpError):
    """Any other failure of the service."""


BY_TYPE: dict[str, type[UhpError]] = {
    "invalid_request_error": InvalidRequestError,
    "authentication_error": AuthenticationError,
    "permission_error": PermissionDeniedError,
    "rate_limit_error": RateLimitError,
}
BY_STATUS: dict[int, type[UhpError]] = {404: NotFoundError, 409: ConflictError, 503: UnavailableError}


def refusal(status: int, payload: Any) -> UhpError:
    """The exception for an answer with an error status, read from its envelope when it has one."""
    error = payload.get("error") if isinstance(payload, dict) else None
    if not isinstance(error, dict):
        return ServerError(
            status, "unexpected_answer", f"the service answered {status} without an error envelope"
        )
    kind = BY_STATUS.get(status) or BY_TYPE.get(str(error.get("type")), ServerError)
    return kind(
        status,
        str(error.get("code") or "unknown"),
        str(error.get("message") or ""),
        param=error.get("param"),
        detail=error.get("detail"),
        request_id=error.get("request_id"),
    )
