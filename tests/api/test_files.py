"""Files over HTTP: upload, file parts completed from our own store, byte-exact reads, media refusals.

Every test runs twice: with file bytes in a local directory (one instance) and in an S3-compatible
store (S3Proxy, as several instances share one), through an app built from each setting.
"""

from __future__ import annotations

import fnmatch
import hashlib
import os
from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient

from tests.api.records_support import PNG, Lab, Reply, assert_error, ok, validate
from tests.conftest import Admin, Member

REFUSED_TYPE = "application/x-msdownload"


@pytest.fixture(params=["directory", "s3"])
def served(request: pytest.FixtureRequest) -> TestClient:
    """The app whose file bytes live in the store the parameter names."""
    app: TestClient = request.getfixturevalue("client" if request.param == "directory" else "s3_client")
    return app


@pytest.fixture
def lab(served: TestClient) -> Iterator[Lab]:
    tracker = Lab(served)
    yield tracker
    tracker.cleanup()


def upload(client: TestClient, who: Member, data: bytes, name: str, media_type: str) -> Reply:
    """POST /v1/files as multipart, the way the suite does."""
    return client.post(
        "/v1/files",
        data={"purpose": "user_data"},
        files={"file": (name, data, media_type)},
        headers=who.headers,
    )


def uploaded(client: TestClient, who: Member, data: bytes, name: str, media_type: str) -> dict[str, Any]:
    """An upload that must succeed, checked against `File`."""
    body = ok(upload(client, who, data, name, media_type))
    validate("File", body)
    return body


def dot_record(file_id: str) -> dict[str, Any]:
    """ME-09's record: a text part, then a file part whose name, type and size are forged."""
    forged = {"id": file_id, "name": "forged.bin", "media_type": "application/x-forged", "bytes": 1}
    return {
        "type": "note",
        "content": [
            {"type": "text", "text": "A dot."},
            {"type": "file", "file": forged, "text": "A single black dot on white."},
        ],
    }


def part(client: TestClient, who: Member, memory_id: str, record_id: str, index: int) -> Reply:
    return client.get(f"/v1/memories/{memory_id}/records/{record_id}/content/{index}", headers=who.headers)


def test_an_upload_answers_the_file(served: TestClient, alice: Member) -> None:
    body = uploaded(served, alice, PNG, "dot.png", "image/png")
    assert body["id"].startswith("file_") and body["object"] == "file"
    assert (body["filename"], body["bytes"], body["media_type"]) == ("dot.png", 24, "image/png")
    assert body["purpose"] == "user_data" and isinstance(body["created_at"], int)


def test_an_upload_needs_a_key_and_a_file(served: TestClient, alice: Member) -> None:
    assert_error(
        served.post("/v1/files", files={"file": ("a.txt", b"a", "text/plain")}), 401, "invalid_credential"
    )
    response = served.post("/v1/files", data={"purpose": "user_data"}, headers=alice.headers)
    assert response.status_code == 422, response.text


def test_a_file_part_is_completed_from_the_store_and_read_back_exactly(
    lab: Lab, alice: Member, bob: Member, admin: Admin
) -> None:
    memory_id = lab.memory(alice)
    file_id = uploaded(lab.client, alice, PNG, "dot.png", "image/png")["id"]
    record = ok(lab.post(alice, memory_id, dot_record(file_id)))
    validate("MemoryRecord", record)
    expected_part = {
        "type": "file",
        "file": {"id": file_id, "name": "dot.png", "media_type": "image/png", "bytes": 24},
        "text": "A single black dot on white.",
    }
    assert record["content"] == [{"type": "text", "text": "A dot."}, expected_part]
    assert lab.get(alice, memory_id, record["id"])["content"] == record["content"]
    lab.grant(alice, memory_id, bob, "read")
    for reader in (alice, bob):
        response = part(lab.client, reader, memory_id, record["id"], 1)
        assert response.status_code == 200, response.text
        assert response.content == PNG
        assert response.headers["content-type"] == "image/png"
    text = part(lab.client, alice, memory_id, record["id"], 0)
    assert text.status_code == 200 and text.content == b"A dot."
    assert text.headers["content-type"].startswith("text/plain")
    assert_error(part(lab.client, admin.member(), memory_id, record["id"], 1), 404, "memory_not_found")
    assert_error(part(lab.client, alice, memory_id, record["id"], 2), 404, "file_not_found")


def test_larger_binary_bytes_come_back_exactly(lab: Lab, alice: Member) -> None:
    memory_id = lab.memory(alice)
    data = os.urandom(300_000)
    file_id = uploaded(lab.client, alice, data, "scan.pdf", "application/pdf")["id"]
    content = [{"type": "file", "file": {"id": file_id}}]
    record = lab.remember(alice, memory_id, content=content)
    assert record["content"][0]["file"]["bytes"] == len(data)
    response = part(lab.client, alice, memory_id, record["id"], 0)
    assert response.status_code == 200, response.text
    assert response.content == data and response.headers["content-type"] == "application/pdf"


def test_a_file_type_not_kept_is_refused_and_nothing_is_written(lab: Lab, alice: Member) -> None:
    providers = ok(lab.client.get("/v1/memories/providers", headers=alice.headers))["data"]
    media = providers[0].get("content", {}).get("media", ["text/*"])
    assert not any(fnmatch.fnmatch(REFUSED_TYPE, pattern) for pattern in media), media
    memory_id = lab.memory(alice)
    kept = lab.remember(alice, memory_id)
    file_id = uploaded(lab.client, alice, b"MZ\x90\x00", "tool.exe", REFUSED_TYPE)["id"]
    error = assert_error(lab.post(alice, memory_id, dot_record(file_id)), 422, "memory_unsupported")
    assert error["param"] == "content.1.file"
    assert lab.listed(alice, memory_id, include="all") == [kept["id"]]
    refused = lab.patch(alice, memory_id, kept["id"], {"content": dot_record(file_id)["content"]})
    assert_error(refused, 422, "memory_unsupported")
    assert lab.get(alice, memory_id, kept["id"])["version"] == 1


def test_a_co_writer_may_keep_a_file_part_already_in_the_record(lab: Lab, alice: Member, bob: Member) -> None:
    memory_id = lab.memory(alice)
    lab.grant(alice, memory_id, bob, "read", "write")
    file_id = uploaded(lab.client, alice, PNG, "dot.png", "image/png")["id"]
    record = ok(lab.post(alice, memory_id, dot_record(file_id)))
    content = [*lab.get(bob, memory_id, record["id"])["content"], {"type": "text", "text": "Seen by Bob."}]
    revised = lab.revise(bob, memory_id, record["id"], content=content)
    assert revised["content"] == content
    assert part(lab.client, bob, memory_id, record["id"], 1).content == PNG


def test_another_members_file_cannot_be_named(lab: Lab, alice: Member, bob: Member) -> None:
    memory_id = lab.memory(bob)
    file_id = uploaded(lab.client, alice, PNG, "dot.png", "image/png")["id"]
    assert_error(lab.post(bob, memory_id, dot_record(file_id)), 422, "memory_invalid")
    ghost = dot_record("file_" + "0" * 32)
    assert_error(lab.post(bob, memory_id, ghost), 422, "memory_invalid")
    assert lab.listed(bob, memory_id) == []


def kept(served: TestClient, data: bytes) -> bool:
    """Whether the app's own file store holds these bytes (whichever store it is)."""
    blobs = served.app.state.services.files.blobs  # type: ignore[attr-defined]
    return bool(blobs.exists(hashlib.sha256(data).hexdigest()))


def test_a_file_larger_than_an_s3_part_streams_in_and_out_exactly(lab: Lab, alice: Member) -> None:
    memory_id = lab.memory(alice)
    data = os.urandom(10 * 1024 * 1024 + 17)  # past one 8 MiB part: a multipart upload, then a copy
    file_id = uploaded(lab.client, alice, data, "scan.pdf", "application/pdf")["id"]
    record = lab.remember(alice, memory_id, content=[{"type": "file", "file": {"id": file_id}}])
    response = part(lab.client, alice, memory_id, record["id"], 0)
    assert response.status_code == 200, response.text
    assert response.headers["content-length"] == str(len(data))
    assert response.content == data and kept(lab.client, data)


def test_erase_and_delete_remove_the_bytes_no_record_holds(lab: Lab, alice: Member) -> None:
    memory_id, other = lab.memory(alice), lab.memory(alice)
    data = os.urandom(4096)
    first, second = (uploaded(lab.client, alice, data, "a.txt", "text/plain")["id"] for _ in range(2))
    erased = lab.remember(alice, memory_id, content=[{"type": "file", "file": {"id": first}}])
    lab.remember(alice, other, content=[{"type": "file", "file": {"id": second}}])
    path = f"/v1/memories/{memory_id}/erase"
    ok(lab.client.post(path, json={"record_ids": [erased["id"]]}, headers=alice.headers))
    assert kept(lab.client, data), "the same bytes are still named by a record of another memory"
    ok(lab.client.delete(f"/v1/memories/{other}", headers=alice.headers))
    assert not kept(lab.client, data), "no record names the bytes any more"
