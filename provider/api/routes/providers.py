"""The capability document: `GET /v1/memories/providers`."""

from __future__ import annotations

from fastapi import APIRouter

from provider.api.deps import CallerDep, ServicesDep
from provider.api.docs import answers
from provider.protocol.answers.shapes import FreeList
from provider.protocol.answers.types import TypeListOut, type_list
from provider.protocol.discovery import provider_document

router = APIRouter(prefix="/v1/memories", tags=["providers"])


@router.get("/types", **answers(TypeListOut))
async def list_types(_: CallerDep) -> TypeListOut:
    """The core types, and the types this provider adds with their schemas and operations."""
    return type_list()


@router.get("/providers", **answers(FreeList))
async def list_providers(services: ServicesDep, _: CallerDep) -> FreeList:
    """The one connected provider, declaring only what its services do."""
    document = provider_document(services.settings.provider_id, services.capable())
    return FreeList(data=[document])
