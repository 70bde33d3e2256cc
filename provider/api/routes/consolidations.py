"""Consolidation runs: `/v1/memories/{id}/consolidations...`."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter

from provider.api.deps import CallerDep, ServicesDep
from provider.api.docs import answers
from provider.api.idempotency import idempotent
from provider.protocol.lifecycle_answers import run_json
from provider.protocol.lifecycle_requests import ConsolidationStart
from provider.protocol.responses import ConsolidationListOut, ConsolidationOut, FreeListOut

router = APIRouter(prefix="/v1/memories/{memory_id}/consolidations", tags=["consolidations"])


@router.post("", dependencies=[idempotent("write")], **answers(ConsolidationOut))
async def start(
    memory_id: str,
    services: ServicesDep,
    caller: CallerDep,
    body: ConsolidationStart | None = None,
) -> dict[str, Any]:
    """Runs consolidation now (needs write)."""
    limit = body.budget.limit if body and body.budget else None
    run = await services.consolidation.start(caller, memory_id, limit)
    return run_json(run, services.settings.provider_id)


@router.get("", **answers(ConsolidationListOut))
async def listing(memory_id: str, services: ServicesDep, caller: CallerDep) -> dict[str, Any]:
    """The runs, newest first."""
    runs = await services.consolidation.listing(caller, memory_id)
    return {"object": "list", "data": [run_json(run, services.settings.provider_id) for run in runs]}


@router.get("/{run_id}", **answers(ConsolidationOut))
async def get_run(memory_id: str, run_id: str, services: ServicesDep, caller: CallerDep) -> dict[str, Any]:
    """One run."""
    return run_json(
        await services.consolidation.get(caller, memory_id, run_id), services.settings.provider_id
    )


@router.get("/{run_id}/changes", **answers(FreeListOut))
async def changes(memory_id: str, run_id: str, services: ServicesDep, caller: CallerDep) -> dict[str, Any]:
    """What the run did to each record."""
    return {"object": "list", "data": await services.consolidation.changes(caller, memory_id, run_id)}


@router.post("/{run_id}/revert", dependencies=[idempotent("write")], **answers(ConsolidationOut))
async def revert(memory_id: str, run_id: str, services: ServicesDep, caller: CallerDep) -> dict[str, Any]:
    """Undoes the run by appending versions."""
    run = await services.consolidation.revert(caller, memory_id, run_id)
    return run_json(run, services.settings.provider_id)
