"""Export and restore of a subtree (docs/EXPORT.md): a round trip through the real Neo4j and blob store.

The same database serves both sides: the exported tree is deleted, then restored under another root,
so every id is free again as it would be in a fresh deployment.
"""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest
from fastapi.testclient import TestClient

from tests.api.export_support import QUESTIONS, build, exported, members, readback, restore
from tests.api.records_support import Lab, assert_error, ok
from tests.conftest import Admin, Member


@pytest.fixture
def lab(client: TestClient) -> Iterator[Lab]:
    tracker = Lab(client)
    yield tracker
    tracker.cleanup()


def test_a_tree_round_trips_byte_for_byte(lab: Lab, alice: Member, bob: Member) -> None:
    tree = build(lab, alice, bob)
    before = readback(lab, alice, tree)
    assert before["file"] == tree.file_bytes and len(before[QUESTIONS[0]]) > 0
    archive = exported(lab, alice, tree.root)
    ok(lab.client.delete(f"/v1/memories/{tree.root}", headers=alice.headers))
    assert lab.read(alice, tree.root, next(iter(tree.records))).status_code == 404
    target = lab.memory(alice)

    answer = ok(restore(lab, alice, target, archive))
    assert answer["root"] == tree.root and answer["withheld"] is True
    assert answer["created"]["memories"] == 2 and answer["created"]["records"] == len(tree.records)
    assert answer["created"]["versions"] == len(tree.records) + 2  # two revisions
    assert answer["created"]["files"] == 1 and answer["created"]["snapshots"] == 1
    moved = ok(lab.client.get(f"/v1/memories/{tree.root}", headers=alice.headers))
    assert moved["parent_id"] == target
    assert readback(lab, alice, tree) == before


def test_the_manifest_counts_and_checks_every_member(lab: Lab, alice: Member, bob: Member) -> None:
    tree = build(lab, alice, bob)
    files = members(exported(lab, alice, tree.root))
    manifest = json.loads(files.pop("manifest.json"))
    assert manifest["format"] == "uhp-memory-archive" and manifest["format_version"] == 1
    assert manifest["counts"]["records"] == len(tree.records) and manifest["counts"]["files"] == 1
    assert set(manifest["members"]) == set(files)
    assert f"blobs/{manifest['members'][next(n for n in files if n.startswith('blobs/'))]['sha256']}" in files


def test_a_restricted_branch_stays_out_and_is_flagged(lab: Lab, alice: Member, bob: Member) -> None:
    tree = build(lab, alice, bob)
    archive = exported(lab, alice, tree.root)
    manifest = json.loads(members(archive)["manifest.json"])
    assert manifest["withheld"] is True
    assert tree.hidden.encode() not in archive and tree.secret.encode() not in archive
    assert tree.erased.encode() not in archive
    # Bob reads the whole tree (his branch too): nothing is withheld from him.
    assert json.loads(members(exported(lab, bob, tree.root))["manifest.json"])["withheld"] is False


def test_grants_travel_only_where_the_exporter_holds_delete(lab: Lab, alice: Member, bob: Member) -> None:
    tree = build(lab, alice, bob)
    of_alice = members(exported(lab, alice, tree.root))["grants/000001.jsonl"].decode().splitlines()
    assert {json.loads(line)["principal"] for line in of_alice} >= {alice.principal, bob.principal}
    lines = members(exported(lab, bob, tree.root))["grants/000001.jsonl"].splitlines()
    of_bob = [json.loads(line) for line in lines]
    assert {g["memory_id"] for g in of_bob} == {tree.hidden}  # bob holds delete only on his own branch


def test_a_retry_writes_nothing_twice(lab: Lab, alice: Member, bob: Member) -> None:
    tree = build(lab, alice, bob)
    archive = exported(lab, alice, tree.root)
    ok(lab.client.delete(f"/v1/memories/{tree.root}", headers=alice.headers))
    target = lab.memory(alice)
    first = ok(restore(lab, alice, target, archive))
    again = ok(restore(lab, alice, target, archive))
    assert all(count == 0 for kind, count in again["created"].items() if kind != "file_bytes")
    assert again["present"]["records"] == first["created"]["records"]
    assert again["present"]["memories"] == 2
    for record_id, memory_id in tree.records.items():
        assert len(lab.history(alice, memory_id, record_id)) >= 1
    assert len(lab.listed(alice, tree.root, include="all")) == 2
    assert len(lab.listed(alice, tree.child)) == 3


def test_a_clash_is_refused_with_409(lab: Lab, alice: Member, bob: Member) -> None:
    tree = build(lab, alice, bob)
    archive = exported(lab, alice, tree.root)
    elsewhere = lab.memory(alice)
    # The tree is still there, below another parent: the same id with a different place.
    assert_error(restore(lab, alice, elsewhere, archive), 409, "uhp_memory.restore_clash")
    error = assert_error(restore(lab, alice, elsewhere, archive), 409, "uhp_memory.restore_clash")
    assert error["detail"] == {"kind": "memory", "id": tree.root}
    assert lab.listed(alice, elsewhere) == []


def test_a_changed_record_clashes(lab: Lab, alice: Member, bob: Member) -> None:
    tree = build(lab, alice, bob)
    archive = exported(lab, alice, tree.root)
    ok(lab.client.delete(f"/v1/memories/{tree.root}", headers=alice.headers))
    target = lab.memory(alice)
    ok(restore(lab, alice, target, archive))
    record_id = next(r for r, m in tree.records.items() if m == tree.child)
    lab.revise(alice, tree.child, record_id, content="Changed after the restore.")
    error = assert_error(restore(lab, alice, target, archive), 409, "uhp_memory.restore_clash")
    assert error["detail"] == {"kind": "record", "id": record_id}


def test_without_read_the_memory_is_unknown(lab: Lab, alice: Member, admin: Admin) -> None:
    memory = lab.memory(alice)
    stranger = admin.member()
    forbidden = lab.client.get(f"/v1/memories/{memory}/export", headers=stranger.headers)
    unknown = lab.client.get(
        "/v1/memories/hmem_00000000000000000000000000000000/export", headers=alice.headers
    )
    assert_error(forbidden, 404, "memory_not_found")
    assert_error(unknown, 404, "memory_not_found")
    assert forbidden.json()["error"]["message"] == unknown.json()["error"]["message"]


def test_restore_needs_create_and_a_sound_archive(lab: Lab, alice: Member, bob: Member) -> None:
    memory = lab.memory(alice)
    archive = exported(lab, alice, memory)
    lab.grant(alice, memory, bob, "read")
    assert_error(restore(lab, bob, memory, archive), 403, "memory_forbidden")
    assert_error(restore(lab, alice, memory, b"not a tar at all" * 64), 422, "memory_invalid")
    broken = archive.replace(b'"format_version":1', b'"format_version":9', 1)
    assert_error(restore(lab, alice, memory, broken), 422, "memory_invalid")
