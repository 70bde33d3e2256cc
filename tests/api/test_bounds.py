"""Every bound on what a caller sends, and every value Neo4j cannot keep, through HTTP on the real store.

Each refusal is a 422 `memory_invalid` whose `param` names the field; nothing is written; and what a
refused write tried never breaks a later read of the same memory or of an ancestor.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient
from pydantic import SecretStr

from provider.api.app import create_app
from provider.config import Limits, Settings
from provider.embeddings import OnnxEmbedder
from tests.api.records_support import Lab, assert_error, ok
from tests.conftest import Admin, Member

LIMITS = Limits()


@pytest.fixture
def lab(client: TestClient) -> Iterator[Lab]:
    tracker = Lab(client)
    yield tracker
    tracker.cleanup()


def raw_post(client: TestClient, who: Member, path: str, text: str) -> Any:
    """The exact JSON text a hostile client sends (lone surrogates, 1e999, huge integers)."""
    headers = {**who.headers, "content-type": "application/json"}
    return client.post(path, content=text.encode("utf-8"), headers=headers)


def nested(depth: int) -> dict[str, Any]:
    value: dict[str, Any] = {"leaf": 1}
    for _ in range(depth - 1):
        value = {"k": value}
    return value


def refused(response: Any, param: str) -> None:
    error = assert_error(response, 422, "memory_invalid")
    assert error["param"] == param, error


# -- values the store cannot keep --------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "param"),
    [
        ('{"content": "x", "attributes": {"n": 9223372036854775808}}', "attributes.n"),
        ('{"content": "x", "attributes": {"n": -9223372036854775809}}', "attributes.n"),
        ('{"content": "x", "attributes": {"deep": {"list": [1, 2, 123456789012345678901234567890]}}}',
         "attributes.deep.list.2"),
        ('{"content": "x", "attributes": {"f": 1e999}}', "attributes.f"),
        ('{"content": "x", "attributes": {"f": NaN}}', "attributes.f"),
        ('{"content": "\\ud800 alone"}', "content"),
        ('{"content": [{"type": "text", "text": "ok"}, {"type": "text", "text": "\\udfff"}]}',
         "content.1.text"),
        ('{"title": "\\ud83d", "content": "x"}', "title"),
        ('{"content": "x", "attributes": {"\\ud800": 1}}', "attributes"),
    ],
)  # fmt: skip
def test_a_value_the_store_cannot_keep_is_refused_with_its_field(
    lab: Lab, alice: Member, text: str, param: str
) -> None:
    memory_id = lab.memory(alice)
    refused(raw_post(lab.client, alice, f"/v1/memories/{memory_id}/records", text), param)
    assert lab.listed(alice, memory_id) == []


def test_the_largest_64_bit_integers_are_kept_exactly(lab: Lab, alice: Member) -> None:
    memory_id = lab.memory(alice)
    text = '{"content": "x", "attributes": {"max": 9223372036854775807, "min": -9223372036854775808}}'
    record = ok(raw_post(lab.client, alice, f"/v1/memories/{memory_id}/records", text))
    assert record["attributes"] == {"max": 2**63 - 1, "min": -(2**63)}
    assert lab.get(alice, memory_id, record["id"])["attributes"] == record["attributes"]


@pytest.mark.parametrize(
    ("text", "param"),
    [
        ('{"filters": {"field": "attributes.n", "op": "eq", "value": 99999999999999999999}}',
         "filters.value"),
        ('{"filters": {"and": [{"field": "attributes.n", "op": "in", "value": [1, 1e999]}]}}',
         "filters.and.0.value.1"),
        ('{"text": "\\ud800"}', "text"),
        ('{"query": "fine", "types": ["fact", "\\udc00"]}', "types.1"),
    ],
)  # fmt: skip
def test_a_recall_value_the_store_cannot_take_is_refused(
    lab: Lab, alice: Member, text: str, param: str
) -> None:
    memory_id = lab.memory(alice)
    refused(raw_post(lab.client, alice, f"/v1/memories/{memory_id}/recall", text), param)


def test_a_memory_name_with_a_lone_surrogate_is_refused(lab: Lab, alice: Member) -> None:
    answer = raw_post(lab.client, alice, "/v1/memories", '{"name": "bad \\ud800 name"}')
    assert assert_error(answer, 422, "memory_invalid")["param"] == "name"


# -- bounds, each at its default ------------------------------------------------------------------


def test_text_parts_and_references_are_bounded(lab: Lab, alice: Member) -> None:
    memory_id = lab.memory(alice)
    path = f"/v1/memories/{memory_id}/records"
    long_text = "a" * (LIMITS.text_chars + 1)
    refused(lab.post(alice, memory_id, {"content": long_text}), "content.0.text")
    many_parts = [{"type": "text", "text": "p"}] * (LIMITS.parts + 1)
    refused(lab.post(alice, memory_id, {"content": many_parts}), "content")
    target = lab.remember(alice, memory_id)
    refs = [{"rel": "about", "record_id": target["id"]}] * (LIMITS.references + 1)
    refused(lab.post(alice, memory_id, {"content": "x", "references": refs}), "references")
    at_the_bound = ok(lab.client.post(path, json={"content": [{"type": "text", "text": "p"}] * LIMITS.parts},
                                      headers=alice.headers))  # fmt: skip
    assert len(at_the_bound["content"]) == LIMITS.parts
    assert sorted(lab.listed(alice, memory_id)) == sorted([target["id"], at_the_bound["id"]])


def test_attributes_are_bounded_in_depth_keys_key_length_and_size(lab: Lab, alice: Member) -> None:
    memory_id = lab.memory(alice)
    refused(lab.post(alice, memory_id, {"content": "x", "attributes": nested(LIMITS.attribute_depth + 1)}),
            "attributes")  # fmt: skip
    wide = {f"k{i}": i for i in range(LIMITS.attribute_keys + 1)}
    refused(lab.post(alice, memory_id, {"content": "x", "attributes": wide}), "attributes")
    long_key = {"k" * (LIMITS.attribute_key_chars + 1): 1}
    refused(lab.post(alice, memory_id, {"content": "x", "attributes": long_key}), "attributes")
    big = {"blob": "b" * LIMITS.attribute_bytes}
    refused(lab.post(alice, memory_id, {"content": "x", "attributes": big}), "attributes")
    kept = lab.remember(alice, memory_id, content="x", attributes=nested(LIMITS.attribute_depth))
    assert kept["attributes"] == nested(LIMITS.attribute_depth)
    assert lab.listed(alice, memory_id) == [kept["id"]]


def test_a_body_nested_past_its_bound_is_refused_and_the_memory_still_reads(lab: Lab, alice: Member) -> None:
    """A few hundred levels once broke every later read of the memory and of its ancestors (500)."""
    parent = lab.memory(alice)
    child = lab.memory(alice, parent_id=parent)
    for depth in (LIMITS.json_depth + 1, 300, 5000):
        text = '{"content": "x", "attributes": ' + '{"k": ' * depth + "1" + "}" * depth + "}"
        answer = raw_post(lab.client, alice, f"/v1/memories/{child}/records", text)
        assert answer.status_code in (400, 422), answer.text
        assert answer.json()["error"]["type"] == "invalid_request_error"
    ok(lab.client.get(f"/v1/memories/{child}/records", headers=alice.headers))
    for memory_id in (child, parent):
        ok(lab.client.post(f"/v1/memories/{memory_id}/recall", json={"text": "x"}, headers=alice.headers))


def test_lists_in_requests_are_bounded(lab: Lab, alice: Member) -> None:
    memory_id = lab.memory(alice)
    too_many = [f"t{i}" for i in range(LIMITS.list_items + 1)]
    recall = f"/v1/memories/{memory_id}/recall"
    refused(lab.client.post(recall, json={"text": "x", "types": too_many}, headers=alice.headers), "types")
    in_filter = {"field": "attributes.a", "op": "in", "value": too_many}
    refused(lab.client.post(recall, json={"filters": in_filter}, headers=alice.headers), "filters.value")
    graph = f"/v1/memories/{memory_id}/graph"
    refused(lab.client.post(graph, json={"types": too_many}, headers=alice.headers), "types")
    erase = f"/v1/memories/{memory_id}/erase"
    refused(lab.client.post(erase, json={"record_ids": ["r"] * 1001}, headers=alice.headers), "record_ids")
    observe = f"/v1/memories/{memory_id}/observe"
    episodes = [{"content": "e"}] * 501
    refused(lab.client.post(observe, json={"episodes": episodes}, headers=alice.headers), "episodes")


def test_a_filter_is_bounded_in_terms_and_depth(lab: Lab, alice: Member) -> None:
    memory_id = lab.memory(alice)
    recall = f"/v1/memories/{memory_id}/recall"
    term = {"field": "attributes.a", "op": "eq", "value": 1}
    wide = {"or": [term] * LIMITS.filter_terms}
    refused(lab.client.post(recall, json={"filters": wide}, headers=alice.headers), "filters")
    deep: dict[str, Any] = term
    for _ in range(7):
        deep = {"and": [deep]}
    refused(lab.client.post(recall, json={"filters": deep}, headers=alice.headers), "filters")
    fine = {"or": [term] * (LIMITS.filter_terms - 1)}
    ok(lab.client.post(recall, json={"filters": fine}, headers=alice.headers))


@pytest.mark.parametrize(
    ("path", "body", "param"),
    [
        ("graph", {"hops": "1"}, "hops"),
        ("graph", {"hops": True}, "hops"),
        ("graph", {"limit": 1001}, "limit"),
        ("recall", {"text": "x", "limit": "5"}, "limit"),
        ("recall", {"text": 5}, "text"),
        ("recall", {"text": "x", "depth": -1}, "depth"),
        ("recall", {"text": "x", "include": "everything"}, "include"),
        ("recall", {"filters": {"field": "nope", "op": "eq", "value": 1}}, "filters.field"),
        ("recall", {"filters": {"field": "type", "op": "like", "value": 1}}, "filters.op"),
        ("recall", {"filters": {"field": "time.written_at", "op": "gt", "value": "yesterday"}},
         "filters.value"),
        ("recall", {"filters": {"and": []}}, "filters.and"),
        ("records", {"content": "x", "type": "Not A Type"}, "type"),
        ("records", {"content": "x", "time": {"valid_from": "soon"}}, "time.valid_from"),
        ("records", {"content": "x", "title": "t" * 301}, "title"),
        ("records", {"content": [{"type": "file", "file": {"id": ""}}]}, "content.0.file.id"),
        ("erase", {"record_ids": []}, "record_ids"),
        ("consolidations", {"budget": {"limit": 0}}, "budget.limit"),
        ("snapshots", {"name": "   "}, "name"),
    ],
)  # fmt: skip
def test_a_wrong_shape_names_its_field(lab: Lab, alice: Member, path: str, body: Any, param: str) -> None:
    memory_id = lab.memory(alice)
    refused(lab.client.post(f"/v1/memories/{memory_id}/{path}", json=body, headers=alice.headers), param)


def test_openapi_shows_every_request_body_and_its_field_descriptions(client: TestClient) -> None:
    document = client.get("/openapi.json").json()
    schemas = document["components"]["schemas"]
    for name in ("RecordCreate", "RecordRevise", "RecallRequest", "GraphRequest", "ObserveRequest",
                 "EraseRequest", "MemoryCreate", "GrantCreate", "SnapshotCreate"):  # fmt: skip
        fields = schemas[name]["properties"]
        undescribed = [f for f, spec in fields.items() if "description" not in spec and "$ref" not in spec]
        assert not undescribed, (name, undescribed)
    untyped = [
        (path, method)
        for path, operations in document["paths"].items()
        for method, operation in operations.items()
        for media in operation.get("requestBody", {}).get("content", {}).values()
        if media.get("schema", {}).get("additionalProperties") is True and "$ref" not in media["schema"]
    ]
    assert untyped == []


# -- a bound is a setting -------------------------------------------------------------------------


def test_the_bounds_come_from_the_settings(settings: Settings, embedder: OnnxEmbedder, admin: Admin) -> None:
    tight = settings.changed(
        max_parts=2, max_text_chars=10, max_attribute_keys=1, admin_key=SecretStr(admin.key)
    )
    with TestClient(create_app(tight, embedder=embedder)) as small:
        member = Admin(client=small, key=admin.key).member()
        memory = small.post("/v1/memories", json={"name": "tight"}, headers=member.headers).json()["id"]
        path = f"/v1/memories/{memory}/records"
        refused(small.post(path, json={"content": ["a"] * 0 + [{"type": "text", "text": "p"}] * 3},
                           headers=member.headers), "content")  # fmt: skip
        refused(small.post(path, json={"content": "eleven char"}, headers=member.headers), "content.0.text")
        two_keys = {"content": "x", "attributes": {"a": 1, "b": 2}}
        refused(small.post(path, json=two_keys, headers=member.headers), "attributes")
        ok(small.post(path, json={"content": "ten chars!", "attributes": {"a": 1}}, headers=member.headers))
        small.delete(f"/v1/memories/{memory}", headers=member.headers)
