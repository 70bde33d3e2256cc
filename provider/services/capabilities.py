"""The capability document, assembled from what the wired services report they do."""

from __future__ import annotations

from typing import Any, Protocol


class Capable(Protocol):
    """A service that says which parts of the capability document it makes true."""

    def capabilities(self) -> dict[str, Any]:
        """A fragment of the document; merged with the others."""
        ...


def provider_document(provider_id: str, services: list[Capable]) -> dict[str, Any]:
    """`MemoryProvider`: isolation by a server-side condition on every read and write, plus fragments."""
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
