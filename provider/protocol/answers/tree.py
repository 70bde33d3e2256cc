"""The tree as answers give it: memories, listings, grants, a harness's memories, the admin's objects."""

from __future__ import annotations

from typing import Literal

from pydantic import MISSING, Field

from provider.models import (
    GrantView,
    Harness,
    HarnessMemories,
    Membership,
    MemoryView,
    Page,
    Principal,
    ordered_privileges,
)
from provider.protocol.answers.shapes import Answer, Count, Privilege


class MemoryOut(Answer):
    """`Memory`: one node of the tree as the caller sees it."""

    id: str = Field(description="Opaque to a client.")
    object: Literal["memory"] = "memory"
    name: str
    description: str = Field(description="What this memory holds; an agent reads it.")
    parent_id: str | None = Field(description="The parent, when the caller may see it.")
    ancestors: list[str] = Field(description="Ids from the root down to the parent, as far up as visible.")
    restricted: bool = Field(description="When true, grants on ancestors stop here.")
    provider: str
    privileges: list[Privilege] = Field(description="The caller's effective privileges here.")
    records: Count
    children: Count
    createdAt: int = Field(description="Milliseconds since the epoch.")
    updatedAt: int = Field(description="Milliseconds since the epoch.")

    @classmethod
    def from_domain(cls, view: MemoryView) -> MemoryOut:
        node = view.node
        return cls(
            id=node.id,
            name=node.name,
            description=node.description,
            parent_id=view.visible_parent_id,
            ancestors=view.ancestors,
            restricted=node.restricted,
            provider=node.provider,
            privileges=ordered_privileges(view.privileges),
            records=Count(count=node.record_count),
            children=Count(count=view.visible_children),
            createdAt=node.created_at,
            updatedAt=node.updated_at,
        )


class MemoryListOut(Answer):
    """`MemoryList`: one page."""

    object: Literal["list"] = "list"
    data: list[MemoryOut]
    next: str | None = Field(description="The cursor of the next page; null on the last.")

    @classmethod
    def from_domain(cls, page: Page[MemoryView]) -> MemoryListOut:
        return cls(data=[MemoryOut.from_domain(v) for v in page.items], next=page.next_cursor)


class GrantOut(Answer):
    """`MemoryGrant`, with the node it sits on; `implicit` marks a creator's own grant."""

    id: str
    object: Literal["memory.grant"] = "memory.grant"
    memory_id: str
    principal: str = Field(pattern=r"^(member|group|x\.[a-z0-9_.-]+):.+")
    privileges: list[Privilege]
    inherited: bool = Field(description="True when the grant sits on an ancestor.")
    implicit: Literal[True] | MISSING = MISSING

    @classmethod
    def from_domain(cls, view: GrantView) -> GrantOut:
        grant = view.grant
        return cls(
            id=grant.id,
            memory_id=grant.memory_id,
            principal=grant.principal,
            privileges=ordered_privileges(grant.privileges),
            inherited=view.inherited,
            **({"implicit": True} if grant.implicit else {}),
        )


class GrantListOut(Answer):
    """`MemoryGrantList`."""

    object: Literal["list"] = "list"
    data: list[GrantOut]


class HarnessMemoryOut(Answer):
    """A memory the harness's agent holds a grant on."""

    id: str
    name: str | None
    privileges: list[Privilege]
    default: bool


class HarnessMemoriesOut(Answer):
    """`HarnessMemories`: the memories in `data`, highest first."""

    object: Literal["harness.memories"] = "harness.memories"
    principal: str
    default_memory_id: str | None
    observe: bool | None
    data: list[HarnessMemoryOut]

    @classmethod
    def from_domain(cls, attached: HarnessMemories) -> HarnessMemoriesOut:
        return cls(
            principal=attached.principal,
            default_memory_id=attached.default_memory_id,
            observe=attached.observe,
            data=[
                HarnessMemoryOut(id=m.id, name=m.name, privileges=m.privileges, default=m.default)
                for m in attached.memories
            ],
        )


class PrincipalOut(Answer):
    """A member or a group as the admin surface made it, with the principal string a grant names."""

    id: str
    name: str
    principal: str
    type: Literal["human", "agent"] | MISSING = Field(MISSING, description="A member's kind.")

    @classmethod
    def from_domain(cls, made: Principal) -> PrincipalOut:
        kind = {"type": made.type} if made.type is not None else {}
        return cls(id=made.id, name=made.name, principal=made.principal, **kind)


class MembershipOut(Answer):
    """Whether a member now belongs to a group; a removal says whether there was one to remove."""

    group_id: str
    member_id: str
    member: bool
    removed: bool | MISSING = MISSING

    @classmethod
    def from_domain(cls, membership: Membership) -> MembershipOut:
        removed = {"removed": membership.removed} if membership.removed is not None else {}
        return cls(
            group_id=membership.group_id, member_id=membership.member_id, member=membership.member, **removed
        )


class HarnessOut(Answer):
    """A harness and the member its agent runs as."""

    id: str
    name: str
    member_id: str
    principal: str

    @classmethod
    def from_domain(cls, harness: Harness) -> HarnessOut:
        return cls(id=harness.id, name=harness.name, member_id=harness.member_id, principal=harness.principal)
