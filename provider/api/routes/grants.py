"""Grants: `/v1/memories/{id}/grants`."""

from __future__ import annotations

from fastapi import APIRouter

from provider.api.deps import CallerDep, ServicesDep
from provider.api.docs import answers
from provider.api.idempotency import idempotent
from provider.protocol.answers.shapes import Deleted
from provider.protocol.answers.tree import GrantListOut, GrantOut
from provider.protocol.memories import GrantCreate

router = APIRouter(prefix="/v1/memories/{memory_id}/grants", tags=["grants"])


@router.get("", **answers(GrantListOut))
async def list_grants(memory_id: str, services: ServicesDep, caller: CallerDep) -> GrantListOut:
    """Who holds what on this memory, and on which node each grant sits."""
    grants = await services.grants.listing(caller, memory_id)
    return GrantListOut(data=[GrantOut.from_domain(g) for g in grants])


@router.post("", dependencies=[idempotent("delete")], **answers(GrantOut))
async def create_grant(
    memory_id: str, body: GrantCreate, services: ServicesDep, caller: CallerDep
) -> GrantOut:
    """Gives (or replaces) a principal's privileges on this memory; needs delete."""
    return GrantOut.from_domain(
        await services.grants.create(caller, memory_id, body.principal, list[str](body.privileges))
    )


@router.delete("/{grant_id}", dependencies=[idempotent("delete")], **answers(Deleted))
async def delete_grant(memory_id: str, grant_id: str, services: ServicesDep, caller: CallerDep) -> Deleted:
    """Removes a grant sitting on this memory; needs delete."""
    await services.grants.delete(caller, memory_id, grant_id)
    return Deleted(id=grant_id, deleted=True)
