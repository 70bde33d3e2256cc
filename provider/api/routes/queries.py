"""Queries: named (`/v1/memories/{id}/queries[/{name}]`) and free (`POST /v1/memories/{id}/query`)."""

from __future__ import annotations

from fastapi import APIRouter, Response

from provider.api.deps import CallerDep, ServicesDep
from provider.api.docs import answers, encoded_off_loop
from provider.models import QueryRows, RecallAnswer
from provider.protocol.answers.queries import QueryAnswerOut, QueryListOut, QueryOut, query_answer
from provider.protocol.queries import MemoryFreeQuery, MemoryQuery, MemoryQueryRun
from provider.services.queries.named import QueryDefinition

router = APIRouter(prefix="/v1/memories/{memory_id}", tags=["queries"])


async def _answer(answer: RecallAnswer | QueryRows) -> Response:
    """A row can hold a value up to the answer bound, so the answer is encoded off the loop."""
    return await encoded_off_loop(query_answer(answer))


ANSWER = "Rows, or records in recall's shape: untrusted data, with the writers of the records."


@router.post("/query", **answers(QueryAnswerOut, ANSWER))
async def free_query(
    memory_id: str, body: MemoryFreeQuery, services: ServicesDep, caller: CallerDep
) -> Response:
    """Runs the caller's Cypher in a sandbox holding only what the caller may read below this memory."""
    return await _answer(await services.queries.free(caller, memory_id, body.ask()))


@router.get("/queries", **answers(QueryListOut))
async def list_queries(memory_id: str, services: ServicesDep, caller: CallerDep) -> QueryListOut:
    """`MemoryQueryList`: the named queries defined on this memory."""
    queries = await services.queries.list_named(caller, memory_id)
    return QueryListOut(data=[QueryOut.from_domain(q) for q in queries])


@router.put("/queries/{name}", **answers(QueryOut))
async def define_query(
    memory_id: str, name: str, body: MemoryQuery, services: ServicesDep, caller: CallerDep
) -> QueryOut:
    """Defines or replaces a named query; needs write."""
    asked = QueryDefinition(
        body=body.body,
        description=body.description,
        params=body.params,
        requires=body.requires,
        language=body.language,
        name=body.name,
    )
    return QueryOut.from_domain(await services.queries.define_named(caller, memory_id, name, asked))


@router.post("/queries/{name}", **answers(QueryAnswerOut, ANSWER))
async def run_query(
    memory_id: str,
    name: str,
    services: ServicesDep,
    caller: CallerDep,
    body: MemoryQueryRun | None = None,
) -> Response:
    """Runs a named query within what the caller may read; params are checked against its schema."""
    params = body.params if body is not None else {}
    return await _answer(await services.queries.run_named(caller, memory_id, name, params))
