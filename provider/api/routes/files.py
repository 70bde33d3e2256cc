"""Files: `POST /v1/files` (multipart)."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, File, Form, UploadFile

from provider.api.deps import CallerDep, ServicesDep

router = APIRouter(prefix="/v1/files", tags=["files"])


@router.post("")
async def upload(
    services: ServicesDep,
    caller: CallerDep,
    file: Annotated[UploadFile, File(description="The bytes, with their file name and media type.")],
    purpose: Annotated[str, Form(description="What the file is for.")] = "user_data",
) -> dict[str, Any]:
    """Keeps the bytes; a record then names the file by id."""
    data = await file.read()
    media_type = (file.content_type or "application/octet-stream").split(";")[0].strip().lower()
    return await services.files.upload(
        caller, name=file.filename or "file", media_type=media_type, data=data, purpose=purpose
    )
