"""Queries: named (`/v1/memories/{id}/queries[/{name}]`) and free (`POST /v1/memories/{id}/query`)."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Header, Response
from fastapi.responses import StreamingResponse
from starlette.concurrency import iterate_in_threadpool

from provider.api.deps import CallerDep, ServicesDep
from provider.api.docs import answers, encoded_off_loop
from provider.models import QueryRows, RecallAnswer
from provider.protocol.answers import tabular
from provider.protocol.answers.queries import QueryAnswerOut, QueryListOut, QueryOut, query_answer
from provider.protocol.queries import MemoryFreeQuery, MemoryQuery, MemoryQueryRun
from provider.services.queries.named import QueryDefinition

router = APIRouter(prefix="/v1/memories/{memory_id}", tags=["queries"])


async def _answer(answer: RecallAnswer | QueryRows, accept: str | None = None) -> Response:
    """A row can hold a value up to the answer bound, so the answer is encoded off the loop.

    Asked with `Accept: text/csv` or `application/x-ndjson`, the rows stream as lines instead, with
    what the JSON answer says beside them in headers (docs/QUERIES.md "Downloads").
    """
    out = query_answer(answer)
    kind = tabular.chosen(accept)
    if kind is None:
        return await encoded_off_loop(out)
    columns, rows = tabular.table_of(out)
    lines = tabular.csv_lines(columns, rows) if kind == tabular.CSV else tabular.ndjson_lines(columns, rows)
    media = f"{kind}; charset=utf-8"
    return StreamingResponse(iterate_in_threadpool(lines), media_type=media, headers=tabular.headers_of(out))


ANSWER = "Rows, or records in recall's shape: untrusted data, with the writers of the records."


@router.post("/query", **answers(QueryAnswerOut, ANSWER))
async def free_query(
    memory_id: str,
    body: MemoryFreeQuery,
    services: ServicesDep,
    caller: CallerDep,
    accept: Annotated[str | None, Header()] = None,
) -> Response:
    """Runs the caller's Cypher in a sandbox holding only what the caller may read below this memory.

    `EXPLAIN <statement>` answers the statement's plan; `Accept: text/csv` or `application/x-ndjson`
    streams the rows as lines.
    """
    return await _answer(await services.queries.free(caller, memory_id, body.ask()), accept)


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
    accept: Annotated[str | None, Header()] = None,
) -> Response:
    """Runs a named query within what the caller may read; params are checked against its schema."""
    params = body.params if body is not None else {}
    return await _answer(await services.queries.run_named(caller, memory_id, name, params), accept)
