"""Shared by the tree, grant and harness tests: schema checks, error checks, listings, tracked memories."""

from __future__ import annotations

import contextlib
import re
from typing import Any

from fastapi.testclient import TestClient

from provider.client import MemoryClient, NotFoundError
from tests.conftest import Member
from tests.support import Reply as Reply
from tests.support import ok as ok
from tests.support import validate as validate

MEMORY_ID = re.compile(r"^hmem_[0-9a-f]{32}$")
ALL = ["read", "write", "create", "delete"]


def assert_error(response: Reply, status: int, code: str) -> dict[str, Any]:
    """A UHP error envelope with this status and code."""
    assert response.status_code == status, response.text
    body = response.json()
    validate("ErrorEnvelope", body)
    error: dict[str, Any] = body["error"]
    assert error["code"] == code, error
    return error


def not_found(response: Reply) -> None:
    """Unknown and unseen look the same: 404 memory_not_found."""
    assert_error(response, 404, "memory_not_found")


def forbidden(response: Reply) -> None:
    """Seen, without the privilege: 403 memory_forbidden."""
    assert_error(response, 403, "memory_forbidden")


def invalid(response: Reply) -> None:
    """422 memory_invalid."""
    assert_error(response, 422, "memory_invalid")


def listing(client: TestClient, who: Member, limit: int = 100, **params: str) -> list[dict[str, Any]]:
    """Every item of a memory listing, following `next` to the end; each page checked against the schema."""
    items: list[dict[str, Any]] = []
    cursor: str | None = None
    for _ in range(1000):
        query: dict[str, str | int] = {**params, "limit": limit}
        if cursor:
            query["cursor"] = cursor
        page = ok(client.get("/v1/memories", params=query, headers=who.headers))
        assert page["object"] == "list" and set(page) >= {"data", "next"}
        validate("MemoryList", page)
        items += page["data"]
        cursor = page["next"]
        if cursor is None:
            return items
    raise AssertionError("the listing never ended")


def listed_ids(client: TestClient, who: Member, **params: str) -> list[str]:
    """The ids of a whole listing, in order."""
    return [m["id"] for m in listing(client, who, 100, **params)]


class Memories:
    """Creates memories for one test and deletes them afterwards, each by its creator."""

    def __init__(self, client: TestClient):
        self.client = client
        self.made: list[tuple[str, Member]] = []

    def make(self, who: Member, name: str = "m", **fields: Any) -> dict[str, Any]:
        """A new memory (200 expected), validated against `Memory`."""
        body = ok(self.client.post("/v1/memories", json={"name": name, **fields}, headers=who.headers))
        validate("Memory", body)
        self.made.append((body["id"], who))
        return body

    def get(self, who: Member, memory_id: str) -> dict[str, Any]:
        """GET one memory (200 expected), validated against `Memory`."""
        body = ok(self.client.get(f"/v1/memories/{memory_id}", headers=who.headers))
        validate("Memory", body)
        return body

    def put(self, who: Member, memory_id: str, **fields: Any) -> Reply:
        """PUT with these fields."""
        return self.client.put(f"/v1/memories/{memory_id}", json=fields, headers=who.headers)

    def grant(self, who: Member, memory_id: str, principal: str, *privileges: str) -> dict[str, Any]:
        """POST a grant (200 expected), validated against `MemoryGrant`."""
        body = ok(
            self.client.post(
                f"/v1/memories/{memory_id}/grants",
                json={"principal": principal, "privileges": list(privileges)},
                headers=who.headers,
            )
        )
        validate("MemoryGrant", body)
        return body

    def grants(self, who: Member, memory_id: str) -> list[dict[str, Any]]:
        """GET the grants (200 expected), validated against `MemoryGrantList`."""
        body = ok(self.client.get(f"/v1/memories/{memory_id}/grants", headers=who.headers))
        validate("MemoryGrantList", body)
        data: list[dict[str, Any]] = body["data"]
        return data

    def privileges(self, who: Member, memory_id: str) -> list[str] | None:
        """The caller's privileges, or None when the memory does not exist for it (404)."""
        response = self.client.get(f"/v1/memories/{memory_id}", headers=who.headers)
        if response.status_code == 404:
            not_found(response)
            return None
        privileges: list[str] = ok(response)["privileges"]
        return privileges

    def cleanup(self) -> None:
        """Deletes what this test made; the creator's implicit grant keeps delete on each one."""
        for memory_id, who in reversed(self.made):
            with contextlib.suppress(NotFoundError):
                MemoryClient(http=self.client, key=who.key).delete_memory(memory_id)
