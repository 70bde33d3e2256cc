"""Leases and the sweeper, on the real Neo4j: nothing acknowledged lost, nothing done twice, nothing stuck.

A process dying mid-request is stood in for by putting the store where that death would leave it
(a key still `pending` with its lease run out, an erase's records gone but its file note unswept),
then checking what the next request, or the sweeper, makes of it.
"""

from __future__ import annotations

import hashlib
import os
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from provider import ids
from provider.config import Settings
from tests.api.lifecycle_support import cypher
from tests.api.records_support import Lab, assert_error, ok, tag
from tests.conftest import Admin, Member
from tests.neo4j_target import Neo4jTarget


@pytest.fixture
def lab(client: TestClient) -> Iterator[Lab]:
    tracker = Lab(client)
    yield tracker
    tracker.cleanup()


def keyed(lab: Lab, who: Member, memory_id: str, body: dict[str, Any], key: str) -> Any:
    headers = {**who.headers, "Idempotency-Key": key}
    return lab.client.post(f"/v1/memories/{memory_id}/records", json=body, headers=headers)


def services_of(client: TestClient) -> Any:
    return client.app.state.services  # type: ignore[attr-defined]


def call(client: TestClient, work: Any) -> Any:
    portal = client.portal
    assert portal is not None, "the app runs inside the TestClient's portal"
    return portal.call(work)


# -- idempotency at the service level ------------------------------------------------------------


def test_a_retry_after_the_first_owner_died_mid_request_writes_once(
    lab: Lab, alice: Member, neo4j_target: Neo4jTarget
) -> None:
    """The first attempt's write committed, its answer was never stored: the retry finds that write."""
    memory_id = lab.memory(alice)
    key = f"k-{tag()}"
    first = ok(keyed(lab, alice, memory_id, {"content": "written once"}, key))
    # Where a SIGKILL between the commit and storing the answer leaves the key.
    cypher(
        neo4j_target,
        "MATCH (k:IdempotencyKey) WHERE k.body CONTAINS $id "
        "SET k.state = 'pending', k.status = null, k.body = null, k.claimed = 'dead', k.lease_until = 0",
        id=first["id"],
    )
    retried = keyed(lab, alice, memory_id, {"content": "written once"}, key)
    assert ok(retried)["id"] == first["id"]
    assert "Idempotent-Replayed" not in retried.headers
    assert lab.listed(alice, memory_id) == [first["id"]]
    replayed = keyed(lab, alice, memory_id, {"content": "written once"}, key)
    assert replayed.headers["Idempotent-Replayed"] == "true" and replayed.json()["id"] == first["id"]


def test_a_key_under_a_live_lease_is_waited_for_not_taken(
    lab: Lab, alice: Member, neo4j_target: Neo4jTarget, client: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    memory_id = lab.memory(alice)
    key = f"k-{tag()}"
    first = ok(keyed(lab, alice, memory_id, {"content": "still running"}, key))
    cypher(
        neo4j_target,
        "MATCH (k:IdempotencyKey) WHERE k.body CONTAINS $id "
        "SET k.state = 'pending', k.claimed = 'alive', k.lease_until = $later",
        id=first["id"],
        later=ids.now_ms() + 60_000,
    )
    monkeypatch.setattr(services_of(client).idempotency, "wait_seconds", 0.3)
    assert_error(keyed(lab, alice, memory_id, {"content": "still running"}, key), 409, "memory_busy")
    assert lab.listed(alice, memory_id) == [first["id"]]


def test_a_key_belongs_to_the_principal_not_to_the_credential(lab: Lab, alice: Member, admin: Admin) -> None:
    memory_id = lab.memory(alice)
    key = f"k-{tag()}"
    first = ok(keyed(lab, alice, memory_id, {"content": "once"}, key))
    issued = ok(lab.client.post(f"/v1/admin/members/{alice.id}/keys", json={}, headers=admin.headers))
    rotated = Member(id=alice.id, key=issued["key"], type=alice.type)
    again = keyed(lab, rotated, memory_id, {"content": "once"}, key)
    assert again.headers["Idempotent-Replayed"] == "true" and again.json()["id"] == first["id"]


def test_a_replay_is_not_shown_to_a_caller_who_lost_the_privilege(
    lab: Lab, alice: Member, bob: Member
) -> None:
    memory_id = lab.memory(alice)
    lab.grant(alice, memory_id, bob, "write")
    key = f"k-{tag()}"
    ok(keyed(lab, bob, memory_id, {"content": "bob's note"}, key))
    grants = ok(lab.client.get(f"/v1/memories/{memory_id}/grants", headers=alice.headers))["data"]
    bobs = next(g for g in grants if g["principal"] == bob.principal)
    ok(lab.client.delete(f"/v1/memories/{memory_id}/grants/{bobs['id']}", headers=alice.headers))
    refused = keyed(lab, bob, memory_id, {"content": "bob's note"}, key)
    assert_error(refused, 404, "memory_not_found")
    assert "Idempotent-Replayed" not in refused.headers


def test_reads_are_not_kept_as_writes(lab: Lab, alice: Member) -> None:
    memory_id = lab.memory(alice)
    lab.remember(alice, memory_id, content="Quillon renews in March")
    headers = {**alice.headers, "Idempotency-Key": f"k-{tag()}"}
    for _ in range(2):
        answer = lab.client.post(
            f"/v1/memories/{memory_id}/recall", json={"text": "Quillon"}, headers=headers
        )
        assert ok(answer)["results"] and "Idempotent-Replayed" not in answer.headers
    lab.remember(alice, memory_id, content="Quillon moved to April")
    answer = lab.client.post(f"/v1/memories/{memory_id}/recall", json={"text": "Quillon"}, headers=headers)
    assert len(ok(answer)["results"]) == 2


def test_a_new_key_is_never_kept_for_a_replay(
    client: TestClient, admin: Admin, alice: Member, neo4j_target: Neo4jTarget
) -> None:
    key = f"k-{tag()}"
    headers = {**admin.headers, "Idempotency-Key": key}
    path = f"/v1/admin/members/{alice.id}/keys"
    first = ok(client.post(path, json={}, headers=headers))
    again = client.post(path, json={}, headers=headers)
    error = assert_error(again, 409, "uhp_memory.shown_once")
    assert again.headers["Idempotent-Replayed"] == "true" and "revoke" in error["message"]
    stored = cypher(
        neo4j_target,
        "MATCH (k:IdempotencyKey) WHERE k.body CONTAINS $secret RETURN count(k) AS n",
        secret=first["key"],
    )
    assert stored[0]["n"] == 0


# -- erase, memory delete and file bytes -----------------------------------------------------------


def upload(client: TestClient, who: Member, data: bytes) -> dict[str, Any]:
    answer = client.post("/v1/files", files={"file": ("note.txt", data, "text/plain")}, headers=who.headers)
    return dict(ok(answer))


def blob_path(settings: Settings, data: bytes) -> Path:
    digest = hashlib.sha256(data).hexdigest()
    return Path(settings.file.dir) / digest[:2] / digest


def erased_alone(client: TestClient, records: Any, memory_id: str, record_id: str) -> None:
    """The store's side of an erase (its note, then its one batch), with nothing after: a crash there."""

    async def erase() -> None:
        note = await records.erase_begin(memory_id, [record_id], [record_id], ids.now_ms())
        await records.erase(note, [record_id], ids.now_ms())

    assert client.portal is not None
    client.portal.call(erase)


def test_an_erase_cut_off_after_its_records_went_is_finished_by_its_retry(
    lab: Lab, alice: Member, client: TestClient, settings: Settings
) -> None:
    memory_id = lab.memory(alice)
    data = f"bytes only this record holds {tag()}".encode()
    file = upload(client, alice, data)
    record = lab.remember(
        alice, memory_id, content=[{"type": "file", "file": {"id": file["id"]}, "text": "a note"}]
    )
    assert blob_path(settings, data).exists()
    records = services_of(client).erase.records
    # Where a crash right after the erase's transaction leaves things: records gone, bytes kept.
    erased_alone(client, records, memory_id, record["id"])
    assert blob_path(settings, data).exists()
    retried = lab.client.post(f"/v1/memories/{memory_id}/erase", json={"record_ids": [record["id"]]},
                              headers=alice.headers)  # fmt: skip
    assert ok(retried)["erased"] == [record["id"]]
    assert not blob_path(settings, data).exists()
    assert_error(lab.read(alice, memory_id, record["id"]), 404, "memory_record_not_found")


def test_the_sweeper_removes_bytes_an_erase_left_when_no_retry_comes(
    lab: Lab, alice: Member, client: TestClient, settings: Settings, neo4j_target: Neo4jTarget
) -> None:
    memory_id = lab.memory(alice)
    data = f"left behind by a dead process {tag()}".encode()
    file = upload(client, alice, data)
    record = lab.remember(
        alice,
        memory_id,
        content=[{"type": "file", "file": {"id": file["id"]}}, {"type": "text", "text": "w"}],
    )
    records = services_of(client).erase.records
    erased_alone(client, records, memory_id, record["id"])
    aged = "MATCH (s:FileSweep) WHERE any(c IN s.contents WHERE c CONTAINS $id) SET s.created_at = 0"
    cypher(neo4j_target, aged, id=file["id"])
    swept = call(client, services_of(client).sweeper.sweep)
    assert swept.file_notes >= 1
    assert not blob_path(settings, data).exists()


def test_deleting_a_memory_removes_bytes_no_remaining_record_holds(
    lab: Lab, alice: Member, client: TestClient, settings: Settings
) -> None:
    doomed = lab.memory(alice)
    child = lab.memory(alice, parent_id=doomed)
    kept = lab.memory(alice)
    alone, shared = f"only here {tag()}".encode(), f"shared {tag()}".encode()
    alone_file, shared_file = upload(client, alice, alone), upload(client, alice, shared)
    lab.remember(alice, child, content=[{"type": "file", "file": {"id": alone_file["id"]}}])
    lab.remember(alice, doomed, content=[{"type": "file", "file": {"id": shared_file["id"]}}])
    survivor = lab.remember(alice, kept, content=[{"type": "file", "file": {"id": shared_file["id"]}}])
    ok(lab.client.delete(f"/v1/memories/{doomed}", headers=alice.headers))
    assert not blob_path(settings, alone).exists()
    assert blob_path(settings, shared).exists()
    part = lab.client.get(f"/v1/memories/{kept}/records/{survivor['id']}/content/0", headers=alice.headers)
    assert part.status_code == 200 and part.content == shared


# -- the sweeper -------------------------------------------------------------------------------


def test_the_sweeper_clears_expired_keys_dead_runs_and_stale_uploads(
    lab: Lab, alice: Member, client: TestClient, settings: Settings, neo4j_target: Neo4jTarget
) -> None:
    memory_id = lab.memory(alice)
    ok(keyed(lab, alice, memory_id, {"content": "old"}, f"k-{tag()}"))
    cypher(
        neo4j_target, "MATCH (k:IdempotencyKey) WHERE k.body CONTAINS $m SET k.created_at = 0", m=memory_id
    )
    run_id = f"hcon_{tag()}"
    cypher(
        neo4j_target,
        "MATCH (m:Memory {id: $m}) CREATE (:Consolidation {id: $id, memory_id: $m, status: 'running',"
        " started_at: 0, lease_until: 0})-[:IN]->(m)",
        id=run_id,
        m=memory_id,
    )
    incoming = Path(settings.file.dir) / "incoming"
    incoming.mkdir(parents=True, exist_ok=True)
    stale, fresh = incoming / f"upload-stale-{tag()}", incoming / f"upload-fresh-{tag()}"
    for leftover in (stale, fresh):
        leftover.write_bytes(b"half an upload")
    hours_ago = time.time() - 7200
    os.utime(stale, (hours_ago, hours_ago))
    swept = call(client, services_of(client).sweeper.sweep)
    assert swept.keys >= 1 and swept.runs >= 1 and swept.uploads >= 1
    left = cypher(
        neo4j_target, "MATCH (k:IdempotencyKey) WHERE k.body CONTAINS $m RETURN count(k) AS n", m=memory_id
    )
    assert left[0]["n"] == 0
    runs = ok(lab.client.get(f"/v1/memories/{memory_id}/consolidations", headers=alice.headers))["data"]
    assert [r["status"] for r in runs if r["id"] == run_id] == ["failed"]
    assert not stale.exists() and fresh.exists()
    fresh.unlink()
