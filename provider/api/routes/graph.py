"""The graph read: `POST /v1/memories/{id}/graph`."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter

from provider.api.deps import CallerDep, ServicesDep
from provider.api.docs import answers
from provider.protocol.recall_requests import GraphRequest
from provider.protocol.records import record_json
from provider.protocol.responses import GraphOut

router = APIRouter(prefix="/v1/memories/{memory_id}", tags=["graph"])


@router.post("/graph", **answers(GraphOut))
async def graph(
    memory_id: str,
    body: GraphRequest,
    services: ServicesDep,
    caller: CallerDep,
) -> dict[str, Any]:
    """Records as nodes, references as edges, around one record or for the whole readable subtree."""
    answer = await services.graph.read(caller, memory_id, body.ask())
    return {
        "object": "memory.graph",
        "nodes": [{"record": record_json(read), "memory": memory} for read, memory in answer["nodes"]],
        "edges": answer["edges"],
        "truncated": answer["truncated"],
        "degraded": answer["degraded"],
    }
