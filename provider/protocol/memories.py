"""Wire shapes of the tree: memories, grants and listings, as the chapter and `Memory` give them."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from provider.protocol.wire import RequestBody


class MemoryCreate(RequestBody):
    """Body of `POST /v1/memories`."""

    name: str = Field(min_length=1, max_length=300, description="Human-readable name.")
    description: str = Field("", max_length=4000, description="What this memory holds; agents read it.")
    parent_id: str | None = Field(
        None, max_length=128, description="The containing memory; null or absent for a root."
    )
    restricted: bool = Field(False, description="When true, grants on ancestors stop here.")
    provider: str | None = Field(
        None, max_length=128, description="Which provider keeps the records; inherited when omitted."
    )


class MemoryUpdate(RequestBody):
    """Body of `PUT /v1/memories/{id}`; fields left out are left alone."""

    name: str | None = Field(None, min_length=1, max_length=300, description="New name.")
    description: str | None = Field(None, max_length=4000, description="New description.")
    restricted: bool | None = Field(None, description="Set or lift the cutoff (needs delete).")
    parent_id: str | None = Field(
        None, max_length=128, description="Move under this memory; null makes it a root (needs delete)."
    )


class HarnessMemorySettings(RequestBody):
    """`HarnessMemorySettings`, the body of the PUT; fields left out keep their value."""

    default_memory_id: str | None = Field(
        None, max_length=128, description="Where an unaddressed remember goes; a memory the agent may write."
    )
    observe: bool | None = Field(None, description="Record each finished turn in the default memory.")


class GrantCreate(RequestBody):
    """Body of `POST /v1/memories/{id}/grants`."""

    principal: str = Field(
        min_length=1, max_length=300, description="`member:<id>`, `group:<id>` or an `x.`-prefixed kind."
    )
    privileges: list[Literal["read", "write", "create", "delete"]] = Field(
        max_length=4, description="A subset of read, write, create, delete."
    )
