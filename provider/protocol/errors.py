"""The UHP error envelope, built from a ProviderError."""

from __future__ import annotations

from typing import Any

from provider.errors import ProviderError


def envelope(error: ProviderError, request_id: str) -> dict[str, Any]:
    """`{"error": {type, code, message, param, detail, request_id}}`; never a trace or a path."""
    return {
        "error": {
            "type": error.kind,
            "code": error.code,
            "message": error.message,
            "param": error.param,
            "detail": error.detail,
            "request_id": request_id,
        }
    }
