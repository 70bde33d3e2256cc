"""Files: `POST /v1/files` (multipart), streamed to the blob directory as it arrives."""

from __future__ import annotations

from fastapi import APIRouter, Request

from provider.api.deps import CallerDep, ServicesDep
from provider.api.docs import answers
from provider.api.idempotency import idempotent
from provider.api.uploads import read_upload
from provider.protocol.answers.records import UploadedFileOut
from provider.protocol.answers.shapes import ErrorEnvelopeOut

router = APIRouter(prefix="/v1/files", tags=["files"])

# The body is read by hand (uploads.py), so FastAPI cannot infer it; the OpenAPI says it here.
MULTIPART_BODY = {
    "requestBody": {
        "required": True,
        "content": {
            "multipart/form-data": {
                "schema": {
                    "type": "object",
                    "required": ["file"],
                    "properties": {
                        "file": {"type": "string", "format": "binary", "description": "The bytes."},
                        "purpose": {"type": "string", "default": "user_data"},
                    },
                }
            }
        },
    }
}


# A principal's uploads past UHP_FILE_QUOTA_BYTES or UHP_FILE_QUOTA_FILES: 429 quota_exhausted.
UPLOAD_ANSWERS = answers(
    UploadedFileOut,
    more={429: {"model": ErrorEnvelopeOut, "description": "The uploader's file quota is full."}},
)


@router.post("", openapi_extra=MULTIPART_BODY, dependencies=[idempotent()], **UPLOAD_ANSWERS)
async def upload(request: Request, services: ServicesDep, caller: CallerDep) -> UploadedFileOut:
    """Keeps the bytes within the uploader's quota; a record then names the file by id."""
    staged = services.files.stage()
    try:
        form = await read_upload(request, staged)
        stored = await services.files.upload(
            caller, name=form.filename, media_type=form.media_type, staged=staged, purpose=form.purpose
        )
        return UploadedFileOut.from_domain(stored)
    finally:
        staged.discard()
