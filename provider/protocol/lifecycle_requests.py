"""Request bodies of a memory's lifecycle: `MemoryErase` and `MemoryConsolidationStart`."""

from __future__ import annotations

from typing import Annotated

from pydantic import Field

from provider.protocol.wire import RequestBody, WireModel

MAX_ERASE_IDS = 1000
MAX_BUDGET = 100_000

RecordId = Annotated[str, Field(min_length=1, max_length=128)]


class EraseRequest(RequestBody):
    """`MemoryErase`: records whose content is removed for good, with what was derived only from them."""

    record_ids: list[RecordId] = Field(
        min_length=1, max_length=MAX_ERASE_IDS, description=f"1 to {MAX_ERASE_IDS} records of this memory."
    )


class Budget(WireModel):
    """How much one run may examine."""

    limit: int = Field(ge=1, le=MAX_BUDGET, description="Records one run examines at most.")


class ConsolidationStart(RequestBody):
    """`MemoryConsolidationStart`: run the rules now, within a budget."""

    budget: Budget | None = Field(None, description="Left out: the service's default budget.")
