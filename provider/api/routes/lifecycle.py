"""Observe, erase, prime and record operations: `/v1/memories/{id}/...`."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Query

from provider.api.deps import CallerDep, ServicesDep
from provider.api.docs import answers
from provider.api.idempotency import idempotent
from provider.protocol.lifecycle_requests import EraseRequest
from provider.protocol.record_requests import ObserveRequest
from provider.protocol.records import record_json
from provider.protocol.responses import ErasureOut, FreeObjectOut, PrimeOut, RecordListOut

router = APIRouter(prefix="/v1/memories/{memory_id}", tags=["lifecycle"])
PRIME_BUDGET_MAX = 100_000  # tokens: far past any context window, and bounded


@router.post("/observe", dependencies=[idempotent("write")], **answers(RecordListOut))
async def observe(
    memory_id: str, body: ObserveRequest, services: ServicesDep, caller: CallerDep
) -> dict[str, Any]:
    """Appends episodes; entity links are derived before the answer, so it is 200 with the records."""
    kept = await services.observe.observe(caller, memory_id, body.episodes)
    return {"object": "list", "data": [record_json(r) for r in kept], "next": None}


@router.post("/erase", dependencies=[idempotent("delete")], **answers(ErasureOut))
async def erase(
    memory_id: str, body: EraseRequest, services: ServicesDep, caller: CallerDep
) -> dict[str, Any]:
    """Removes content for good (needs delete) and says what it could not reach."""
    return await services.erase.erase(caller, memory_id, body.record_ids)


@router.get("/prime", **answers(PrimeOut))
async def prime(
    memory_id: str,
    services: ServicesDep,
    caller: CallerDep,
    budget: Annotated[int, Query(ge=1, le=PRIME_BUDGET_MAX, description="Most tokens to return.")] = 2000,
) -> dict[str, Any]:
    """The memory's standing records, fenced as data, within the budget."""
    return await services.prime.prime(caller, memory_id, budget)


@router.post("/records/{record_id}/operations/{name}", **answers(FreeObjectOut))
async def operate(
    memory_id: str, record_id: str, name: str, services: ServicesDep, caller: CallerDep
) -> dict[str, Any]:
    """Operations belong to registered extension types; none are registered here."""
    return await services.types.operate(caller, memory_id, record_id, name)
