"""The admin surface (admin key only): members, keys, usage, groups, membership, harnesses."""

from __future__ import annotations

from fastapi import APIRouter

from provider.api.deps import AdminDep, ServicesDep
from provider.api.docs import answers
from provider.api.idempotency import idempotent
from provider.protocol.admin import (
    GroupCreate,
    HarnessCreate,
    KeyCreate,
    KeyRotate,
    MemberCreate,
)
from provider.protocol.answers.admin import ApiKeyListOut, ApiKeyOut, IssuedKeyOut, RotatedKeyOut, UsageOut
from provider.protocol.answers.tree import HarnessOut, MembershipOut, PrincipalOut

router = APIRouter(prefix="/v1/admin", tags=["admin"])


@router.post("/members", dependencies=[idempotent()], **answers(PrincipalOut))
async def create_member(body: MemberCreate, services: ServicesDep, _: AdminDep) -> PrincipalOut:
    """`{id, principal, type, name}`."""
    return PrincipalOut.from_domain(await services.admin.create_member(body.type, body.name))


@router.post("/members/{member_id}/keys", dependencies=[idempotent(secret=True)], **answers(IssuedKeyOut))
async def create_key(
    member_id: str, services: ServicesDep, _: AdminDep, body: KeyCreate | None = None
) -> IssuedKeyOut:
    """A new key: `key` is shown this once, `id` names it from then on."""
    body = body or KeyCreate()
    issued = await services.admin.issue_key(
        member_id, server=body.server, expires_at=body.expires_at_ms(), expires_in=body.expires_in
    )
    return IssuedKeyOut.issued(issued)


@router.get("/members/{member_id}/keys", **answers(ApiKeyListOut))
async def list_keys(member_id: str, services: ServicesDep, _: AdminDep) -> ApiKeyListOut:
    """The member's keys, newest first, with their times; never a key or its hash."""
    return ApiKeyListOut(
        data=[ApiKeyOut.from_domain(key) for key in await services.admin.list_keys(member_id)]
    )


@router.delete("/members/{member_id}/keys/{key_id}", dependencies=[idempotent()], **answers(ApiKeyOut))
async def revoke_key(member_id: str, key_id: str, services: ServicesDep, _: AdminDep) -> ApiKeyOut:
    """Revokes a key at once; it is refused from the next request on, as an unknown key is."""
    return ApiKeyOut.from_domain(await services.admin.revoke_key(member_id, key_id))


@router.post(
    "/members/{member_id}/keys/{key_id}/rotate",
    dependencies=[idempotent(secret=True)],
    **answers(RotatedKeyOut),
)
async def rotate_key(
    member_id: str, key_id: str, services: ServicesDep, _: AdminDep, body: KeyRotate | None = None
) -> RotatedKeyOut:
    """A new key with the old one's server flag; the old one ends after `grace_seconds` (default 0)."""
    body = body or KeyRotate()
    rotated = await services.admin.rotate_key(
        member_id,
        key_id,
        grace_seconds=body.grace_seconds,
        expires_at=body.expires_at_ms(),
        expires_in=body.expires_in,
    )
    return RotatedKeyOut.rotated(rotated)


@router.get("/members/{member_id}/usage", **answers(UsageOut))
async def member_usage(member_id: str, services: ServicesDep, _: AdminDep) -> UsageOut:
    """What the member keeps (records, bytes of content, memories) beside the quotas in force."""
    return UsageOut.from_domain(await services.admin.usage_of(member_id))


@router.post("/groups", dependencies=[idempotent()], **answers(PrincipalOut))
async def create_group(body: GroupCreate, services: ServicesDep, _: AdminDep) -> PrincipalOut:
    """`{id, principal, name}`."""
    return PrincipalOut.from_domain(await services.admin.create_group(body.name))


@router.put("/groups/{group_id}/members/{member_id}", dependencies=[idempotent()], **answers(MembershipOut))
async def add_member(group_id: str, member_id: str, services: ServicesDep, _: AdminDep) -> MembershipOut:
    """Adds a member or a group to a group."""
    return MembershipOut.from_domain(await services.admin.add_to_group(group_id, member_id))


@router.delete(
    "/groups/{group_id}/members/{member_id}", dependencies=[idempotent()], **answers(MembershipOut)
)
async def remove_member(group_id: str, member_id: str, services: ServicesDep, _: AdminDep) -> MembershipOut:
    """Takes a member or a group out of a group."""
    return MembershipOut.from_domain(await services.admin.remove_from_group(group_id, member_id))


@router.post("/harnesses", dependencies=[idempotent()], **answers(HarnessOut))
async def create_harness(body: HarnessCreate, services: ServicesDep, _: AdminDep) -> HarnessOut:
    """`{id, name, member_id, principal}`."""
    return HarnessOut.from_domain(await services.harnesses.create(body.name, body.member_id))
