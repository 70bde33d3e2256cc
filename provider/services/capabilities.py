"""What each service says it makes true of the capability document (protocol/discovery.py assembles it)."""

from __future__ import annotations

from typing import Any, Protocol


class Capable(Protocol):
    """A service that says which parts of the capability document it makes true."""

    def capabilities(self) -> dict[str, Any]:
        """A fragment of the document; merged with the others."""
        ...
