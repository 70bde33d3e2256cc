"""Quotas on what a member keeps, through HTTP on the real Neo4j and model: a write past one is 429
`quota_exhausted` naming the limit and its setting, and writes nothing; an erase or a delete gives back.

The tests run on an app of their own with small quotas, on the suite's Neo4j; each makes its own
members and memories, so the counters they read are theirs alone.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient

from provider.api.app import create_app
from provider.config import Settings
from provider.embeddings import OnnxEmbedder
from provider.store.schema import apply_schema
from tests.api.lifecycle_support import cypher
from tests.api.records_support import Lab, Reply, assert_error, lab_on, ok, tag
from tests.conftest import Admin, Member
from tests.neo4j_target import Neo4jTarget

RECORDS = 3
CONTENT_BYTES = 3000
MEMORIES = 3
ROOT_RECORDS = 5
ROOT_CONTENT_BYTES = 100_000


@pytest.fixture(scope="module")
def bounded(settings: Settings, embedder: OnnxEmbedder) -> Iterator[TestClient]:
    """An app whose members keep 3 records, 3,000 bytes and 3 memories; a root's tree 5 records."""
    small = settings.changed(
        quota_records=RECORDS,
        quota_content_bytes=CONTENT_BYTES,
        quota_memories=MEMORIES,
        quota_root_records=ROOT_RECORDS,
        quota_root_content_bytes=ROOT_CONTENT_BYTES,
    )
    with TestClient(create_app(small, embedder=embedder)) as test_client:
        yield test_client


@pytest.fixture
def lab(bounded: TestClient) -> Iterator[Lab]:
    with lab_on(bounded) as tracker:
        yield tracker


@pytest.fixture
def operator(bounded: TestClient, settings: Settings) -> Admin:
    return Admin(client=bounded, key=settings.admin_key.get_secret_value())


def note(size: int = 20) -> str:
    """Words no other test writes, about `size` characters long."""
    return (f"{tag()} " * (size // 11 + 1))[:size]


def write(lab: Lab, who: Member, memory_id: str, size: int = 20) -> Reply:
    return lab.post(who, memory_id, {"content": note(size)})


def usage(operator: Admin, who: Member) -> dict[str, Any]:
    reply = operator.client.get(f"/v1/admin/members/{who.id}/usage", headers=operator.headers)
    return ok(reply)


def stored(target: Neo4jTarget, memory_id: str) -> tuple[int, int]:
    """(records, versions) Neo4j holds in one memory."""
    rows = cypher(
        target,
        "MATCH (r:Record {memory_id: $id}) OPTIONAL MATCH (v:RecordVersion)-[:VERSION_OF]->(r) "
        "RETURN count(DISTINCT r) AS records, count(v) AS versions",
        id=memory_id,
    )
    return int(rows[0]["records"]), int(rows[0]["versions"])


def refused(reply: Reply, limit: str, setting: str) -> dict[str, Any]:
    """A 429 `quota_exhausted` whose message and detail name the limit and its setting."""
    error = assert_error(reply, 429, "quota_exhausted")
    assert setting in error["message"], error
    assert error["detail"]["limit"] == limit and error["detail"]["setting"] == setting, error
    return error


def test_a_record_past_the_records_quota_is_refused_and_writes_nothing(
    lab: Lab, operator: Admin, neo4j_target: Neo4jTarget
) -> None:
    member = operator.member()
    memory = lab.memory(member)
    for _ in range(RECORDS):
        ok(write(lab, member, memory))
    before = stored(neo4j_target, memory)
    error = refused(write(lab, member, memory), "records", "UHP_QUOTA_RECORDS")
    assert f"{RECORDS} records" in error["message"], error
    assert error["detail"] | {"quota": RECORDS, "held": RECORDS, "adding": 1} == error["detail"]
    assert stored(neo4j_target, memory) == before == (RECORDS, RECORDS)
    assert usage(operator, member)["records"] == RECORDS


def test_content_past_the_bytes_quota_is_refused_on_remember_and_on_revise(
    lab: Lab, operator: Admin, neo4j_target: Neo4jTarget
) -> None:
    member = operator.member()
    memory = lab.memory(member)
    first = ok(write(lab, member, memory, 2000))
    held = usage(operator, member)["content_bytes"]
    assert 2000 < held < 2100, "a version counts its content and attributes as stored"
    before = stored(neo4j_target, memory)
    error = refused(write(lab, member, memory, 1500), "content_bytes", "UHP_QUOTA_CONTENT_BYTES")
    assert f"{CONTENT_BYTES} bytes" in error["message"] and error["detail"]["held"] == held, error
    revised = lab.patch(member, memory, first["id"], {"content": note(1500)})
    refused(revised, "content_bytes", "UHP_QUOTA_CONTENT_BYTES")
    assert stored(neo4j_target, memory) == before == (1, 1), "neither the record nor the version was written"
    assert usage(operator, member)["content_bytes"] == held
    ok(lab.patch(member, memory, first["id"], {"content": note(500)}))  # within the quota: a version more
    assert stored(neo4j_target, memory) == (1, 2)


def test_a_memory_past_the_memories_quota_is_refused_and_not_created(
    lab: Lab, operator: Admin, neo4j_target: Neo4jTarget
) -> None:
    member = operator.member()
    for _ in range(MEMORIES):
        lab.memory(member)
    name = tag()
    reply = lab.client.post("/v1/memories", json={"name": name}, headers=member.headers)
    error = refused(reply, "memories", "UHP_QUOTA_MEMORIES")
    assert f"{MEMORIES} memories" in error["message"], error
    assert not cypher(neo4j_target, "MATCH (m:Memory {name: $name}) RETURN m.id AS id", name=name)
    assert usage(operator, member)["memories"] == MEMORIES


def test_a_root_memory_quota_refuses_a_second_member_writing_into_its_tree(
    lab: Lab, operator: Admin, neo4j_target: Neo4jTarget
) -> None:
    alice, bob = operator.member(), operator.member()
    root = lab.memory(alice)
    child = lab.memory(alice, parent_id=root)
    lab.grant(alice, root, bob, "read", "write")
    for _ in range(RECORDS):
        ok(write(lab, alice, root))
    ok(write(lab, bob, child))
    ok(write(lab, bob, root))
    before = stored(neo4j_target, child)
    error = refused(write(lab, bob, child), "root_records", "UHP_QUOTA_ROOT_RECORDS")
    assert root in error["message"] and error["detail"]["root_id"] == root, error
    assert error["detail"] | {"quota": ROOT_RECORDS, "held": ROOT_RECORDS} == error["detail"]
    assert stored(neo4j_target, child) == before
    assert usage(operator, bob)["records"] == 2, "bob's own quota has room: the tree's is what refused"


def test_an_erase_and_a_delete_give_back_what_they_removed(lab: Lab, operator: Admin) -> None:
    member = operator.member()
    memory = lab.memory(member)
    written = [ok(write(lab, member, memory))["id"] for _ in range(RECORDS)]
    refused(write(lab, member, memory), "records", "UHP_QUOTA_RECORDS")
    full = usage(operator, member)
    erased = lab.client.post(
        f"/v1/memories/{memory}/erase", json={"record_ids": written[:1]}, headers=member.headers
    )
    assert ok(erased)["erased"] == written[:1]
    after = usage(operator, member)
    assert after["records"] == RECORDS - 1 and after["content_bytes"] < full["content_bytes"]
    ok(write(lab, member, memory))  # room again
    lab.typed(member).delete_memory(memory)
    assert usage(operator, member) | {"records": 0, "content_bytes": 0, "memories": 0} == usage(
        operator, member
    )


def test_the_admin_route_shows_a_members_usage_and_the_quotas(lab: Lab, operator: Admin) -> None:
    member = operator.member()
    memory = lab.memory(member)
    ok(write(lab, member, memory))
    shown = usage(operator, member)
    assert shown["object"] == "memory.usage" and shown["principal"] == member.principal
    assert shown["records"] == 1 and shown["memories"] == 1 and shown["content_bytes"] > 0
    assert shown["quotas"] == {
        "records": RECORDS,
        "content_bytes": CONTENT_BYTES,
        "memories": MEMORIES,
        "root_records": ROOT_RECORDS,
        "root_content_bytes": ROOT_CONTENT_BYTES,
    }
    unknown = operator.client.get("/v1/admin/members/hmbr_nobody/usage", headers=operator.headers)
    assert_error(unknown, 404, "member_not_found")
    as_member = operator.client.get(f"/v1/admin/members/{member.id}/usage", headers=member.headers)
    assert_error(as_member, 401, "invalid_credential")


def test_data_written_before_quotas_is_counted_once_at_start_up(
    lab: Lab, operator: Admin, neo4j_target: Neo4jTarget
) -> None:
    member = operator.member()
    root = lab.memory(member)
    child = lab.memory(member, parent_id=root)
    first = ok(write(lab, member, child, 200))
    ok(lab.patch(member, child, first["id"], {"content": note(300)}))
    ok(write(lab, member, root))
    counted = usage(operator, member)
    tree = "MATCH (m:Memory {id: $id}) RETURN m.tree_records AS records, m.tree_bytes AS bytes"
    before = cypher(neo4j_target, tree, id=root)
    # As a database written before quotas holds it: no counters, no charge on the versions.
    cypher(
        neo4j_target,
        "MATCH (u:Usage {principal: $principal}) DETACH DELETE u "
        "WITH 1 AS one MATCH (m:Memory) WHERE m.id IN $ids "
        "REMOVE m.charged_to, m.held_records, m.held_bytes, m.tree_records, m.tree_bytes "
        "WITH 1 AS one MATCH (v:RecordVersion) WHERE v.memory_id IN $ids "
        "REMOVE v.charged_to, v.charged_bytes, v.charged_records "
        "WITH 1 AS one MATCH (f:UsageFill) DELETE f",
        principal=member.principal,
        ids=[root, child],
    )
    services: Any = lab.client.app.state.services  # type: ignore[attr-defined]
    assert lab.client.portal is not None
    lab.client.portal.call(apply_schema, services.store, services.embedder.dimension)
    assert usage(operator, member) == counted
    assert cypher(neo4j_target, tree, id=root) == before
    lab.client.portal.call(apply_schema, services.store, services.embedder.dimension)
    assert usage(operator, member) == counted, "a second start-up counts nothing again"
