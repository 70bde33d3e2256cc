"""Queries: named (`/v1/memories/{id}/queries[/{name}]`) and free (`POST /v1/memories/{id}/query`)."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Response

from provider.api.deps import CallerDep, ServicesDep
from provider.api.docs import answers
from provider.api.rendering import json_off_loop
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
from provider.services.queries.named import NamedQuery, QueryDefinition
from provider.services.queries.service import FreeQuery, QueryRows

router = APIRouter(prefix="/v1/memories/{memory_id}", tags=["queries"])


def answer_content(answer: RecallAnswer | QueryRows) -> dict[str, Any]:
    """Rows, or records in recall's shape (REST and MCP alike)."""
    if isinstance(answer, QueryRows):
        return rows_json(answer.columns, answer.rows, answer.written_by, answer.degraded)
    return records_json(answer)


def free_query_of(body: MemoryFreeQuery) -> FreeQuery:
    return FreeQuery(body.statement, body.params, body.depth, body.language, body.write)


async def _answer(answer: RecallAnswer | QueryRows) -> Response:
    """The answer's JSON; a row can hold a value up to the answer bound, so it is encoded off the loop."""
    return await json_off_loop(answer_content(answer))


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
) -> Response:
    """Runs the caller's Cypher in a sandbox holding only what the caller may read below this memory."""
    return await _answer(await services.queries.free(caller, memory_id, free_query_of(body)))


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
) -> Response:
    """Runs a named query within what the caller may read; params are checked against its schema."""
    params = body.params if body is not None else {}
    return await _answer(await services.queries.run_named(caller, memory_id, name, params))
