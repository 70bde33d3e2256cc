"""Queries: named (`/v1/memories/{id}/queries[/{name}]`) and free (`POST /v1/memories/{id}/query`)."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Body

from provider.api.deps import CallerDep, ServicesDep
from provider.models import RecallAnswer
from provider.protocol.queries import named_query_json, rows_json
from provider.protocol.recall import recall_json
from provider.services.named_queries import NamedQuery
from provider.services.queries import QueryRows

router = APIRouter(prefix="/v1/memories/{memory_id}", tags=["queries"])


def _answer(answer: RecallAnswer | QueryRows) -> dict[str, Any]:
    if isinstance(answer, QueryRows):
        return rows_json(answer.columns, answer.rows, answer.degraded)
    return recall_json(answer)


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


@router.post("/query")
async def free_query(
    memory_id: str,
    body: Annotated[
        dict[str, Any],
        Body(
            description="`MemoryFreeQuery`: `statement` (read-only Cypher over the sandbox schema in "
            "docs/QUERIES.md), `params`, `language` (cypher), optional `depth`."
        ),
    ],
    services: ServicesDep,
    caller: CallerDep,
) -> dict[str, Any]:
    """Runs the caller's Cypher in a sandbox holding only what the caller may read below this memory."""
    return _answer(await services.queries.free(caller, memory_id, body))


@router.get("/queries")
async def list_queries(memory_id: str, services: ServicesDep, caller: CallerDep) -> dict[str, Any]:
    """`MemoryQueryList`: the named queries defined on this memory."""
    queries = await services.queries.list_named(caller, memory_id)
    return {"object": "list", "data": [_query(q) for q in queries]}


@router.put("/queries/{name}")
async def define_query(
    memory_id: str,
    name: str,
    body: Annotated[
        dict[str, Any],
        Body(
            description="`MemoryQuery`: `body` (read-only Cypher), `description`, `params` (a JSON Schema)."
        ),
    ],
    services: ServicesDep,
    caller: CallerDep,
) -> dict[str, Any]:
    """Defines or replaces a named query; needs write."""
    return _query(await services.queries.define_named(caller, memory_id, name, body))


@router.post("/queries/{name}")
async def run_query(
    memory_id: str,
    name: str,
    services: ServicesDep,
    caller: CallerDep,
    body: Annotated[
        dict[str, Any] | None, Body(description="`MemoryQueryRun`: `params`, checked against the schema.")
    ] = None,
) -> dict[str, Any]:
    """Runs a named query within what the caller may read."""
    return _answer(await services.queries.run_named(caller, memory_id, name, body or {}))
