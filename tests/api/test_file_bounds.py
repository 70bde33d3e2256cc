"""Files are bounded: a quota per uploader, uploads no record names reclaimed, bytes served inert.

The quota tests run on an app of their own with a small quota (a few hundred bytes, three files), on
the suite's Neo4j with a file directory of its own. The orphan sweep is driven by hand; its grace is
an hour, and a test ages its own uploads past it in Neo4j rather than waiting: a grace of zero would
let this app reclaim what other tests on the same database uploaded a moment ago.
"""

from __future__ import annotations

import hashlib
import threading
from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient

from provider import ids
from provider.api.app import create_app
from provider.config import Settings
from provider.embeddings import OnnxEmbedder
from tests.api.lifecycle_support import cypher
from tests.api.records_support import Lab, Reply, assert_error, ok, tag
from tests.conftest import Admin, Member
from tests.neo4j_target import Neo4jTarget

QUOTA_BYTES = 1000
QUOTA_FILES = 3
GRACE_SECONDS = 3600


@pytest.fixture(scope="module")
def bounded(
    settings: Settings, embedder: OnnxEmbedder, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[TestClient]:
    """An app whose uploaders may hold 1000 bytes in 3 files, reclaimed when unnamed for an hour."""
    small = settings.changed(
        file_quota_bytes=QUOTA_BYTES,
        file_quota_files=QUOTA_FILES,
        file_orphan_grace_seconds=GRACE_SECONDS,
        file_dir=tmp_path_factory.mktemp("bounded-files"),
    )
    with TestClient(create_app(small, embedder=embedder)) as test_client:
        yield test_client


@pytest.fixture
def lab(bounded: TestClient) -> Iterator[Lab]:
    tracker = Lab(bounded)
    yield tracker
    tracker.cleanup()


def upload(
    client: TestClient, who: Member, data: bytes, name: str = "a.txt", media: str = "text/plain"
) -> Reply:
    return client.post("/v1/files", files={"file": (name, data, media)}, headers=who.headers)


def uploaded(
    client: TestClient, who: Member, data: bytes, name: str = "a.txt", media: str = "text/plain"
) -> str:
    return str(ok(upload(client, who, data, name, media))["id"])


def unique(size: int) -> bytes:
    """Bytes no other test uploads (file bytes are kept by content)."""
    return (tag() * (size // 10 + 1)).encode()[:size]


def kept(client: TestClient, data: bytes) -> bool:
    blobs = client.app.state.services.files.blobs  # type: ignore[attr-defined]
    return bool(blobs.exists(hashlib.sha256(data).hexdigest()))


def recorded(target: Neo4jTarget, file_id: str) -> bool:
    """Whether the file's metadata is still in Neo4j."""
    return bool(cypher(target, "MATCH (f:File {id: $id}) RETURN f.id AS id", id=file_id))


def age(target: Neo4jTarget, *file_ids: str) -> None:
    """Moves uploads two hours into the past, past the app's grace of one."""
    then = ids.now_ms() - 2 * GRACE_SECONDS * 1000
    cypher(
        target, "MATCH (f:File) WHERE f.id IN $ids SET f.created_at = $then", ids=list(file_ids), then=then
    )


def sweep(client: TestClient) -> Any:
    """One pass of the app's sweeper, run now."""
    portal = client.portal
    assert portal is not None
    services: Any = client.app.state.services  # type: ignore[attr-defined]
    return portal.call(services.sweeper.sweep)


def file_part(file_id: str) -> list[dict[str, Any]]:
    return [{"type": "file", "file": {"id": file_id}}]


# -- the quota ----------------------------------------------------------------------------------


def test_an_upload_past_the_byte_quota_is_refused_naming_the_limit(bounded: TestClient, admin: Admin) -> None:
    member = admin.member()  # no grant anywhere: the quota is what bounds it
    uploaded(bounded, member, unique(600))
    refused = unique(500)
    error = assert_error(upload(bounded, member, refused), 429, "quota_exhausted")
    assert str(QUOTA_BYTES) in error["message"], error
    assert error["detail"]["quota_bytes"] == QUOTA_BYTES and error["detail"]["held_bytes"] == 600
    assert not kept(bounded, refused), "refused bytes are not kept"
    uploaded(bounded, member, unique(400))  # exactly at the quota
    assert_error(upload(bounded, member, b"x"), 429, "quota_exhausted")
    uploaded(bounded, admin.member(), unique(600))  # another uploader has a quota of its own


def test_an_upload_past_the_file_quota_is_refused_naming_the_limit(bounded: TestClient, admin: Admin) -> None:
    member = admin.member()
    for _ in range(QUOTA_FILES):
        uploaded(bounded, member, unique(10))
    error = assert_error(upload(bounded, member, unique(10)), 429, "quota_exhausted")
    assert f"{QUOTA_FILES} files" in error["message"], error
    assert error["detail"]["quota_files"] == QUOTA_FILES and error["detail"]["held_files"] == QUOTA_FILES


def test_parallel_uploads_do_not_pass_the_quota_together(bounded: TestClient, admin: Admin) -> None:
    member = admin.member()
    statuses: list[int] = []
    lock = threading.Lock()

    def one() -> None:
        status = upload(bounded, member, unique(10)).status_code
        with lock:
            statuses.append(status)

    workers = [threading.Thread(target=one) for _ in range(8)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join(60)
    assert sorted(statuses) == [200] * QUOTA_FILES + [429] * (8 - QUOTA_FILES), statuses


def test_an_erase_gives_the_quota_back(lab: Lab, admin: Admin) -> None:
    member = admin.member()
    memory_id = lab.memory(member)
    named = uploaded(lab.client, member, unique(10))
    for _ in range(QUOTA_FILES - 1):
        uploaded(lab.client, member, unique(10))
    assert_error(upload(lab.client, member, unique(10)), 429, "quota_exhausted")
    record = lab.remember(member, memory_id, content=file_part(named))
    ok(
        lab.client.post(
            f"/v1/memories/{memory_id}/erase", json={"record_ids": [record["id"]]}, headers=member.headers
        )
    )
    uploaded(lab.client, member, unique(10))


# -- the orphan sweep ---------------------------------------------------------------------------


def test_a_reclaimed_orphan_gives_the_quota_back(
    bounded: TestClient, admin: Admin, neo4j_target: Neo4jTarget
) -> None:
    member = admin.member()
    data = [unique(300) for _ in range(QUOTA_FILES)]
    orphans = [uploaded(bounded, member, piece) for piece in data]
    assert_error(upload(bounded, member, unique(10)), 429, "quota_exhausted")
    age(neo4j_target, *orphans)
    assert sweep(bounded).orphans >= QUOTA_FILES
    assert not any(recorded(neo4j_target, file_id) for file_id in orphans)
    assert not any(kept(bounded, piece) for piece in data)
    uploaded(bounded, member, unique(900))


def test_the_sweep_reclaims_only_what_no_version_names_past_the_grace(
    lab: Lab, admin: Admin, neo4j_target: Neo4jTarget
) -> None:
    member = admin.member()
    memory_id = lab.memory(member)
    orphan_bytes, current_bytes, older_bytes, fresh_bytes = (unique(50) for _ in range(4))
    orphan = uploaded(lab.client, member, orphan_bytes)
    current = uploaded(lab.client, member, current_bytes)
    older = uploaded(lab.client, member, older_bytes)
    record = lab.remember(member, memory_id, content=file_part(current) + file_part(older))
    lab.revise(member, memory_id, record["id"], content=file_part(current))  # `older` only in version 1
    fresh = uploaded(lab.client, admin.member(), fresh_bytes)  # within the grace (a quota of its own)
    age(neo4j_target, orphan, current, older)
    assert sweep(lab.client).orphans >= 1
    assert not recorded(neo4j_target, orphan) and not kept(lab.client, orphan_bytes)
    for file_id, data in ((current, current_bytes), (older, older_bytes), (fresh, fresh_bytes)):
        assert recorded(neo4j_target, file_id) and kept(lab.client, data), file_id
    part = lab.client.get(f"{lab.path(memory_id, record['id'])}/content/0", headers=member.headers)
    assert part.status_code == 200 and part.content == current_bytes


def test_a_file_named_before_names_were_marked_is_never_reclaimed(
    lab: Lab, admin: Admin, neo4j_target: Neo4jTarget
) -> None:
    member = admin.member()
    memory_id = lab.memory(member)
    data = unique(50)
    file_id = uploaded(lab.client, member, data)
    lab.remember(member, memory_id, content=file_part(file_id))
    # As a file kept before this version: never marked named, so the sweep must read the versions.
    cypher(neo4j_target, "MATCH (f:File {id: $id}) SET f:Unnamed REMOVE f.named_at", id=file_id)
    age(neo4j_target, file_id)
    sweep(lab.client)
    assert recorded(neo4j_target, file_id) and kept(lab.client, data)
    labels = cypher(neo4j_target, "MATCH (f:File {id: $id}) RETURN labels(f) AS labels", id=file_id)
    assert labels == [{"labels": ["File"]}], "let go for good"
    lab.remember(member, memory_id, content=file_part(file_id))


def test_a_claimed_orphan_cannot_be_named(lab: Lab, admin: Admin, neo4j_target: Neo4jTarget) -> None:
    member = admin.member()
    memory_id = lab.memory(member)
    file_id = uploaded(lab.client, member, unique(50))
    cypher(neo4j_target, "MATCH (f:File {id: $id}) SET f.reclaiming_at = 1", id=file_id)
    error = assert_error(lab.post(member, memory_id, {"content": file_part(file_id)}), 422, "memory_invalid")
    assert error["param"] == "content.0.file.id"
    assert lab.listed(member, memory_id) == []


# -- bytes served inert -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "media", "data"),
    [
        ("page.html", "text/html", b"<html><script>alert(document.cookie)</script></html>"),
        (
            "pic.svg",
            "image/svg+xml",
            b'<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>',
        ),
    ],
)
def test_stored_markup_is_served_as_an_inert_download(
    client: TestClient, alice: Member, name: str, media: str, data: bytes
) -> None:
    lab = Lab(client)
    try:
        memory_id = lab.memory(alice)
        file_id = uploaded(client, alice, data + tag().encode(), name, media)
        record = lab.remember(alice, memory_id, content=[*file_part(file_id), {"type": "text", "text": "w"}])
        for index in (0, 1):
            served = client.get(f"{lab.path(memory_id, record['id'])}/content/{index}", headers=alice.headers)
            assert served.status_code == 200, served.text
            assert served.headers["x-content-type-options"] == "nosniff"
            policy = served.headers["content-security-policy"]
            assert "sandbox" in policy and "default-src 'none'" in policy, policy
            assert served.headers["content-disposition"].startswith("attachment"), served.headers
        first = client.get(f"{lab.path(memory_id, record['id'])}/content/0", headers=alice.headers)
        assert first.headers["content-type"].startswith(media)
        assert f"filename*=UTF-8''{name}" in first.headers["content-disposition"]
    finally:
        lab.cleanup()
