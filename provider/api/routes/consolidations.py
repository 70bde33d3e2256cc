"""Consolidation runs: `/v1/memories/{id}/consolidations...`."""

from __future__ import annotations

from fastapi import APIRouter

from provider.api.deps import CallerDep, ServicesDep
from provider.api.docs import answers
from provider.api.idempotency import idempotent
from provider.protocol.answers.lifecycle import ConsolidationListOut, ConsolidationOut
from provider.protocol.answers.shapes import FreeList
from provider.protocol.lifecycle_requests import ConsolidationStart

router = APIRouter(prefix="/v1/memories/{memory_id}/consolidations", tags=["consolidations"])


@router.post("", dependencies=[idempotent("write")], **answers(ConsolidationOut))
async def start(
    memory_id: str,
    services: ServicesDep,
    caller: CallerDep,
    body: ConsolidationStart | None = None,
) -> ConsolidationOut:
    """Runs consolidation now (needs write)."""
    limit = body.budget.limit if body and body.budget else None
    run = await services.consolidation.start(caller, memory_id, limit)
    return ConsolidationOut.from_domain(run, services.settings.provider_id)


@router.get("", **answers(ConsolidationListOut))
async def listing(memory_id: str, services: ServicesDep, caller: CallerDep) -> ConsolidationListOut:
    """The runs, newest first."""
    runs = await services.consolidation.listing(caller, memory_id)
    return ConsolidationListOut(
        data=[ConsolidationOut.from_domain(run, services.settings.provider_id) for run in runs]
    )


@router.get("/{run_id}", **answers(ConsolidationOut))
async def get_run(memory_id: str, run_id: str, services: ServicesDep, caller: CallerDep) -> ConsolidationOut:
    """One run."""
    run = await services.consolidation.get(caller, memory_id, run_id)
    return ConsolidationOut.from_domain(run, services.settings.provider_id)


@router.get("/{run_id}/changes", **answers(FreeList))
async def changes(memory_id: str, run_id: str, services: ServicesDep, caller: CallerDep) -> FreeList:
    """What the run did to each record."""
    changes = await services.consolidation.changes(caller, memory_id, run_id)
    return FreeList(
        data=[
            {
                "record_id": c.record_id,
                "action": c.action,
                "version_before": c.before,
                "version_after": c.after,
            }
            for c in changes
        ]
    )


@router.post("/{run_id}/revert", dependencies=[idempotent("write")], **answers(ConsolidationOut))
async def revert(memory_id: str, run_id: str, services: ServicesDep, caller: CallerDep) -> ConsolidationOut:
    """Undoes the run by appending versions."""
    run = await services.consolidation.revert(caller, memory_id, run_id)
    return ConsolidationOut.from_domain(run, services.settings.provider_id)
