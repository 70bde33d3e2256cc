"""Export and restore of a memory subtree: `GET .../export` streams a tar, `POST .../restore` takes one."""

from __future__ import annotations

import asyncio
import os
import tempfile
from pathlib import Path
from typing import Annotated

from fastapi import APIRouter, Query, Request
from fastapi.responses import StreamingResponse

from provider.api.deps import CallerDep, ServicesDep
from provider.api.docs import answers
from provider.errors import InvalidInputError
from provider.protocol.answers.archive import RestoredOut
from provider.protocol.answers.shapes import ERRORS

router = APIRouter(prefix="/v1/memories/{memory_id}", tags=["archive"])

TAR = "application/x-tar"
TAR_BODY = {
    "requestBody": {
        "required": True,
        "content": {TAR: {"schema": {"type": "string", "format": "binary", "description": "An export."}}},
    }
}


@router.get(
    "/export",
    response_model=None,
    responses={200: {"content": {TAR: {}}, "description": "The archive (docs/EXPORT.md)."}, **ERRORS},
)
async def export(memory_id: str, services: ServicesDep, caller: CallerDep) -> StreamingResponse:
    """Everything below the memory the caller may read, streamed as one tar (needs read)."""
    plan = await services.export.plan(caller, memory_id)
    headers = {"Content-Disposition": f'attachment; filename="{memory_id}.tar"'}
    return StreamingResponse(plan.stream(), media_type=TAR, headers=headers)


@router.post("/restore", openapi_extra=TAR_BODY, **answers(RestoredOut))
async def restore(
    memory_id: str,
    request: Request,
    services: ServicesDep,
    caller: CallerDep,
    grants: Annotated[
        bool, Query(description="Restore the archive's explicit grants (needs delete).")
    ] = False,
    embed: Annotated[
        bool,
        Query(
            description="Embed every version here, even when the archive is signed with this "
            "deployment's archive key (one that is not is embedded anyway)."
        ),
    ] = False,
) -> RestoredOut:
    """Writes an archive below the memory (needs create and write); safe to send again."""
    await services.tree.require(caller, memory_id, "create")
    handle, name = tempfile.mkstemp(prefix="uhp-restore-", suffix=".tar")
    path = Path(name)
    try:
        with os.fdopen(handle, "wb") as spool:
            async for piece in request.stream():
                await asyncio.to_thread(spool.write, piece)
        if path.stat().st_size == 0:
            raise InvalidInputError("The body is the archive to restore; it was empty.", param="archive")
        summary = await services.restore.restore(caller, memory_id, path, grants=grants, embed=embed)
        return RestoredOut.from_domain(summary)
    finally:
        path.unlink(missing_ok=True)
