"""A harness's memories: `/v1/harnesses/{id}/memories`; a bare harness is not served here."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Depends
from pydantic import BaseModel, ConfigDict, Field

from provider.api.deps import CallerDep, ServicesDep, get_caller
from provider.errors import HarnessNotFoundError

router = APIRouter(prefix="/v1/harnesses", tags=["harnesses"])


class HarnessMemorySettings(BaseModel):
    """Body of the PUT; fields left out keep their value."""

    model_config = ConfigDict(extra="ignore")
    default_memory_id: str | None = Field(None, description="A memory the agent may write.")
    observe: bool | None = Field(None, description="Record each finished turn in the default memory.")


@router.get("/{harness_id}/memories")
async def get_harness_memories(harness_id: str, services: ServicesDep, caller: CallerDep) -> dict[str, Any]:
    """The memories the harness's agent holds grants on, highest first."""
    return await services.harnesses.memories(caller, harness_id)


@router.put("/{harness_id}/memories")
async def put_harness_memories(
    harness_id: str, body: HarnessMemorySettings, services: ServicesDep, caller: CallerDep
) -> dict[str, Any]:
    """Sets the default memory and the observe flag."""
    changes = {k: getattr(body, k) for k in body.model_fields_set}
    return await services.harnesses.update(caller, harness_id, changes)


@router.get("/{harness_id}", dependencies=[Depends(get_caller)])
async def get_harness(harness_id: str) -> dict[str, Any]:
    """Always 404: this server manages no harnesses (discovery says `harness_management: false`)."""
    raise HarnessNotFoundError(
        "No harness with that id is served here; this server keeps only harnesses' memories.",
        param="harness_id",
    )
