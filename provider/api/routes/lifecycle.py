"""Observe, erase, prime and record operations: `/v1/memories/{id}/...`."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Depends, Header, Query, Request, Response

from provider import ids
from provider.api.deps import CallerDep, ServicesDep
from provider.api.docs import answers
from provider.api.idempotency import idempotent, pending_of, seed_of
from provider.protocol.answers.lifecycle import ErasureOut, JobOut, ObservedOut, OperationResultOut, PrimeOut
from provider.protocol.lifecycle_requests import EraseRequest
from provider.protocol.record_requests import ObserveRequest
from provider.protocol.type_requests import OperationBody
from provider.services.types.catalog import OPERATIONS

router = APIRouter(prefix="/v1/memories/{memory_id}", tags=["lifecycle"])
PRIME_BUDGET_MAX = 100_000  # tokens: far past any context window, and bounded


OBSERVE_ANSWERS = answers(
    ObservedOut,
    "The episodes kept (200), or the job that keeps them (202).",
    more={202: {"model": ObservedOut, "description": "Kept after the answer: read the job."}},
)


@router.post("/observe", dependencies=[idempotent("write")], **OBSERVE_ANSWERS)
async def observe(
    memory_id: str,
    body: ObserveRequest,
    services: ServicesDep,
    caller: CallerDep,
    request: Request,
    response: Response,
    prefer: Annotated[
        str | None, Header(description="`respond-async`: answer 202 with a job at once.")
    ] = None,
) -> ObservedOut:
    """Appends episodes: 200 with the records, or 202 with a job for a large batch or when asked."""
    seed = seed_of(request)
    episodes = [episode.draft([]) for episode in body.episodes]
    if "respond-async" in (prefer or "") or len(body.episodes) > services.settings.observe_sync_max:
        job_id = ids.derived(ids.JOB, seed, memory_id) if seed else ids.new_id(ids.JOB)
        started = await services.jobs.start(caller, memory_id, episodes, job_id=job_id)
        response.status_code = 202
        return ObservedOut.started(started)
    return ObservedOut.kept(await services.observe.observe(caller, memory_id, episodes, seed=seed))


@router.get("/jobs/{job_id}", **answers(JobOut))
async def job(memory_id: str, job_id: str, services: ServicesDep, caller: CallerDep) -> JobOut:
    """What an observe that answered 202 has written (needs read); another memory's job is not found."""
    state, reads = await services.jobs.read(caller, memory_id, job_id)
    return JobOut.from_domain(state, reads)


@router.post("/erase", dependencies=[idempotent("delete")], **answers(ErasureOut))
async def erase(memory_id: str, body: EraseRequest, services: ServicesDep, caller: CallerDep) -> ErasureOut:
    """Removes content for good (needs delete) and says what it could not reach."""
    return ErasureOut.from_domain(await services.erase.erase(caller, memory_id, body.record_ids))


@router.get("/prime", **answers(PrimeOut))
async def prime(
    memory_id: str,
    services: ServicesDep,
    caller: CallerDep,
    budget: Annotated[int, Query(ge=1, le=PRIME_BUDGET_MAX, description="Most tokens to return.")] = 2000,
) -> PrimeOut:
    """The memory's standing records, fenced as data, within the budget."""
    return PrimeOut.from_domain(await services.prime.prime(caller, memory_id, budget))


async def operation_key(request: Request, services: ServicesDep, caller: CallerDep) -> None:
    """A write operation honours Idempotency-Key; read operations ignore it, as reads do.

    The key is claimed after the operation's own access checks, so a caller without its privilege is
    refused alike (403 seen, 404 unseen) whether or not it sends a key.
    """
    operation = OPERATIONS.get(request.path_params["name"])
    if pending_of(request) is None or operation is None or operation.requires == "read":
        return
    path = request.path_params
    await services.types.reach(caller, path["memory_id"], path["record_id"], operation.name)
    await idempotent().dependency(request)


@router.post(
    "/records/{record_id}/operations/{name}",
    dependencies=[Depends(operation_key)],
    **answers(OperationResultOut),
)
async def operate(
    memory_id: str,
    record_id: str,
    name: str,
    services: ServicesDep,
    caller: CallerDep,
    body: OperationBody | None = None,
) -> OperationResultOut:
    """Runs an operation the record's type offers (GET /v1/memories/types), with the privilege it names."""
    ask = (body or OperationBody()).ask(name)
    return OperationResultOut.from_domain(await services.types.operate(caller, memory_id, record_id, ask))
