"""Observe, erase, prime and record operations: `/v1/memories/{id}/...`."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Depends, Header, Query, Request
from fastapi.responses import JSONResponse

from provider import ids
from provider.api.deps import CallerDep, ServicesDep
from provider.api.docs import answers
from provider.api.idempotency import idempotent, pending_of, seed_of
from provider.protocol.lifecycle_requests import EraseRequest
from provider.protocol.record_requests import ObserveRequest
from provider.protocol.records import record_json
from provider.protocol.responses import ErasureOut, JobOut, ObservedOut, PrimeOut
from provider.protocol.type_answers import OperationResultOut, outcome_json
from provider.protocol.type_requests import OperationBody
from provider.services.types.catalog import OPERATIONS

router = APIRouter(prefix="/v1/memories/{memory_id}", tags=["lifecycle"])
PRIME_BUDGET_MAX = 100_000  # tokens: far past any context window, and bounded


OBSERVE_ANSWERS = answers(ObservedOut, "The episodes kept (200), or the job that keeps them (202).")
OBSERVE_ANSWERS["responses"][202] = {
    "model": ObservedOut,
    "description": "Kept after the answer: read the job.",
}


@router.post("/observe", dependencies=[idempotent("write")], **OBSERVE_ANSWERS)
async def observe(
    memory_id: str,
    body: ObserveRequest,
    services: ServicesDep,
    caller: CallerDep,
    request: Request,
    prefer: Annotated[
        str | None, Header(description="`respond-async`: answer 202 with a job at once.")
    ] = None,
) -> Any:
    """Appends episodes: 200 with the records, or 202 with a job for a large batch or when asked."""
    seed = seed_of(request)
    episodes = [episode.draft([]) for episode in body.episodes]
    if "respond-async" in (prefer or "") or len(body.episodes) > services.settings.observe_sync_max:
        job_id = ids.derived(ids.JOB, seed, memory_id) if seed else ids.new_id(ids.JOB)
        started = await services.jobs.start(caller, memory_id, episodes, job_id=job_id)
        job = {"object": "memory.job", "id": started.id, "status": started.status}
        return JSONResponse({"object": "list", "data": [], "next": None, "job": job}, status_code=202)
    kept = await services.observe.observe(caller, memory_id, episodes, seed=seed)
    return {"object": "list", "data": [record_json(r) for r in kept], "next": None}


@router.get("/jobs/{job_id}", **answers(JobOut))
async def job(memory_id: str, job_id: str, services: ServicesDep, caller: CallerDep) -> dict[str, Any]:
    """What an observe that answered 202 has written (needs read); another memory's job is not found."""
    row, reads = await services.jobs.read(caller, memory_id, job_id)
    body: dict[str, Any] = {
        "object": "memory.job",
        "id": row["id"],
        "status": row["status"],
        "data": [record_json(r) for r in reads],
    }
    if row["error"]:
        body["error"] = row["error"]
    return body


@router.post("/erase", dependencies=[idempotent("delete")], **answers(ErasureOut))
async def erase(
    memory_id: str, body: EraseRequest, services: ServicesDep, caller: CallerDep
) -> dict[str, Any]:
    """Removes content for good (needs delete) and says what it could not reach."""
    erasure = await services.erase.erase(caller, memory_id, body.record_ids)
    return {"object": "memory.erasure", "erased": erasure.erased, "unreachable": erasure.unreachable}


@router.get("/prime", **answers(PrimeOut))
async def prime(
    memory_id: str,
    services: ServicesDep,
    caller: CallerDep,
    budget: Annotated[int, Query(ge=1, le=PRIME_BUDGET_MAX, description="Most tokens to return.")] = 2000,
) -> dict[str, Any]:
    """The memory's standing records, fenced as data, within the budget."""
    primer = await services.prime.prime(caller, memory_id, budget)
    return {
        "object": "memory.prime",
        "memory_id": primer.memory_id,
        "trust": "untrusted",
        "text": primer.text,
        "records": primer.records,
        "omitted": primer.omitted,
        "tokens": {"used": primer.tokens_used, "budget": primer.budget, "tokenizer": primer.tokenizer},
    }


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
) -> dict[str, Any]:
    """Runs an operation the record's type offers (GET /v1/memories/types), with the privilege it names."""
    ask = (body or OperationBody()).ask(name)
    return outcome_json(await services.types.operate(caller, memory_id, record_id, ask))
