"""The foundation over HTTP on the real Neo4j and model: discovery, versions, errors, admin, keys, health."""

from __future__ import annotations

import asyncio
import json
import math
import uuid
from collections.abc import Awaitable, Callable, Iterator
from pathlib import Path
from typing import Any, TypeVar

import pytest
from fastapi.testclient import TestClient
from neo4j import GraphDatabase

from provider import PROTOCOL_VERSION
from provider.config import Settings
from provider.embeddings import OnnxEmbedder
from provider.store.driver import Neo4jStore
from provider.store.schema import SchemaMismatchError, apply_schema, check_vector_dimension
from tests.conftest import Admin, Member, make_memory
from tests.neo4j_target import Neo4jTarget
from tests.support import assert_error, validate

DIMENSION = 384
T = TypeVar("T")


def unique(prefix: str) -> str:
    return f"{prefix}-{uuid.uuid4().hex[:12]}"


def no_such_id(prefix: str) -> str:
    return prefix + uuid.uuid4().hex


@pytest.fixture
def cleanup(client: TestClient) -> Iterator[list[tuple[str, Member]]]:
    """Memories a test made, deleted afterwards by their creator."""
    made: list[tuple[str, Member]] = []
    yield made
    for memory_id, owner in made:
        client.delete(f"/v1/memories/{memory_id}", headers=owner.headers)


# -- discovery and the version header ---------------------------------------------------------------


def test_discovery_needs_no_credential_and_matches_the_schema(client: TestClient) -> None:
    response = client.get("/v1/uhp")
    assert response.status_code == 200, response.text
    body = response.json()
    validate("Discovery", body)
    assert body["default_version"] in body["versions"]
    assert body["capabilities"], "capabilities must list every capability, false where not served"
    assert all(isinstance(value, bool) for value in body["capabilities"].values()), body["capabilities"]
    assert "memories" in body["capabilities"]


def test_every_response_carries_the_version_header(client: TestClient, alice: Member) -> None:
    responses = {
        "discovery": client.get("/v1/uhp"),
        "authenticated": client.get("/v1/memories", headers=alice.headers),
        "unknown route": client.get("/v1/no-such-route", headers=alice.headers),
        "unauthenticated": client.get("/v1/memories"),
    }
    assert [r.status_code for r in responses.values()] == [200, 200, 404, 401]
    for label, response in responses.items():
        assert response.headers.get("UHP-Version") == PROTOCOL_VERSION, label


def test_a_supported_version_is_echoed(client: TestClient, alice: Member) -> None:
    supported = client.get("/v1/uhp").json()["versions"][0]
    discovery = client.get("/v1/uhp", headers={"UHP-Version": supported})
    listing = client.get("/v1/memories", headers={"UHP-Version": supported, **alice.headers})
    for response in (discovery, listing):
        assert response.status_code == 200, response.text
        assert response.headers["UHP-Version"] == supported


def test_an_unsupported_version_is_refused_with_the_supported_list(client: TestClient) -> None:
    response = client.get("/v1/uhp", headers={"UHP-Version": "1999-01-01"})
    error = assert_error(response, 400, "unsupported_protocol_version")
    assert isinstance(error["detail"]["supported"], list) and error["detail"]["supported"]
    assert PROTOCOL_VERSION in error["detail"]["supported"]
    assert response.headers["UHP-Version"] == PROTOCOL_VERSION


# -- the error envelope ------------------------------------------------------------------------------


@pytest.mark.parametrize("authorization", [None, "Bearer uhp-not-a-key", "Basic dXNlcjpwYXNz", "Bearer "])
def test_a_missing_or_unknown_key_is_401(client: TestClient, authorization: str | None) -> None:
    headers = {"Authorization": authorization} if authorization is not None else {}
    error = assert_error(client.get("/v1/memories", headers=headers), 401)
    assert error["type"] == "authentication_error"


def test_an_unknown_memory_is_404_memory_not_found(client: TestClient, alice: Member) -> None:
    response = client.get(f"/v1/memories/{no_such_id('hmem_')}", headers=alice.headers)
    assert_error(response, 404, "memory_not_found")


def test_an_unknown_route_is_404_in_the_envelope(client: TestClient, alice: Member) -> None:
    assert_error(client.get("/v1/no-such-route", headers=alice.headers), 404)
    assert_error(client.get("/no-such-route"), 404)


@pytest.mark.parametrize(
    "body",
    [{}, {"name": 5}, {"name": ["a"]}, {"name": None}, ["name"]],
    ids=["name missing", "name a number", "name a list", "name null", "not an object"],
)
def test_a_bad_memory_body_is_422(client: TestClient, alice: Member, body: Any) -> None:
    error = assert_error(client.post("/v1/memories", json=body, headers=alice.headers), 422)
    assert error["type"] == "invalid_request_error"


@pytest.mark.parametrize("raw", [b"{not json", b"", b'{"name": "x"'], ids=["garbage", "empty", "truncated"])
def test_malformed_json_is_422(client: TestClient, alice: Member, raw: bytes) -> None:
    headers = {"Content-Type": "application/json", **alice.headers}
    error = assert_error(client.post("/v1/memories", content=raw, headers=headers), 422)
    assert error["param"] is None, "a body that is not JSON names no field"


# -- the admin surface -------------------------------------------------------------------------------


@pytest.mark.parametrize("member_type", ["human", "agent"])
def test_admin_creates_a_member(client: TestClient, admin: Admin, member_type: str) -> None:
    name = unique("member")
    response = client.post(
        "/v1/admin/members", json={"type": member_type, "name": name}, headers=admin.headers
    )
    assert response.status_code == 200, response.text
    body = response.json()
    assert {"id", "principal", "type", "name"} <= body.keys()
    assert body["id"] and body["principal"] == f"member:{body['id']}"
    assert (body["type"], body["name"]) == (member_type, name)


@pytest.mark.parametrize(
    "body", [{"type": "robot", "name": "r"}, {"name": "r"}, {"type": "human"}, {"type": "human", "name": ""}]
)
def test_admin_refuses_a_bad_member(client: TestClient, admin: Admin, body: dict[str, Any]) -> None:
    assert_error(client.post("/v1/admin/members", json=body, headers=admin.headers), 422)


def test_a_new_key_works_and_only_its_hash_is_stored(
    client: TestClient, admin: Admin, neo4j_target: Neo4jTarget
) -> None:
    member = admin.member()
    response = client.post(
        f"/v1/admin/members/{member.id}/keys", json={"server": False}, headers=admin.headers
    )
    assert response.status_code == 200, response.text
    key = response.json()["key"]
    assert isinstance(key, str) and len(key) >= 32
    assert client.get("/v1/memories", headers={"Authorization": f"Bearer {key}"}).status_code == 200
    with GraphDatabase.driver(neo4j_target.uri, auth=(neo4j_target.user, neo4j_target.password)) as driver:
        mine = driver.execute_query(
            "MATCH (k:ApiKey)-[:KEY_OF]->(:Member {id: $id}) RETURN properties(k) AS props", id=member.id
        ).records
        holding = driver.execute_query(
            "MATCH (k:ApiKey) WHERE any(p IN keys(k) WHERE k[p] IS :: STRING AND k[p] CONTAINS $key) "
            "RETURN count(k) AS n",
            key=key,
        ).records
    assert len(mine) == 2, "the fixture's key and this one"
    assert all(key not in map(str, record["props"].values()) for record in mine)
    assert holding[0]["n"] == 0


def admin_calls(member: Member, group_id: str) -> list[tuple[str, str, dict[str, Any] | None]]:
    return [
        ("POST", "/v1/admin/members", {"type": "human", "name": "x"}),
        ("POST", f"/v1/admin/members/{member.id}/keys", {"server": True}),
        ("GET", f"/v1/admin/members/{member.id}/keys", None),
        ("DELETE", f"/v1/admin/members/{member.id}/keys/{no_such_id('hkey_')}", None),
        ("POST", f"/v1/admin/members/{member.id}/keys/{no_such_id('hkey_')}/rotate", {"grace_seconds": 60}),
        ("POST", "/v1/admin/groups", {"name": "g"}),
        ("PUT", f"/v1/admin/groups/{group_id}/members/{member.id}", None),
        ("DELETE", f"/v1/admin/groups/{group_id}/members/{member.id}", None),
    ]


def test_admin_routes_refuse_a_member_key_and_no_key(client: TestClient, admin: Admin, alice: Member) -> None:
    group_id = admin.group()
    for method, path, body in admin_calls(alice, group_id):
        for headers in (alice.headers, {}, {"Authorization": "Bearer uhp-not-a-key"}):
            response = client.request(method, path, json=body, headers=headers)
            assert_error(response, 401)


def test_the_admin_key_is_refused_on_member_routes(client: TestClient, admin: Admin) -> None:
    error = assert_error(client.get("/v1/memories", headers=admin.headers), 403)
    assert error["type"] == "permission_error"
    assert_error(client.post("/v1/memories", json={"name": unique("m")}, headers=admin.headers), 403)


def test_admin_creates_a_group(client: TestClient, admin: Admin) -> None:
    name = unique("group")
    response = client.post("/v1/admin/groups", json={"name": name}, headers=admin.headers)
    assert response.status_code == 200, response.text
    body = response.json()
    assert {"id", "principal", "name"} <= body.keys()
    assert body["principal"] == f"group:{body['id']}" and body["name"] == name
    assert_error(client.post("/v1/admin/groups", json={}, headers=admin.headers), 422)


def test_group_membership_of_members_and_groups_gives_and_takes_access(
    client: TestClient, admin: Admin, alice: Member, bob: Member, cleanup: list[tuple[str, Member]]
) -> None:
    memory = make_memory(client, alice, unique("shared"))
    cleanup.append((memory["id"], alice))
    outer, inner = admin.group(), admin.group(bob.id)
    joined = client.put(f"/v1/admin/groups/{outer}/members/{inner}", headers=admin.headers)
    assert joined.status_code == 200, joined.text
    granted = client.post(
        f"/v1/memories/{memory['id']}/grants",
        json={"principal": f"group:{outer}", "privileges": ["read"]},
        headers=alice.headers,
    )
    assert granted.status_code == 200, granted.text
    assert client.get(f"/v1/memories/{memory['id']}", headers=bob.headers).status_code == 200
    left = client.delete(f"/v1/admin/groups/{outer}/members/{inner}", headers=admin.headers)
    assert left.status_code == 200, left.text
    assert_error(client.get(f"/v1/memories/{memory['id']}", headers=bob.headers), 404, "memory_not_found")


def test_admin_unknown_ids_are_404(client: TestClient, admin: Admin, alice: Member) -> None:
    group_id = admin.group()
    ghost_member, ghost_group = no_such_id("hmbr_"), no_such_id("hgrp_")
    refused = [
        client.post(f"/v1/admin/members/{ghost_member}/keys", json={"server": False}, headers=admin.headers),
        client.put(f"/v1/admin/groups/{ghost_group}/members/{alice.id}", headers=admin.headers),
        client.put(f"/v1/admin/groups/{group_id}/members/{ghost_member}", headers=admin.headers),
        client.delete(f"/v1/admin/groups/{ghost_group}/members/{alice.id}", headers=admin.headers),
    ]
    for response in refused:
        assert_error(response, 404, "member_not_found")


# -- server keys acting on behalf of a member ---------------------------------------------------------


def test_a_server_key_acts_for_the_member_it_names(
    client: TestClient, admin: Admin, alice: Member, cleanup: list[tuple[str, Member]]
) -> None:
    server = admin.member("agent", server=True)
    on_behalf = {"UHP-On-Behalf-Of": alice.principal, **server.headers}
    memory = make_memory_as(client, on_behalf, unique("behalf"))
    cleanup.append((memory["id"], alice))
    grants = client.get(f"/v1/memories/{memory['id']}/grants", headers=alice.headers)
    assert grants.status_code == 200, grants.text
    implicit = [g for g in grants.json()["data"] if g.get("implicit")]
    assert [g["principal"] for g in implicit] == [alice.principal]
    assert client.get(f"/v1/memories/{memory['id']}", headers=on_behalf).status_code == 200
    assert_error(client.get(f"/v1/memories/{memory['id']}", headers=server.headers), 404, "memory_not_found")


def make_memory_as(client: TestClient, headers: dict[str, str], name: str) -> dict[str, Any]:
    response = client.post("/v1/memories", json={"name": name}, headers=headers)
    assert response.status_code == 200, response.text
    body: dict[str, Any] = response.json()
    return body


def test_only_a_server_key_may_act_for_another(client: TestClient, alice: Member, bob: Member) -> None:
    headers = {"UHP-On-Behalf-Of": alice.principal, **bob.headers}
    error = assert_error(client.get("/v1/memories", headers=headers), 403)
    assert error["type"] == "permission_error"


@pytest.mark.parametrize("named", ["member:{ghost}", "{ghost}", "group:{ghost}", "member:", ""])
def test_a_server_key_naming_no_known_member_is_401(client: TestClient, admin: Admin, named: str) -> None:
    server = admin.member("agent", server=True)
    headers = {"UHP-On-Behalf-Of": named.format(ghost=no_such_id("hmbr_")), **server.headers}
    assert_error(client.get("/v1/memories", headers=headers), 401)


# -- health -------------------------------------------------------------------------------------------


def test_health_and_readiness(client: TestClient) -> None:
    alive = client.get("/healthz")
    assert alive.status_code == 200, alive.text
    ready = client.get("/readyz")
    assert ready.status_code == 200, ready.text
    assert ready.json()["checks"] == {"neo4j": True, "schema": True, "model": True, "queries": True}
    assert ready.json()["not_ready"] == {}


# -- the schema, applied on the real Neo4j ----------------------------------------------------------


def on_store(settings: Settings, work: Callable[[Neo4jStore], Awaitable[T]]) -> T:
    """Runs `work` on a fresh store in its own event loop, closing the driver in that loop."""

    async def main() -> T:
        store = Neo4jStore.connect(
            settings.neo4j.uri,
            settings.neo4j.user,
            settings.neo4j.password.get_secret_value(),
            settings.neo4j.database,
        )
        try:
            return await work(store)
        finally:
            await store.close()

    return asyncio.run(main())


def schema_snapshot(target: Neo4jTarget) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """Every index and constraint by what defines it; usage counters are left out."""
    with GraphDatabase.driver(target.uri, auth=(target.user, target.password)) as driver:
        driver.execute_query("CALL db.awaitIndexes(120)")
        indexes = driver.execute_query(
            "SHOW INDEXES YIELD id, name, type, state, entityType, labelsOrTypes, properties, options, "
            "owningConstraint RETURN * ORDER BY name"
        ).records
        constraints = driver.execute_query(
            "SHOW CONSTRAINTS YIELD id, name, type, entityType, labelsOrTypes, properties, ownedIndex "
            "RETURN * ORDER BY name"
        ).records
    return [r.data() for r in indexes], [r.data() for r in constraints]


def test_applying_the_schema_twice_changes_nothing(settings: Settings, neo4j_target: Neo4jTarget) -> None:
    on_store(settings, lambda store: apply_schema(store, DIMENSION))
    before = schema_snapshot(neo4j_target)
    on_store(settings, lambda store: apply_schema(store, DIMENSION))
    after = schema_snapshot(neo4j_target)
    assert after == before
    names = {row["name"] for row in before[0]} | {row["name"] for row in before[1]}
    assert {
        "memory_id",
        "member_id",
        "group_id",
        "api_key_hash",
        "api_key_id",
        "grant_id",
        "grant_principal",
        "record_id",
        "harness_id",
        "record_embedding",
        "record_words",
    } <= names
    assert all(row["state"] == "ONLINE" for row in before[0])


def test_a_vector_dimension_mismatch_is_refused(settings: Settings) -> None:
    on_store(settings, lambda store: apply_schema(store, DIMENSION))
    with pytest.raises(SchemaMismatchError, match="record_embedding"):
        on_store(settings, lambda store: check_vector_dimension(store, DIMENSION + 1))
    on_store(settings, lambda store: check_vector_dimension(store, DIMENSION))


# -- the embedder --------------------------------------------------------------------------------------


def cosine(a: list[float], b: list[float]) -> float:
    return sum(x * y for x, y in zip(a, b, strict=True)) / (math.hypot(*a) * math.hypot(*b))


def test_the_model_puts_paraphrases_closer_than_unrelated_text(embedder: OnnxEmbedder) -> None:
    texts = [
        "The invoice is due at the end of March.",
        "Payment for the bill must be made by late March.",
        "Penguins live in the southern hemisphere.",
    ]
    invoice, payment, penguins = asyncio.run(embedder.embed(texts))
    paraphrase = cosine(invoice, payment)
    assert paraphrase > cosine(invoice, penguins)
    assert paraphrase > cosine(payment, penguins)


def test_vectors_are_unit_length_with_the_declared_dimension(embedder: OnnxEmbedder) -> None:
    assert embedder.dimension == DIMENSION
    vectors = asyncio.run(embedder.embed(["one", "a longer sentence about Quillon Freight", "é ü 中文"]))
    assert len(vectors) == 3
    for vector in vectors:
        assert len(vector) == DIMENSION
        assert math.isclose(math.hypot(*vector), 1.0, abs_tol=1e-4)


def test_embedding_nothing_gives_nothing(embedder: OnnxEmbedder) -> None:
    assert asyncio.run(embedder.embed([])) == []


def test_the_onnx_runtime_gives_the_vectors_sentence_transformers_gives(embedder: OnnxEmbedder) -> None:
    """The graph built without torch against vectors sentence-transformers made (tests/data)."""
    reference = json.loads((Path(__file__).parents[1] / "data" / "minilm_reference.json").read_text())
    for text, fast, slow in zip(
        reference["texts"], embedder.embed_sync(reference["texts"]), reference["vectors"], strict=True
    ):
        assert cosine(fast, slow) > 0.99999, text
        assert max(abs(a - b) for a, b in zip(fast, slow, strict=True)) < 1e-4, text
