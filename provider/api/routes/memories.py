"""The tree: `/v1/memories` and `/v1/memories/{id}`."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query, Request

from provider.api.deps import CallerDep, ServicesDep
from provider.api.docs import answers
from provider.api.idempotency import idempotent, seed_of
from provider.protocol.answers.shapes import MemoryDeleted
from provider.protocol.answers.tree import MemoryListOut, MemoryOut
from provider.protocol.memories import MemoryCreate, MemoryUpdate
from provider.services.tree.memories import MemoryChanges, MemoryDraft

router = APIRouter(prefix="/v1/memories", tags=["memories"])


@router.get("", **answers(MemoryListOut))
async def list_memories(
    services: ServicesDep,
    caller: CallerDep,
    parent: Annotated[
        str | None, Query(max_length=128, description="Direct children of this memory.")
    ] = None,
    ancestor: Annotated[
        str | None, Query(max_length=128, description="Every readable descendant of this memory.")
    ] = None,
    granted: Annotated[bool, Query(description="Where the caller's privileges start or change.")] = False,
    limit: Annotated[int, Query(ge=1, le=100, description="Page size.")] = 50,
    cursor: Annotated[str | None, Query(max_length=256, description="From a previous page's `next`.")] = None,
) -> MemoryListOut:
    """One level of the tree, or the caller's entry points when no parent is named."""
    if parent is not None:
        page = await services.tree.list_children(caller, parent, cursor, limit)
    elif ancestor is not None:
        page = await services.tree.list_descendants(caller, ancestor, cursor, limit)
    elif granted:
        page = await services.tree.list_granted(caller, cursor, limit)
    else:
        page = await services.tree.list_entries(caller, cursor, limit)
    return MemoryListOut.from_domain(page)


@router.post("", dependencies=[idempotent()], **answers(MemoryOut))
async def create_memory(
    body: MemoryCreate, services: ServicesDep, caller: CallerDep, request: Request
) -> MemoryOut:
    """A root, or a child of a memory the caller may `create` in."""
    draft = MemoryDraft(
        name=body.name,
        description=body.description,
        parent_id=body.parent_id,
        restricted=body.restricted,
        provider=body.provider,
    )
    return MemoryOut.from_domain(await services.tree.create(caller, draft, seed=seed_of(request)))


@router.get("/{memory_id}", **answers(MemoryOut))
async def get_memory(memory_id: str, services: ServicesDep, caller: CallerDep) -> MemoryOut:
    """One memory as the caller sees it."""
    return MemoryOut.from_domain(await services.tree.view(caller, memory_id))


@router.put("/{memory_id}", dependencies=[idempotent("write")], **answers(MemoryOut))
async def update_memory(
    memory_id: str, body: MemoryUpdate, services: ServicesDep, caller: CallerDep
) -> MemoryOut:
    """Rename, describe, restrict or move."""
    changes = MemoryChanges(
        name=body.name,
        description=body.description,
        restricted=body.restricted,
        move="parent_id" in body.model_fields_set,
        parent_id=body.parent_id,
    )
    return MemoryOut.from_domain(await services.tree.update(caller, memory_id, changes))


@router.delete("/{memory_id}", dependencies=[idempotent("delete")], **answers(MemoryDeleted))
async def delete_memory(memory_id: str, services: ServicesDep, caller: CallerDep) -> MemoryDeleted:
    """The memory, its records and its whole subtree."""
    removed = await services.tree.delete(caller, memory_id)
    return MemoryDeleted(id=memory_id, deleted=True, memories=removed)
