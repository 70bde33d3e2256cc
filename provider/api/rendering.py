"""Answers that can be large are encoded off the event loop.

FastAPI encodes a returned dict on the loop (a recursive walk, then `json.dumps`): for a query's
answer of several megabytes that holds every other caller for a noticeable time. These routes hand
back bytes encoded in a worker thread instead, with the same JSON settings Starlette uses.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

from fastapi import Response


async def json_off_loop(content: dict[str, Any]) -> Response:
    """`content` as a JSON response, encoded in a thread (a row's size is not known before)."""
    body = await asyncio.to_thread(_encoded, content)
    return Response(body, media_type="application/json")


def _encoded(content: dict[str, Any]) -> bytes:
    return json.dumps(content, ensure_ascii=False, allow_nan=False, separators=(",", ":")).encode()
