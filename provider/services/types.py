"""Record types: the six core types, described; extension types are carried but not registered."""

from __future__ import annotations

from typing import Any

from provider.errors import MemoryUnsupportedError
from provider.models import Caller
from provider.services.tree import TreeService

CORE_TYPES = {
    "episode": "Raw experience as it arrived: a turn, a transcript, an action and its result. Append-only.",
    "fact": "One thing worth remembering, as it was said. May name a subject and an object entity.",
    "note": "A document an agent or a person wrote and keeps up to date.",
    "procedure": "A how-to, with the situation it applies to.",
    "link": "A pointer to something kept elsewhere: an address and what it is.",
    "entity": "Something records are about: a person, a company, a product, a place. Its title is its name.",
}


class TypeService:
    """No extension-type mechanism ships yet, so `types` is declared false and operations refused."""

    def __init__(self, tree: TreeService):
        self.tree = tree

    def capabilities(self) -> dict[str, Any]:
        """Extension types are carried unchanged, but none is registered."""
        return {"types": False}

    def listing(self) -> list[dict[str, Any]]:
        """The core types."""
        return [{"type": name, "core": True, "description": text} for name, text in CORE_TYPES.items()]

    async def operate(self, caller: Caller, memory_id: str, record_id: str, name: str) -> dict[str, Any]:
        """Unknown memories stay unknown (404); otherwise there is no operation to run."""
        await self.tree.require(caller, memory_id, "read")
        raise MemoryUnsupportedError(
            f"This provider registers no extension types, so no record operation such as {name!r} exists.",
            param="name",
        )
