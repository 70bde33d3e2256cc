"""Shared by the record, file and snapshot tests: response checks, the schema, and a tracked lab."""

from __future__ import annotations

import contextlib
import re
import uuid
from collections.abc import Iterator
from datetime import datetime, timedelta
from typing import Any

from fastapi.testclient import TestClient

from provider.client import MemoryClient, NotFoundError
from provider.models import Caller
from provider.protocol.answers.shapes import Privilege
from tests.conftest import Member
from tests.support import Reply as Reply
from tests.support import ok as ok
from tests.support import validate as validate

RECORD_ID = re.compile(r"^hrec_[0-9a-f]{32}$")
PNG = b"\x89PNG\r\n\x1a\n" + bytes(16)  # the suite's 24-byte "dot.png": signature and zeros


def assert_error(response: Reply, status: int, code: str) -> dict[str, Any]:
    """A whole UHP error envelope with this status and code."""
    assert response.status_code == status, response.text
    body = response.json()
    validate("ErrorEnvelope", body)
    error: dict[str, Any] = body["error"]
    assert error["code"] == code, error
    return error


def shifted(instant: str, milliseconds: int) -> str:
    """An RFC 3339 instant moved by some milliseconds, written the way the server writes them."""
    moment = datetime.fromisoformat(instant.replace("Z", "+00:00")) + timedelta(milliseconds=milliseconds)
    return moment.isoformat(timespec="milliseconds").replace("+00:00", "Z")


def tag() -> str:
    """A word no other test writes, so reads cannot be confused by leftovers."""
    return uuid.uuid4().hex[:10]


def texts(record: dict[str, Any]) -> list[str]:
    """The words of a record's text parts, in order."""
    return [p["text"] for p in record["content"] if p["type"] == "text"]


class Lab:
    """One test's memories and records over HTTP; memories deleted afterwards by their creators."""

    def __init__(self, client: TestClient):
        self.client = client
        self.made: list[tuple[str, Member]] = []

    def typed(self, who: Member) -> MemoryClient:
        """The typed client with the member's key, for setting up what a test reads over raw HTTP."""
        return MemoryClient(http=self.client, key=who.key)

    def memory(self, who: Member, **fields: Any) -> str:
        """A new memory's id."""
        made = self.typed(who).create_memory(tag(), **fields)
        self.made.append((made.id, who))
        return made.id

    def grant(self, who: Member, memory_id: str, to: Member, *privileges: Privilege) -> None:
        """Gives `to` these privileges on the memory."""
        self.typed(who).create_grant(memory_id, to.principal, list(privileges))

    def post(self, who: Member, memory_id: str, body: Any) -> Reply:
        """POST .../records as is."""
        return self.client.post(f"/v1/memories/{memory_id}/records", json=body, headers=who.headers)

    def remember(self, who: Member, memory_id: str, **body: Any) -> dict[str, Any]:
        """A record written (200 expected), checked against `MemoryRecord`."""
        record = ok(self.post(who, memory_id, {"content": f"note {tag()}", **body}))
        validate("MemoryRecord", record)
        return record

    def path(self, memory_id: str, record_id: str) -> str:
        """A record's address."""
        return f"/v1/memories/{memory_id}/records/{record_id}"

    def read(self, who: Member, memory_id: str, record_id: str, **params: str) -> Reply:
        """GET one record as is."""
        return self.client.get(self.path(memory_id, record_id), params=params, headers=who.headers)

    def get(self, who: Member, memory_id: str, record_id: str, **params: str) -> dict[str, Any]:
        """GET one record (200 expected), checked against `MemoryRecord`."""
        record = ok(self.read(who, memory_id, record_id, **params))
        validate("MemoryRecord", record)
        return record

    def patch(self, who: Member, memory_id: str, record_id: str, body: Any) -> Reply:
        """PATCH one record as is."""
        return self.client.patch(self.path(memory_id, record_id), json=body, headers=who.headers)

    def revise(self, who: Member, memory_id: str, record_id: str, **body: Any) -> dict[str, Any]:
        """A revision (200 expected), checked against `MemoryRecord`."""
        record = ok(self.patch(who, memory_id, record_id, body))
        validate("MemoryRecord", record)
        return record

    def delete(self, who: Member, memory_id: str, record_id: str) -> Reply:
        """DELETE (forget) one record as is."""
        return self.client.delete(self.path(memory_id, record_id), headers=who.headers)

    def history(self, who: Member, memory_id: str, record_id: str) -> list[dict[str, Any]]:
        """Every version (200 expected), each checked against `MemoryRecord`."""
        body = ok(self.client.get(f"{self.path(memory_id, record_id)}/history", headers=who.headers))
        validate("MemoryRecordList", body)
        data: list[dict[str, Any]] = body["data"]
        return data

    def page(self, who: Member, memory_id: str, **params: str | int) -> dict[str, Any]:
        """One page of the record list (200 expected), checked against `MemoryRecordList`."""
        body = ok(self.client.get(f"/v1/memories/{memory_id}/records", params=params, headers=who.headers))
        validate("MemoryRecordList", body)
        assert body["object"] == "list" and "next" in body
        return body

    def listed(self, who: Member, memory_id: str, **params: str | int) -> list[str]:
        """The ids on the first page (up to 100)."""
        return [r["id"] for r in self.page(who, memory_id, limit=100, **params)["data"]]

    def cleanup(self) -> None:
        """Deletes what this test made; a memory already gone is fine."""
        for memory_id, who in reversed(self.made):
            with contextlib.suppress(NotFoundError):
                self.typed(who).delete_memory(memory_id)


def caller_of(who: Member) -> Caller:
    """The service-level caller a member's key stands for (for services called without HTTP)."""
    return Caller(member_id=who.id, member_type=who.type)  # type: ignore[arg-type]


@contextlib.contextmanager
def lab_on(client: TestClient) -> Iterator[Lab]:
    """A Lab on this app, cleaned up however the test ends."""
    tracker = Lab(client)
    try:
        yield tracker
    finally:
        tracker.cleanup()
