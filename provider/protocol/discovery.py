"""The discovery document of `GET /v1/uhp`."""

from __future__ import annotations

from typing import Any

from provider import PROTOCOL_VERSION, __version__

SUPPORTED_VERSIONS = (PROTOCOL_VERSION,)


def discovery(*, memories: bool) -> dict[str, Any]:
    """Every capability is a boolean, true only for what this service does."""
    return {
        "object": "uhp.discovery",
        "protocol": "uhp",
        "versions": list(SUPPORTED_VERSIONS),
        "default_version": PROTOCOL_VERSION,
        "conformance_class": "core",
        "capabilities": {
            "streaming": False,
            "sessions": False,
            "cancellation": False,
            "files_input": False,
            "files_output": False,
            "session_listing": False,
            "harness_management": False,
            "session_sharing": False,
            "idempotency": True,
            "plugins": False,
            "environments": False,
            "memories": memories,
        },
        "implementation": {"name": "uhp-memory", "version": __version__},
    }
