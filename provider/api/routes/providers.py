"""The capability document: `GET /v1/memories/providers`."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter

from provider.api.deps import CallerDep, ServicesDep
from provider.api.docs import answers
from provider.protocol.responses import FreeListOut
from provider.protocol.type_answers import TypeListOut
from provider.services.capabilities import provider_document

router = APIRouter(prefix="/v1/memories", tags=["providers"])


@router.get("/types", **answers(TypeListOut))
async def list_types(services: ServicesDep, _: CallerDep) -> dict[str, Any]:
    """The core types, and the types this provider adds with their schemas and operations."""
    return {"object": "list", "data": services.types.listing()}


@router.get("/providers", **answers(FreeListOut))
async def list_providers(services: ServicesDep, _: CallerDep) -> dict[str, Any]:
    """The one connected provider, declaring only what its services do."""
    document = provider_document(services.settings.provider_id, services.capable())
    return {"object": "list", "data": [document]}
