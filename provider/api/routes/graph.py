"""The graph read: `POST /v1/memories/{id}/graph`."""

from __future__ import annotations

from fastapi import APIRouter

from provider.api.deps import CallerDep, ServicesDep
from provider.api.docs import answers
from provider.protocol.answers.recall import GraphOut
from provider.protocol.recall_requests import GraphRequest

router = APIRouter(prefix="/v1/memories/{memory_id}", tags=["graph"])


@router.post("/graph", **answers(GraphOut))
async def graph(
    memory_id: str,
    body: GraphRequest,
    services: ServicesDep,
    caller: CallerDep,
) -> GraphOut:
    """Records as nodes, references as edges, around one record or for the whole readable subtree."""
    return GraphOut.from_domain(await services.graph.read(caller, memory_id, body.ask()))
