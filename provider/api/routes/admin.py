"""The admin surface (admin key only): members, keys, groups, membership, harnesses."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter
from pydantic import BaseModel, ConfigDict, Field

from provider.api.deps import AdminDep, ServicesDep

router = APIRouter(prefix="/v1/admin", tags=["admin"])


class MemberCreate(BaseModel):
    """A person or an agent."""

    model_config = ConfigDict(extra="ignore")
    type: str = Field(description="human or agent.")
    name: str = Field(min_length=1, max_length=300, description="Display name.")


class KeyCreate(BaseModel):
    """A new API key for a member."""

    model_config = ConfigDict(extra="ignore")
    server: bool = Field(False, description="A server key may act for members via UHP-On-Behalf-Of.")


class GroupCreate(BaseModel):
    """A group of members and groups."""

    model_config = ConfigDict(extra="ignore")
    name: str = Field(min_length=1, max_length=300, description="Display name.")


class HarnessCreate(BaseModel):
    """A harness whose agent is a member."""

    model_config = ConfigDict(extra="ignore")
    name: str = Field(min_length=1, max_length=300, description="Display name.")
    member_id: str = Field(description="The agent member this harness runs as.")


@router.post("/members")
async def create_member(body: MemberCreate, services: ServicesDep, _: AdminDep) -> dict[str, Any]:
    """`{id, principal, type, name}`."""
    return await services.admin.create_member(body.type, body.name)


@router.post("/members/{member_id}/keys")
async def create_key(
    member_id: str, services: ServicesDep, _: AdminDep, body: KeyCreate | None = None
) -> dict[str, Any]:
    """`{key}`, shown this once."""
    return await services.admin.issue_key(member_id, server=bool(body and body.server))


@router.post("/groups")
async def create_group(body: GroupCreate, services: ServicesDep, _: AdminDep) -> dict[str, Any]:
    """`{id, principal, name}`."""
    return await services.admin.create_group(body.name)


@router.put("/groups/{group_id}/members/{member_id}")
async def add_member(group_id: str, member_id: str, services: ServicesDep, _: AdminDep) -> dict[str, Any]:
    """Adds a member or a group to a group."""
    return await services.admin.add_to_group(group_id, member_id)


@router.delete("/groups/{group_id}/members/{member_id}")
async def remove_member(group_id: str, member_id: str, services: ServicesDep, _: AdminDep) -> dict[str, Any]:
    """Takes a member or a group out of a group."""
    return await services.admin.remove_from_group(group_id, member_id)


@router.post("/harnesses")
async def create_harness(body: HarnessCreate, services: ServicesDep, _: AdminDep) -> dict[str, Any]:
    """`{id, name, member_id, principal}`."""
    return await services.harnesses.create(body.name, body.member_id)
