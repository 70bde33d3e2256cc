"""The query routes' request bodies through HTTP: typed, exact to the chapter, bounded, each field named.

A wrong shape is refused at the edge with 422 `memory_invalid` and `param` naming the field, before
any service runs (so no sandbox is started here); /openapi.json shows the chapter's three bodies.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from provider.config import Limits
from tests.api.records_support import Lab, assert_error, ok
from tests.conftest import Member

LIMITS = Limits()
CHAPTER = Path(__file__).resolve().parents[3] / "shared" / "uhp" / "uhp-2026-10-04.schema.json"
TITLES = "MATCH (r:Record) RETURN r.title AS title"


@pytest.fixture
def lab(client: TestClient) -> Iterator[Lab]:
    tracker = Lab(client)
    yield tracker
    tracker.cleanup()


def refused(response: Any, param: str | None) -> None:
    error = assert_error(response, 422, "memory_invalid")
    assert error.get("param") == param, error


def raw(client: TestClient, who: Member, method: str, path: str, text: str) -> Any:
    """The exact JSON text a hostile client sends."""
    headers = {**who.headers, "content-type": "application/json"}
    return client.request(method, path, content=text.encode("utf-8"), headers=headers)


def deep(levels: int) -> dict[str, Any]:
    value: dict[str, Any] = {"type": "string"}
    for _ in range(levels):
        value = {"not": value}
    return value


@pytest.mark.parametrize(
    ("body", "param"),
    [
        ({}, "statement"),
        ({"statement": 5}, "statement"),
        ({"statement": "   "}, "statement"),
        ({"statement": "x" * (LIMITS.text_chars + 1)}, "statement"),
        ({"statement": TITLES, "params": [1]}, "params"),
        ({"statement": TITLES, "params": None}, "params"),
        ({"statement": TITLES, "params": {"a": {"b": {"c": {"d": {"e": {"f": {"g": {"h": {"i": 1}}}}}}}}}},
         "params"),
        ({"statement": TITLES, "params": {f"k{i}": i for i in range(LIMITS.attribute_keys + 1)}}, "params"),
        ({"statement": TITLES, "depth": -1}, "depth"),
        ({"statement": TITLES, "depth": "2"}, "depth"),
        ({"statement": TITLES, "depth": True}, "depth"),
        ({"statement": TITLES, "depth": 1.5}, "depth"),
        ({"statement": TITLES, "write": "yes"}, "write"),
        ({"statement": TITLES, "language": 3}, "language"),
    ],
)  # fmt: skip
def test_a_free_query_of_the_wrong_shape_names_its_field(
    client: TestClient, lab: Lab, alice: Member, body: dict[str, Any], param: str
) -> None:
    memory = lab.memory(alice)
    refused(client.post(f"/v1/memories/{memory}/query", json=body, headers=alice.headers), param)


@pytest.mark.parametrize(
    ("text", "param"),
    [
        ('{"statement": "RETURN $n AS n", "params": {"n": 9223372036854775808}}', "params.n"),
        ('{"statement": "RETURN $n AS n", "params": {"n": [1, 1e999]}}', "params.n.1"),
        ('{"statement": "RETURN \\ud800 AS n"}', "statement"),
        ("[1, 2]", None),
        ('"MATCH (n) RETURN n"', None),
    ],
)
def test_values_the_store_cannot_keep_are_refused_by_name(
    client: TestClient, lab: Lab, alice: Member, text: str, param: str | None
) -> None:
    memory = lab.memory(alice)
    refused(raw(client, alice, "POST", f"/v1/memories/{memory}/query", text), param)


@pytest.mark.parametrize(
    ("body", "param"),
    [
        ({}, "body"),
        ({"body": 5}, "body"),
        ({"body": ""}, "body"),
        ({"body": TITLES, "params": "an object"}, "params"),
        ({"body": TITLES, "params": {"description": "x" * LIMITS.schema_bytes}}, "params"),
        ({"body": TITLES, "params": deep(LIMITS.json_depth)}, "params" + ".not" * (LIMITS.json_depth - 1)),
        ({"body": TITLES, "requires": "admin"}, "requires"),
        ({"body": TITLES, "description": ["a list"]}, "description"),
        ({"body": TITLES, "name": 7}, "name"),
        ({"body": TITLES, "language": None}, "language"),
    ],
)
def test_a_definition_of_the_wrong_shape_names_its_field(
    client: TestClient, lab: Lab, alice: Member, body: dict[str, Any], param: str
) -> None:
    memory = lab.memory(alice)
    refused(client.put(f"/v1/memories/{memory}/queries/q", json=body, headers=alice.headers), param)


def test_a_definition_may_say_statement_for_body_and_keeps_what_it_was_given(
    client: TestClient, lab: Lab, alice: Member
) -> None:
    memory = lab.memory(alice)
    given = {"statement": TITLES, "description": "titles", "x-note": "ignored"}
    defined = ok(client.put(f"/v1/memories/{memory}/queries/titles", json=given, headers=alice.headers))
    assert defined["body"] == TITLES and defined["description"] == "titles" and "x-note" not in defined
    assert defined["params"] == {"type": "object"} and defined["language"] == "cypher"


@pytest.mark.parametrize(
    ("body", "param"),
    [
        ({"params": "fact"}, "params"),
        ({"params": [1]}, "params"),
        ({"params": {"n": {"a": {"b": {"c": {"d": {"e": {"f": {"g": {"h": 1}}}}}}}}}}, "params"),
    ],
)  # fmt: skip
def test_a_run_of_the_wrong_shape_names_its_field(
    client: TestClient, lab: Lab, alice: Member, body: dict[str, Any], param: str
) -> None:
    memory = lab.memory(alice)
    ok(client.put(f"/v1/memories/{memory}/queries/titles", json={"body": TITLES}, headers=alice.headers))
    refused(client.post(f"/v1/memories/{memory}/queries/titles", json=body, headers=alice.headers), param)
    text = '{"params": {"n": -9223372036854775809}}'
    refused(raw(client, alice, "POST", f"/v1/memories/{memory}/queries/titles", text), "params.n")


def test_openapi_shows_the_chapters_query_bodies(client: TestClient) -> None:
    document = client.get("/openapi.json").json()
    ours = document["components"]["schemas"]
    chapter = json.loads(CHAPTER.read_text(encoding="utf-8"))["$defs"]
    for name in ("MemoryQuery", "MemoryQueryRun", "MemoryFreeQuery"):
        served, published = ours[name], chapter[name]
        assert set(published["properties"]) <= set(served["properties"]), name
        assert sorted(served.get("required", [])) == sorted(published.get("required", [])), name
        undescribed = [field for field, spec in served["properties"].items() if "description" not in spec]
        assert undescribed == [], (name, undescribed)
    assert ours["MemoryQuery"]["properties"]["requires"]["enum"] == ["read", "write"]
    assert ours["MemoryFreeQuery"]["properties"]["write"]["type"] == "boolean"
    bodies = {
        (path, method): operation["requestBody"]["content"]["application/json"]["schema"]
        for path, operations in document["paths"].items()
        for method, operation in operations.items()
        if "quer" in path and "requestBody" in operation
    }
    assert {key: str(value) for key, value in bodies.items()} == {
        ("/v1/memories/{memory_id}/query", "post"): str({"$ref": "#/components/schemas/MemoryFreeQuery"}),
        ("/v1/memories/{memory_id}/queries/{name}", "put"): str({"$ref": "#/components/schemas/MemoryQuery"}),
        ("/v1/memories/{memory_id}/queries/{name}", "post"): str(
            {"anyOf": [{"$ref": "#/components/schemas/MemoryQueryRun"}, {"type": "null"}], "title": "Body"}
        ),
    }
