"""One truth per answer: every JSON answer of the chapter's routes is a pydantic model, declared.

A static check over the routers: each route that answers JSON declares the model that builds its
answer as `response_model` (so the OpenAPI document describes the bytes sent), its endpoint is
annotated to return that model (or a Response encoded from it), and `protocol/` holds no hand-built
`*_json` answer any more.
"""

from __future__ import annotations

import ast
import inspect
from pathlib import Path

from fastapi import Response
from fastapi.routing import APIRoute
from pydantic import BaseModel

from provider.api.routes import ANSWERING

PROTOCOL = Path(__file__).resolve().parents[2] / "provider" / "protocol"
# Routes that never answer JSON: a file part's bytes, an export's tar, and lookups that only ever refuse.
NOT_JSON = {"content_part", "get_harness", "export"}


def chapter_routes() -> list[APIRoute]:
    return [route for module in ANSWERING for route in module.router.routes if isinstance(route, APIRoute)]


def test_every_json_answer_declares_its_model() -> None:
    untyped = [
        route.name
        for route in chapter_routes()
        if route.name not in NOT_JSON
        and not (inspect.isclass(route.response_model) and issubclass(route.response_model, BaseModel))
    ]
    assert untyped == []


def test_every_endpoint_returns_its_model_or_bytes_encoded_from_it() -> None:
    loose = []
    for route in chapter_routes():
        if route.name in NOT_JSON:
            continue
        returned = inspect.signature(route.endpoint, eval_str=True).return_annotation
        if returned is not route.response_model and not (
            inspect.isclass(returned) and issubclass(returned, Response)
        ):
            loose.append((route.name, returned))
    assert loose == []


def test_protocol_builds_no_answer_by_hand() -> None:
    builders = [
        (path.name, node.name)
        for path in sorted(PROTOCOL.rglob("*.py"))
        for node in ast.walk(ast.parse(path.read_text()))
        if isinstance(node, ast.FunctionDef) and node.name.endswith("_json") and node.name != "check_json"
    ]
    assert builders == [], "build answers as `*Out.from_domain`, the route's response_model"
