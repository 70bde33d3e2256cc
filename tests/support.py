"""Helpers every HTTP test shares: the published UHP schema, the error envelope check, a reply type."""

from __future__ import annotations

import base64
import json
from collections.abc import Mapping
from functools import cache
from pathlib import Path
from typing import Any, Protocol

import jsonschema
import pytest

from provider import PROTOCOL_VERSION

REPO_ROOT = Path(__file__).resolve().parents[1]
SHARED = REPO_ROOT.parent / "shared"
SCHEMA_FILE = SHARED / "uhp" / f"uhp-{PROTOCOL_VERSION}.schema.json"
ERROR_TYPES = {
    "invalid_request_error",
    "authentication_error",
    "permission_error",
    "rate_limit_error",
    "harness_error",
    "server_error",
}


class Reply(Protocol):
    """What the checks read of a response, whichever httpx the test client is built on."""

    @property
    def status_code(self) -> int: ...

    @property
    def text(self) -> str: ...

    @property
    def content(self) -> bytes: ...

    @property
    def headers(self) -> Mapping[str, str]: ...

    def json(self, **kwargs: Any) -> Any: ...


@cache
def _schema_document() -> dict[str, Any]:
    if not SCHEMA_FILE.is_file():
        pytest.fail(
            f"the UHP schema is missing at {SCHEMA_FILE}; the shared folder must sit beside the "
            f"repository as ../shared (it holds uhp/uhp-{PROTOCOL_VERSION}.schema.json)"
        )
    document: dict[str, Any] = json.loads(SCHEMA_FILE.read_text(encoding="utf-8"))
    return document


def validate(definition: str, instance: Any) -> None:
    """Validates against one of the schema file's $defs, resolving its $refs inside the same file."""
    document = _schema_document()
    assert definition in document["$defs"], f"{definition} is not defined in {SCHEMA_FILE.name}"
    jsonschema.Draft202012Validator({**document, "$ref": f"#/$defs/{definition}"}).validate(instance)


def assert_error(response: Reply, status: int, code: str | None = None) -> dict[str, Any]:
    """The envelope is whole, its message is clean and carries the request id; never a 500."""
    assert response.status_code == status, response.text
    body = response.json()
    validate("ErrorEnvelope", body)
    error: dict[str, Any] = body["error"]
    assert error["type"] in ERROR_TYPES
    assert error["code"]
    message = error["message"]
    assert message and "Traceback" not in message and 'File "/' not in message and "\n" not in message
    assert error["request_id"] and error["request_id"] == response.headers["X-Request-Id"]
    if code is not None:
        assert error["code"] == code, error
    return error


def ok(response: Reply) -> dict[str, Any]:
    """The body of a 200, failing with the body otherwise."""
    assert response.status_code == 200, response.text
    body: dict[str, Any] = response.json()
    return body


def bookmark_ahead_of(bookmark: str) -> str:
    """A bookmark of the same database far ahead of its history, which no read may pass.

    Neo4j 5's encoding: `FB:`, then base64 of a database id and the transaction id as a PackStream
    integer; the integer is swapped for a large one.
    """
    raw = base64.b64decode(bookmark.removeprefix("FB:"))
    marker = raw[19]
    width = {0xC8: 2, 0xC9: 3, 0xCA: 5, 0xCB: 9}.get(marker, 1)
    forged = raw[:19] + bytes([0xCA, 0x7F, 0xFF, 0xFF, 0xFF]) + raw[19 + width :]
    return "FB:" + base64.b64encode(forged).decode()
