"""Grants: `/v1/memories/{id}/grants`."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter

from provider.api.deps import CallerDep, ServicesDep
from provider.api.docs import answers
from provider.api.idempotency import idempotent
from provider.protocol.memories import GrantCreate, grant_json
from provider.protocol.responses import DeletedOut, GrantListOut, GrantOut

router = APIRouter(prefix="/v1/memories/{memory_id}/grants", tags=["grants"])


@router.get("", **answers(GrantListOut))
async def list_grants(memory_id: str, services: ServicesDep, caller: CallerDep) -> dict[str, Any]:
    """Who holds what on this memory, and on which node each grant sits."""
    grants = await services.grants.listing(caller, memory_id)
    return {"object": "list", "data": [grant_json(g) for g in grants]}


@router.post("", dependencies=[idempotent("delete")], **answers(GrantOut))
async def create_grant(
    memory_id: str, body: GrantCreate, services: ServicesDep, caller: CallerDep
) -> dict[str, Any]:
    """Gives (or replaces) a principal's privileges on this memory; needs delete."""
    return grant_json(
        await services.grants.create(caller, memory_id, body.principal, list[str](body.privileges))
    )


@router.delete("/{grant_id}", dependencies=[idempotent("delete")], **answers(DeletedOut))
async def delete_grant(
    memory_id: str, grant_id: str, services: ServicesDep, caller: CallerDep
) -> dict[str, Any]:
    """Removes a grant sitting on this memory; needs delete."""
    await services.grants.delete(caller, memory_id, grant_id)
    return {"id": grant_id, "object": "memory.grant.deleted", "deleted": True}
