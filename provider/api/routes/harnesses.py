"""A harness's memories: `/v1/harnesses/{id}/memories`."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter
from pydantic import BaseModel, ConfigDict, Field

from provider.api.deps import CallerDep, ServicesDep

router = APIRouter(prefix="/v1/harnesses/{harness_id}/memories", tags=["harnesses"])


class HarnessMemorySettings(BaseModel):
    """Body of the PUT; fields left out keep their value."""

    model_config = ConfigDict(extra="ignore")
    default_memory_id: str | None = Field(None, description="A memory the agent may write.")
    observe: bool | None = Field(None, description="Record each finished turn in the default memory.")


@router.get("")
async def get_harness_memories(harness_id: str, services: ServicesDep, caller: CallerDep) -> dict[str, Any]:
    """The memories the harness's agent holds grants on, highest first."""
    return await services.harnesses.memories(caller, harness_id)


@router.put("")
async def put_harness_memories(
    harness_id: str, body: HarnessMemorySettings, services: ServicesDep, caller: CallerDep
) -> dict[str, Any]:
    """Sets the default memory and the observe flag."""
    changes = {k: getattr(body, k) for k in body.model_fields_set}
    return await services.harnesses.update(caller, harness_id, changes)
