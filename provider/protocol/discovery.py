"""The discovery document of `GET /v1/uhp`, and the capability document of `GET /v1/memories/providers`."""

from __future__ import annotations

from typing import Any

from provider import PROTOCOL_VERSION, __version__
from provider.services.capabilities import Capable

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


def provider_document(provider_id: str, services: list[Capable]) -> dict[str, Any]:
    """`MemoryProvider`: isolation by a server-side condition on every read and write, plus fragments.

    Each wired service reports the fragment it makes true; a later fragment's object keys add to an
    earlier one's.
    """
    document: dict[str, Any] = {
        "id": provider_id,
        "object": "memory.provider",
        "isolation": "enforced_filter",
        "derivation": "none",
    }
    for service in services:
        for key, value in service.capabilities().items():
            if isinstance(value, dict) and isinstance(document.get(key), dict):
                document[key] = {**document[key], **value}
            else:
                document[key] = value
    return document
