"""Shared by the recall and graph tests: schema checks, a memory tracker, records and a recall call."""

from __future__ import annotations

import uuid
from typing import Any

from fastapi.testclient import TestClient

from tests.api import tree_support
from tests.conftest import Member
from tests.support import Reply as Reply
from tests.support import ok as ok
from tests.support import validate as validate


def assert_error(response: Reply, status: int, code: str | None = None) -> dict[str, Any]:
    """A UHP error envelope with this status (never a 500) and, when given, this code."""
    assert response.status_code == status, response.text
    body = response.json()
    validate("ErrorEnvelope", body)
    error: dict[str, Any] = body["error"]
    if code is not None:
        assert error["code"] == code, error
    return error


def word(prefix: str) -> str:
    """A word no other test writes, so a full-text search finds only this test's records."""
    return f"{prefix}{uuid.uuid4().hex[:10]}"


class Memories(tree_support.Memories):
    """The tree's memory helper, plus the records a recall test writes, forgets and revises."""

    def remember(self, who: Member, memory_id: str, content: str, **fields: Any) -> dict[str, Any]:
        """Writes a record (a fact unless `type` says otherwise), validated against `MemoryRecord`."""
        body = {"type": "fact", "content": content, **fields}
        record = ok(self.client.post(f"/v1/memories/{memory_id}/records", json=body, headers=who.headers))
        validate("MemoryRecord", record)
        return record

    def forget(self, who: Member, record: dict[str, Any]) -> None:
        """Forgets a record."""
        path = f"/v1/memories/{record['memory_id']}/records/{record['id']}"
        assert ok(self.client.delete(path, headers=who.headers))["status"] == "forgotten"

    def revise(self, who: Member, record: dict[str, Any], **fields: Any) -> dict[str, Any]:
        """Appends a version."""
        path = f"/v1/memories/{record['memory_id']}/records/{record['id']}"
        return ok(self.client.patch(path, json=fields, headers=who.headers))


def recall_reply(client: TestClient, who: Member, memory_id: str, body: Any) -> Reply:
    """POST .../recall, whatever the answer."""
    return client.post(f"/v1/memories/{memory_id}/recall", json=body, headers=who.headers)


def recall(client: TestClient, who: Member, memory_id: str, **body: Any) -> dict[str, Any]:
    """A recall that must answer 200 with a valid `MemoryRecall`."""
    answer = ok(recall_reply(client, who, memory_id, body))
    validate("MemoryRecall", answer)
    return answer


def found(answer: dict[str, Any]) -> list[str]:
    """The record ids of a recall answer, in ranking order."""
    return [result["record"]["id"] for result in answer["results"]]


def result_for(answer: dict[str, Any], record_id: str) -> dict[str, Any]:
    """The result holding this record."""
    matches: list[dict[str, Any]] = [r for r in answer["results"] if r["record"]["id"] == record_id]
    assert len(matches) == 1, (record_id, found(answer))
    return matches[0]
