"""Queries: named (`/v1/memories/{id}/queries[/{name}]`) and free (`POST /v1/memories/{id}/query`)."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter

from provider.api.deps import CallerDep, ServicesDep
from provider.api.docs import answers
from provider.models import RecallAnswer
from provider.protocol.queries import (
    MemoryFreeQuery,
    MemoryQuery,
    MemoryQueryRun,
    QueryAnswerOut,
    QueryListOut,
    QueryOut,
    named_query_json,
    records_json,
    rows_json,
)
from provider.services.named_queries import NamedQuery, QueryDefinition
from provider.services.queries import FreeQuery, QueryRows

router = APIRouter(prefix="/v1/memories/{memory_id}", tags=["queries"])


def _answer(answer: RecallAnswer | QueryRows) -> dict[str, Any]:
    if isinstance(answer, QueryRows):
        return rows_json(answer.columns, answer.rows, answer.written_by, answer.degraded)
    return records_json(answer)


def _query(query: NamedQuery) -> dict[str, Any]:
    return named_query_json(
        memory_id=query.memory_id,
        name=query.name,
        description=query.description,
        params=query.params,
        requires=query.requires,
        language=query.language,
        body=query.body,
        updated_at=query.updated_at,
    )


ANSWER = "Rows, or records in recall's shape: untrusted data, with the writers of the records."


@router.post("/query", **answers(QueryAnswerOut, ANSWER))
async def free_query(
    memory_id: str, body: MemoryFreeQuery, services: ServicesDep, caller: CallerDep
) -> dict[str, Any]:
    """Runs the caller's Cypher in a sandbox holding only what the caller may read below this memory."""
    asked = FreeQuery(body.statement, body.params, body.depth, body.language, body.write)
    return _answer(await services.queries.free(caller, memory_id, asked))


@router.get("/queries", **answers(QueryListOut))
async def list_queries(memory_id: str, services: ServicesDep, caller: CallerDep) -> dict[str, Any]:
    """`MemoryQueryList`: the named queries defined on this memory."""
    queries = await services.queries.list_named(caller, memory_id)
    return {"object": "list", "data": [_query(q) for q in queries]}


@router.put("/queries/{name}", **answers(QueryOut))
async def define_query(
    memory_id: str, name: str, body: MemoryQuery, services: ServicesDep, caller: CallerDep
) -> dict[str, Any]:
    """Defines or replaces a named query; needs write."""
    asked = QueryDefinition(
        body=body.body,
        description=body.description,
        params=body.params,
        requires=body.requires,
        language=body.language,
        name=body.name,
    )
    return _query(await services.queries.define_named(caller, memory_id, name, asked))


@router.post("/queries/{name}", **answers(QueryAnswerOut, ANSWER))
async def run_query(
    memory_id: str,
    name: str,
    services: ServicesDep,
    caller: CallerDep,
    body: MemoryQueryRun | None = None,
) -> dict[str, Any]:
    """Runs a named query within what the caller may read; params are checked against its schema."""
    params = body.params if body is not None else {}
    return _answer(await services.queries.run_named(caller, memory_id, name, params))
