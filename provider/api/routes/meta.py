"""Discovery and health, which need no credential, and the core lookups this service answers 404."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Depends, Request
from fastapi.responses import JSONResponse

from provider.api.deps import ServicesDep, get_caller
from provider.api.docs import refusals
from provider.errors import ResponseNotFoundError
from provider.protocol.discovery import discovery

router = APIRouter()

MEMORY_SURFACE = ("/v1/memories", "/v1/memories/{memory_id}/records", "/v1/memories/{memory_id}/recall")


def memories_served(request: Request) -> bool:
    """True only when the tree, the records and recall routes are all mounted."""
    paths = set(request.app.openapi().get("paths", {}))
    return all(path in paths for path in MEMORY_SURFACE)


@router.get("/v1/uhp", summary="Discovery document")
async def get_discovery(request: Request) -> dict[str, Any]:
    """What this server speaks and can do; no credential needed."""
    return discovery(memories=memories_served(request))


@router.get("/healthz", summary="Liveness")
async def healthz() -> dict[str, str]:
    """The process answers."""
    return {"status": "ok"}


@router.get("/readyz", summary="Readiness", response_model=None)
async def readyz(services: ServicesDep) -> JSONResponse:
    """Each part the service needs, and for each one not ready, why (for operators and load balancers)."""
    reasons: dict[str, str] = {}
    if not await services.store.ping():
        reasons["neo4j"] = "Neo4j does not answer (see NEO4J_URI and the UHP_NEO4J_* timeouts)"
    if not services.schema_applied:
        reasons["schema"] = "the schema is not applied yet (it is, at start-up, once Neo4j answers)"
    if services.embedder.dimension <= 0:
        reasons["model"] = "the embedding model is not loaded"
    sandbox_trouble = await services.queries.trouble()
    if sandbox_trouble is not None:
        reasons["queries"] = sandbox_trouble
    checks = {name: name not in reasons for name in ("neo4j", "schema", "model", "queries")}
    ready = not reasons
    return JSONResponse(
        {"status": "ready" if ready else "not_ready", "checks": checks, "not_ready": reasons},
        status_code=200 if ready else 503,
    )


@router.get(
    "/v1/responses/{response_id}",
    summary="A response",
    dependencies=[Depends(get_caller)],
    **refusals(401, 404),
)
async def get_response(response_id: str) -> dict[str, Any]:
    """Always 404 (the core surface's lookup; discovery declares no task capability)."""
    message = "No response with that id exists; this server runs no tasks."
    raise ResponseNotFoundError(message, param="response_id")
