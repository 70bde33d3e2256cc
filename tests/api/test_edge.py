"""What the edge refuses before routing: strangers (before their body is read) and bodies past the cap.

Some checks call the app as raw ASGI inside the TestClient's portal: the TestClient reads a whole
body before the app sees it, so only a hand-made `receive` shows what the app pulled, and when.
"""

from __future__ import annotations

import hashlib
import json
import os
import tracemalloc
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from starlette.types import Message

from provider import PROTOCOL_VERSION
from provider.blobs import INCOMING
from provider.config import Settings
from tests.conftest import Admin, Member
from tests.support import assert_error, validate

MiB = 1024 * 1024
CHUNK = 64 * 1024
NOT_A_KEY = "Bearer uhp-conformance-not-a-key"


@dataclass
class Answer:
    """What a raw ASGI call sent back, and how much of the body the app pulled."""

    status: int = 0
    headers: dict[str, str] = field(default_factory=dict)
    body: bytes = b""
    pulled: int = 0
    receive_calls: int = 0

    def error(self) -> dict[str, Any]:
        document: dict[str, Any] = json.loads(self.body)
        validate("ErrorEnvelope", document)
        assert document["error"]["request_id"] == self.headers["x-request-id"]
        error: dict[str, Any] = document["error"]
        return error


def call(
    client: TestClient, method: str, path: str, headers: dict[str, str], chunks: Iterable[bytes] = ()
) -> Answer:
    """One request as raw ASGI, its body handed over chunk by chunk (more_body until the last)."""
    answer, pending = Answer(), iter(chunks)

    async def receive() -> Message:
        answer.receive_calls += 1
        chunk = next(pending, None)
        if chunk is None:
            return {"type": "http.request", "body": b"", "more_body": False}
        answer.pulled += len(chunk)
        return {"type": "http.request", "body": chunk, "more_body": True}

    async def send(message: Message) -> None:
        if message["type"] == "http.response.start":
            answer.status = message["status"]
            answer.headers = {k.decode().lower(): v.decode() for k, v in message.get("headers", [])}
        elif message["type"] == "http.response.body":
            answer.body += message.get("body", b"")

    scope = {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": method,
        "scheme": "http",
        "path": path,
        "raw_path": path.encode(),
        "root_path": "",
        "query_string": b"",
        "headers": [(k.lower().encode(), v.encode()) for k, v in headers.items()],
        "client": ("127.0.0.1", 50000),
        "server": ("testserver", 80),
        "state": {},
    }

    async def run() -> None:
        await client.app(scope, receive, send)

    assert client.portal is not None, "the app runs inside the TestClient's portal"
    client.portal.call(run)
    return answer


def endless(size: int = CHUNK) -> Iterator[bytes]:
    """A body that never ends: only the edge can stop it."""
    while True:
        yield b" " * size


def multipart(data: Iterable[bytes], boundary: str = "edgeboundary") -> Iterator[bytes]:
    """POST /v1/files's body, the file's bytes streamed between the part headers and the end."""
    yield (
        f'--{boundary}\r\nContent-Disposition: form-data; name="purpose"\r\n\r\nuser_data\r\n'
        f'--{boundary}\r\nContent-Disposition: form-data; name="file"; filename="big.bin"\r\n'
        "Content-Type: application/pdf\r\n\r\n"
    ).encode()
    yield from data
    yield f"\r\n--{boundary}--\r\n".encode()


def upload_headers(who: Member) -> dict[str, str]:
    return {"content-type": "multipart/form-data; boundary=edgeboundary", **who.headers}


def incoming(settings: Settings) -> list[Path]:
    folder = settings.file.dir / INCOMING
    return sorted(folder.iterdir()) if folder.exists() else []


# -- the conformance suite's core checks ---------------------------------------------------------------


def test_a01_listing_harnesses_without_a_key_is_401(client: TestClient) -> None:
    error = assert_error(client.get("/v1/harnesses"), 401)
    assert error["type"] == "authentication_error"


def test_a02_a_key_nobody_issued_is_401_authentication_error(client: TestClient) -> None:
    error = assert_error(client.get("/v1/harnesses", headers={"Authorization": NOT_A_KEY}), 401)
    assert error["type"] == "authentication_error"


def test_e02_a_bare_harness_is_never_found(client: TestClient, alice: Member, admin: Admin) -> None:
    path = "/v1/harnesses/chrn_uhpconformancenosuchharness00"
    error = assert_error(client.get(path, headers=alice.headers), 404, "harness_not_found")
    assert error["type"] == "invalid_request_error" and error["param"] == "harness_id"
    agent = admin.member("agent")
    harness = {"name": "h", "member_id": agent.id}
    made = client.post("/v1/admin/harnesses", json=harness, headers=admin.headers)
    assert made.status_code == 200, made.text
    real = f"/v1/harnesses/{made.json()['id']}"
    assert_error(client.get(real, headers=agent.headers), 404, "harness_not_found")
    assert_error(client.get(f"{real}/memories", headers=agent.headers), 404, "memories_not_attached")


def test_e03_a_response_is_never_found(client: TestClient, alice: Member) -> None:
    path = "/v1/responses/resp_uhpconformancenosuchresponse"
    assert_error(client.get(path, headers=alice.headers), 404, "response_not_found")
    assert_error(client.get(path), 401)


def test_discovery_stays_open_and_claims_nothing_new(client: TestClient) -> None:
    body = client.get("/v1/uhp").json()
    assert body["capabilities"]["harness_management"] is False
    assert not any(body["capabilities"][c] for c in ("streaming", "sessions", "files_input"))


# -- authentication before routing ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("method", "path"),
    [
        ("GET", "/v1/no-such-route"),
        ("POST", "/v1/uhp"),
        ("GET", "/v1"),
        ("DELETE", "/v1/memories/hmem_nosuchmemory"),
        ("GET", "/v1/admin/no-such-route"),
    ],
)
def test_every_v1_path_but_discovery_needs_a_key_routed_or_not(
    client: TestClient, method: str, path: str
) -> None:
    for headers in ({}, {"Authorization": NOT_A_KEY}):
        response = client.request(method, path, headers=headers)
        error = assert_error(response, 401)
        assert error["type"] == "authentication_error"
        assert response.headers["UHP-Version"] == PROTOCOL_VERSION


def test_outside_v1_nothing_is_asked(client: TestClient) -> None:
    assert client.get("/healthz").status_code == 200
    assert_error(client.get("/no-such-route"), 404)


@pytest.mark.parametrize("authorization", [None, NOT_A_KEY])
def test_a_strangers_body_is_never_read(client: TestClient, authorization: str | None) -> None:
    headers = {"content-type": "application/json", "content-length": str(10**12)}
    if authorization:
        headers["authorization"] = authorization
    for path in ("/v1/memories", "/v1/files", "/v1/no-such-route", "/v1/admin/members"):
        answer = call(client, "POST", path, headers, endless())
        assert answer.status == 401 and answer.error()["type"] == "authentication_error"
        assert answer.receive_calls == 0, path


def test_the_version_check_comes_before_authentication(client: TestClient) -> None:
    response = client.get("/v1/memories", headers={"UHP-Version": "1999-01-01"})
    assert_error(response, 400, "unsupported_protocol_version")


def test_the_admin_key_opens_only_the_admin_surface(client: TestClient, admin: Admin, alice: Member) -> None:
    assert_error(client.get("/v1/no-such-route", headers=admin.headers), 403)
    assert_error(client.post("/v1/admin/groups", json={"name": "g"}, headers=alice.headers), 401)
    assert client.post("/v1/admin/groups", json={"name": "g"}, headers=admin.headers).status_code == 200


# -- the body cap ----------------------------------------------------------------------------------------


def test_a_declared_body_past_the_cap_is_413_before_a_byte_is_read(
    client: TestClient, settings: Settings, alice: Member
) -> None:
    too_long = {"content-length": str(settings.max_body_bytes + 1), **alice.headers}
    answer = call(client, "POST", "/v1/memories", {"content-type": "application/json", **too_long}, endless())
    assert (answer.status, answer.receive_calls) == (413, 0)
    error = answer.error()
    assert (error["code"], error["type"]) == ("uhp_memory.body_too_large", "invalid_request_error")
    assert error["detail"] == {"limit": settings.max_body_bytes}
    assert answer.headers["uhp-version"] == PROTOCOL_VERSION
    upload = {"content-length": str(settings.max_upload_bytes + 1), **upload_headers(alice)}
    answer = call(client, "POST", "/v1/files", upload, endless())
    assert (answer.status, answer.receive_calls, answer.error()["code"]) == (413, 0, "file_too_large")


def test_a_streamed_body_is_cut_off_once_it_passes_the_cap(
    client: TestClient, settings: Settings, alice: Member
) -> None:
    headers = {"content-type": "application/json", **alice.headers}
    answer = call(client, "POST", "/v1/memories", headers, endless())
    assert answer.status == 413 and answer.error()["code"] == "uhp_memory.body_too_large"
    assert settings.max_body_bytes < answer.pulled <= settings.max_body_bytes + CHUNK


def test_an_idempotent_write_past_the_cap_claims_no_key(client: TestClient, alice: Member) -> None:
    headers = {"content-type": "application/json", "Idempotency-Key": os.urandom(8).hex(), **alice.headers}
    assert call(client, "POST", "/v1/memories", headers, endless()).status == 413
    made = client.post("/v1/memories", json={"name": "after"}, headers=headers)
    assert made.status_code == 200 and "Idempotent-Replayed" not in made.headers, made.text
    client.delete(f"/v1/memories/{made.json()['id']}", headers=alice.headers)


def test_a_streamed_upload_past_the_cap_is_cut_off_and_leaves_nothing(
    client: TestClient, settings: Settings, alice: Member
) -> None:
    answer = call(client, "POST", "/v1/files", upload_headers(alice), multipart(endless()))
    assert answer.status == 413 and answer.error()["code"] == "file_too_large"
    assert settings.max_upload_bytes < answer.pulled <= settings.max_upload_bytes + CHUNK
    assert incoming(settings) == []


def test_an_upload_streams_to_disk_hashed_on_the_way_not_held_in_memory(
    client: TestClient, settings: Settings, alice: Member
) -> None:
    size = 40 * MiB
    digest = hashlib.sha256()

    def data() -> Iterator[bytes]:
        for index in range(size // CHUNK):
            chunk = index.to_bytes(4, "big") * (CHUNK // 4)
            digest.update(chunk)
            yield chunk

    tracemalloc.start()
    try:
        answer = call(client, "POST", "/v1/files", upload_headers(alice), multipart(data()))
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert answer.status == 200, answer.body
    body = json.loads(answer.body)
    assert (body["bytes"], body["filename"], body["media_type"]) == (size, "big.bin", "application/pdf")
    kept = settings.file.dir / digest.hexdigest()[:2] / digest.hexdigest()
    assert kept.stat().st_size == size
    assert incoming(settings) == []
    assert peak < 8 * MiB, f"{peak / MiB:.1f} MiB held for a {size // MiB} MiB upload"


def test_an_upload_with_no_file_part_or_not_multipart_is_422(client: TestClient, alice: Member) -> None:
    no_file = client.post("/v1/files", data={"purpose": "user_data"}, headers=alice.headers)
    assert_error(no_file, 422, "invalid_input")
    as_json = {"content-type": "application/json", **alice.headers}
    raw = client.post("/v1/files", content=b"{}", headers=as_json)
    assert_error(raw, 422, "invalid_input")
    two = [("file", ("a.txt", b"a", "text/plain")), ("file", ("b.txt", b"b", "text/plain"))]
    assert_error(client.post("/v1/files", files=two, headers=alice.headers), 422, "invalid_input")
