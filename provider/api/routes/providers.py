"""The capability document: `GET /v1/memories/providers`."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter

from provider.api.deps import CallerDep, ServicesDep
from provider.api.docs import answers
from provider.protocol.discovery import provider_document
from provider.protocol.responses import FreeListOut
from provider.protocol.type_answers import TypeListOut
from provider.protocol.type_requests import input_schema

router = APIRouter(prefix="/v1/memories", tags=["providers"])


@router.get("/types", **answers(TypeListOut))
async def list_types(services: ServicesDep, _: CallerDep) -> dict[str, Any]:
    """The core types, and the types this provider adds with their schemas and operations."""
    return {"object": "list", "data": [with_inputs(kind) for kind in services.types.listing()]}


def with_inputs(kind: dict[str, Any]) -> dict[str, Any]:
    """A type's listing with each operation's input schema, which the wire models define."""
    if "operations" not in kind:
        return kind
    operations = [
        {"name": op["name"], "description": op["description"], "input": input_schema(op["name"]),
         "requires": op["requires"]}
        for op in kind["operations"]
    ]  # fmt: skip
    return kind | {"operations": operations}


@router.get("/providers", **answers(FreeListOut))
async def list_providers(services: ServicesDep, _: CallerDep) -> dict[str, Any]:
    """The one connected provider, declaring only what its services do."""
    document = provider_document(services.settings.provider_id, services.capable())
    return {"object": "list", "data": [document]}
