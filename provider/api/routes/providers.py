"""The capability document: `GET /v1/memories/providers`."""

from __future__ import annotations

from functools import cache

from fastapi import APIRouter

from provider.api.deps import CallerDep, ServicesDep
from provider.api.docs import answers
from provider.protocol.answers.shapes import FreeList
from provider.protocol.answers.types import MemoryTypeOut, TypeListOut
from provider.protocol.discovery import provider_document
from provider.services.types import catalog

router = APIRouter(prefix="/v1/memories", tags=["providers"])


@router.get("/types", **answers(TypeListOut))
async def list_types(_: CallerDep) -> TypeListOut:
    """The core types, and the types this provider adds with their schemas and operations."""
    return type_list()


@cache
def type_list() -> TypeListOut:
    """Built once: the catalogue never changes while the service runs, and its input schemas cost."""
    return TypeListOut(data=[MemoryTypeOut.from_listing(kind) for kind in catalog.listing()])


@router.get("/providers", **answers(FreeList))
async def list_providers(services: ServicesDep, _: CallerDep) -> FreeList:
    """The one connected provider, declaring only what its services do."""
    document = provider_document(services.settings.provider_id, services.capable())
    return FreeList(data=[document])
