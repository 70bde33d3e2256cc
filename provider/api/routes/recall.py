"""Recall: `POST /v1/memories/{id}/recall`."""

from __future__ import annotations

from fastapi import APIRouter

from provider.api.deps import CallerDep, ServicesDep
from provider.api.docs import answers
from provider.protocol.answers.recall import RecallOut
from provider.protocol.recall_requests import RecallRequest

router = APIRouter(prefix="/v1/memories/{memory_id}", tags=["recall"])


@router.post("/recall", **answers(RecallOut))
async def recall(
    memory_id: str,
    body: RecallRequest,
    services: ServicesDep,
    caller: CallerDep,
) -> RecallOut:
    """Searches this memory and every descendant the caller may read."""
    return RecallOut.from_domain(await services.recall.recall(caller, memory_id, body.ask()))
