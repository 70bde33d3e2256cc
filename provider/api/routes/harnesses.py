"""A harness's memories: `/v1/harnesses/{id}/memories`; a bare harness is not served here."""

from __future__ import annotations

from fastapi import APIRouter, Depends

from provider.api.deps import CallerDep, ServicesDep, get_caller
from provider.api.docs import answers, refusals
from provider.api.idempotency import idempotent
from provider.errors import HarnessNotFoundError
from provider.protocol.answers.tree import HarnessMemoriesOut
from provider.protocol.memories import HarnessMemorySettings
from provider.services.tree.harnesses import HarnessChanges

router = APIRouter(prefix="/v1/harnesses", tags=["harnesses"])


@router.get("/{harness_id}/memories", **answers(HarnessMemoriesOut))
async def get_harness_memories(
    harness_id: str, services: ServicesDep, caller: CallerDep
) -> HarnessMemoriesOut:
    """The memories the harness's agent holds grants on, highest first."""
    return HarnessMemoriesOut.from_domain(await services.harnesses.memories(caller, harness_id))


@router.put("/{harness_id}/memories", dependencies=[idempotent()], **answers(HarnessMemoriesOut))
async def put_harness_memories(
    harness_id: str, body: HarnessMemorySettings, services: ServicesDep, caller: CallerDep
) -> HarnessMemoriesOut:
    """Sets the default memory and the observe flag."""
    changes = HarnessChanges(
        given=frozenset(body.model_fields_set),
        default_memory_id=body.default_memory_id,
        observe=body.observe,
    )
    return HarnessMemoriesOut.from_domain(await services.harnesses.update(caller, harness_id, changes))


@router.get("/{harness_id}", dependencies=[Depends(get_caller)], **refusals(401, 404))
async def get_harness(harness_id: str) -> None:
    """Always 404: this server manages no harnesses (discovery says `harness_management: false`)."""
    raise HarnessNotFoundError(
        "No harness with that id is served here; this server keeps only harnesses' memories.",
        param="harness_id",
    )
