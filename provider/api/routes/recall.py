"""Recall: `POST /v1/memories/{id}/recall`."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter

from provider.api.deps import CallerDep, ServicesDep
from provider.api.docs import answers
from provider.protocol.recall import recall_json
from provider.protocol.recall_requests import RecallRequest
from provider.protocol.responses import RecallOut

router = APIRouter(prefix="/v1/memories/{memory_id}", tags=["recall"])


@router.post("/recall", **answers(RecallOut))
async def recall(
    memory_id: str,
    body: RecallRequest,
    services: ServicesDep,
    caller: CallerDep,
) -> dict[str, Any]:
    """Searches this memory and every descendant the caller may read."""
    return recall_json(await services.recall.recall(caller, memory_id, body.ask()))
