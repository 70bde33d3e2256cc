"""What a route tells the OpenAPI document about its answers, without letting FastAPI reshape them."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel

from provider.protocol.responses import ERRORS, documented


def refusals(*statuses: int) -> dict[str, Any]:
    """Route keywords for a route that only ever refuses (a lookup this server has nothing for)."""
    return {"response_model": None, "responses": {status: ERRORS[status] for status in statuses}}


def answers(model: type[BaseModel], description: str = "The answer.") -> dict[str, Any]:
    """Route keywords: no response model (answers are built exact), the schema documented instead."""
    return {"response_model": None, "responses": documented(model, description)}
