"""Recall: `POST /v1/memories/{id}/recall`."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Body

from provider.api.deps import CallerDep, ServicesDep
from provider.protocol.recall import recall_json

router = APIRouter(prefix="/v1/memories/{memory_id}", tags=["recall"])


@router.post("/recall")
async def recall(
    memory_id: str,
    body: Annotated[dict[str, Any], Body(description="`MemoryRecallRequest`.")],
    services: ServicesDep,
    caller: CallerDep,
) -> dict[str, Any]:
    """Searches this memory and every descendant the caller may read."""
    return recall_json(await services.recall.recall(caller, memory_id, body))
