"""What a route tells FastAPI about its answers: the one model that shapes them, and every refusal."""

from __future__ import annotations

import asyncio
from typing import Any

from fastapi import Response
from pydantic import BaseModel

from provider.protocol.answers.shapes import ERRORS


def refusals(*statuses: int) -> dict[str, Any]:
    """Route keywords for a route that only ever refuses (a lookup this server has nothing for)."""
    return {"response_model": None, "responses": {status: ERRORS[status] for status in statuses}}


def answers(
    model: Any, description: str = "The answer.", more: dict[int | str, dict[str, Any]] | None = None
) -> dict[str, Any]:
    """Route keywords: the answer's model as `response_model`, the error envelope for each refusal.

    `more` adds answers under other statuses (an observe's 202, an upload's 429).
    """
    return {"response_model": model, "response_description": description, "responses": ERRORS | (more or {})}


async def encoded_off_loop(answer: BaseModel) -> Response:
    """An answer whose size the caller shapes (a query's rows), encoded in a worker thread.

    The model is the route's `response_model` still, so the document describes these bytes; only the
    encoding moves off the event loop, where several megabytes would hold every other caller.
    """
    body = await asyncio.to_thread(answer.model_dump_json)
    return Response(body, media_type="application/json")
