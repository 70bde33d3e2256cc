"""The admin surface (admin key only): members, keys, groups, membership, harnesses."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter

from provider.api.deps import AdminDep, ServicesDep
from provider.api.docs import answers
from provider.protocol.admin import GroupCreate, HarnessCreate, KeyCreate, MemberCreate
from provider.protocol.responses import HarnessOut, KeyOut, MembershipOut, PrincipalOut

router = APIRouter(prefix="/v1/admin", tags=["admin"])


@router.post("/members", **answers(PrincipalOut))
async def create_member(body: MemberCreate, services: ServicesDep, _: AdminDep) -> dict[str, Any]:
    """`{id, principal, type, name}`."""
    return await services.admin.create_member(body.type, body.name)


@router.post("/members/{member_id}/keys", **answers(KeyOut))
async def create_key(
    member_id: str, services: ServicesDep, _: AdminDep, body: KeyCreate | None = None
) -> dict[str, Any]:
    """`{key}`, shown this once."""
    return await services.admin.issue_key(member_id, server=bool(body and body.server))


@router.post("/groups", **answers(PrincipalOut))
async def create_group(body: GroupCreate, services: ServicesDep, _: AdminDep) -> dict[str, Any]:
    """`{id, principal, name}`."""
    return await services.admin.create_group(body.name)


@router.put("/groups/{group_id}/members/{member_id}", **answers(MembershipOut))
async def add_member(group_id: str, member_id: str, services: ServicesDep, _: AdminDep) -> dict[str, Any]:
    """Adds a member or a group to a group."""
    return await services.admin.add_to_group(group_id, member_id)


@router.delete("/groups/{group_id}/members/{member_id}", **answers(MembershipOut))
async def remove_member(group_id: str, member_id: str, services: ServicesDep, _: AdminDep) -> dict[str, Any]:
    """Takes a member or a group out of a group."""
    return await services.admin.remove_from_group(group_id, member_id)


@router.post("/harnesses", **answers(HarnessOut))
async def create_harness(body: HarnessCreate, services: ServicesDep, _: AdminDep) -> dict[str, Any]:
    """`{id, name, member_id, principal}`."""
    return await services.harnesses.create(body.name, body.member_id)
