"""`UHP-Bookmark` on one Neo4j server, over HTTP: read only for an authenticated caller, and a bookmark
ahead of the database refused after a bounded wait (`UHP_BOOKMARK_WAIT_MS`) instead of holding the
request. The two-instance suite (tests/scaleout) covers a bookmark carried to another instance.
"""

from __future__ import annotations

import time
from collections.abc import Iterator

import pytest
from fastapi.testclient import TestClient

from tests.api.records_support import Lab, assert_error, ok
from tests.conftest import Member
from tests.support import bookmark_ahead_of

HEADER = "UHP-Bookmark"
PATIENCE_S = 15.0  # far above the 1 s default bound, far below Neo4j's own 30 s bookmark wait


@pytest.fixture
def lab(client: TestClient) -> Iterator[Lab]:
    tracker = Lab(client)
    yield tracker
    tracker.cleanup()


def written(lab: Lab, who: Member, memory_id: str) -> tuple[str, str]:
    """A record's id and the bookmark its write answered with."""
    reply = lab.post(who, memory_id, {"content": "Bookmarked in March."})
    record = ok(reply)
    assert reply.headers.get(HEADER, "").startswith("FB:"), "an answer to a write carries its bookmark"
    return record["id"], reply.headers[HEADER].split(",")[0].strip()


def test_a_bookmark_from_a_write_lets_the_next_request_read_it(lab: Lab, alice: Member) -> None:
    memory_id = lab.memory(alice)
    record_id, bookmark = written(lab, alice, memory_id)
    read = lab.client.get(lab.path(memory_id, record_id), headers={**alice.headers, HEADER: bookmark})
    assert ok(read)["id"] == record_id
    listed = lab.client.get(f"/v1/memories/{memory_id}/records", headers={**alice.headers, HEADER: bookmark})
    assert [r["id"] for r in ok(listed)["data"]] == [record_id]


def test_a_stranger_s_bookmark_is_never_read(lab: Lab, alice: Member) -> None:
    memory_id = lab.memory(alice)
    _, bookmark = written(lab, alice, memory_id)
    for sent in (bookmark_ahead_of(bookmark), "not a bookmark!"):
        for key in ({"Authorization": "Bearer not-a-key"}, {}):  # a key looked up, and none at all
            began = time.monotonic()
            refused = lab.client.get("/v1/memories", headers={**key, HEADER: sent})
            assert refused.status_code == 401, refused.text  # not 422: the header was not read
            assert refused.json()["error"]["type"] == "authentication_error"
            assert time.monotonic() - began < PATIENCE_S, "the key's lookup did not wait on the bookmark"


def test_a_bookmark_ahead_of_the_database_is_refused_within_the_bound(lab: Lab, alice: Member) -> None:
    memory_id = lab.memory(alice)
    record_id, bookmark = written(lab, alice, memory_id)
    future = {**alice.headers, HEADER: bookmark_ahead_of(bookmark)}
    records = f"/v1/memories/{memory_id}/records"
    asked = [("GET", f"{records}/{record_id}", None), ("POST", records, {"content": "never"})]
    for method, path, body in asked:
        began = time.monotonic()
        refused = lab.client.request(method, path, json=body, headers=future)
        assert time.monotonic() - began < PATIENCE_S, "a bookmark from the future does not hold the request"
        error = assert_error(refused, 422, "invalid_input")
        assert error["param"] == HEADER and "ahead of the database" in error["message"], error
    assert lab.listed(alice, memory_id) == [record_id], "the refused write did nothing"
    # the connection the bounded wait gave up on is not missed: the next request is served
    assert ok(lab.read(alice, memory_id, record_id))["id"] == record_id


def test_a_bookmark_no_database_made_is_422(lab: Lab, alice: Member) -> None:
    memory_id = lab.memory(alice)
    refused = lab.client.get(f"/v1/memories/{memory_id}", headers={**alice.headers, HEADER: "FB:AAAA"})
    assert assert_error(refused, 422, "invalid_input")["param"] == HEADER
