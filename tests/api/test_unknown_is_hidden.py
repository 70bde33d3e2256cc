"""Unknown and hidden look the same, route by route: no answer tells a caller that something exists.

For every id a request can name (a memory, a record, a grant, a consolidation run, a snapshot in
`as_of`, a reference target, a file, a harness), the answer about one that exists but is out of the
caller's reach is the answer about one that never existed: same status, code, message and param.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient

from tests.api.records_support import Lab, ok
from tests.conftest import Admin, Member

NOWHERE_MEMORY = "hmem_" + "0" * 32
NOWHERE_RECORD = "hrec_" + "0" * 32


@pytest.fixture
def lab(client: TestClient) -> Iterator[Lab]:
    tracker = Lab(client)
    yield tracker
    tracker.cleanup()


def shape(response: Any) -> tuple[int, Any]:
    """What a caller can tell from an answer, minus the request id."""
    body = response.json()
    if "error" in body:
        error = dict(body["error"])
        error.pop("request_id", None)
        return response.status_code, error
    return response.status_code, body


def alike(first: Any, second: Any) -> None:
    assert shape(first) == shape(second)
    assert first.status_code < 500


MEMORY_ROUTES: list[tuple[str, str, Any]] = [
    ("GET", "", None),
    ("PUT", "", {"name": "renamed"}),
    ("DELETE", "", None),
    ("GET", "/records", None),
    ("POST", "/records", {"content": "x"}),
    ("GET", "/records/{record}", None),
    ("PATCH", "/records/{record}", {"content": "y"}),
    ("DELETE", "/records/{record}", None),
    ("GET", "/records/{record}/history", None),
    ("GET", "/records/{record}/content/0", None),
    ("POST", "/recall", {"text": "x"}),
    ("POST", "/graph", {}),
    ("POST", "/observe", {"episodes": [{"content": "e"}]}),
    ("POST", "/erase", {"record_ids": ["{record}"]}),
    ("GET", "/prime", None),
    ("GET", "/grants", None),
    ("POST", "/grants", {"principal": "member:someone", "privileges": ["read"]}),
    ("GET", "/snapshots", None),
    ("POST", "/snapshots", {"name": "s"}),
    ("GET", "/consolidations", None),
    ("POST", "/consolidations", {}),
    ("GET", "/queries", None),
    ("POST", "/query", {"statement": "MATCH (r:Record) RETURN count(r) AS n"}),
    ("POST", "/records/{record}/operations/merge", {"duplicate": "{record}"}),
    ("POST", "/records/{record}/operations/aliases", {}),
]


@pytest.mark.parametrize(
    ("method", "tail", "body"), MEMORY_ROUTES, ids=[f"{m} {t}" for m, t, _ in MEMORY_ROUTES]
)
def test_a_hidden_memory_answers_as_one_that_does_not_exist(
    lab: Lab, alice: Member, bob: Member, method: str, tail: str, body: Any
) -> None:
    hidden = lab.memory(alice)
    record = lab.remember(alice, hidden)
    for memory_id, record_id in ((hidden, record["id"]), (NOWHERE_MEMORY, NOWHERE_RECORD)):
        assert memory_id and record_id
    asked = [
        lab.client.request(
            method,
            f"/v1/memories/{memory_id}{tail.replace('{record}', record_id)}",
            json=_filled(body, record_id),
            headers=bob.headers,
        )
        for memory_id, record_id in ((hidden, record["id"]), (NOWHERE_MEMORY, NOWHERE_RECORD))
    ]
    alike(*asked)
    assert asked[0].status_code == 404
    assert lab.get(alice, hidden, record["id"])["version"] == 1


def _filled(body: Any, record_id: str) -> Any:
    if body is None:
        return None
    if isinstance(body, dict):
        return {k: _filled(v, record_id) for k, v in body.items()}
    if isinstance(body, list):
        return [_filled(v, record_id) for v in body]
    return record_id if body == "{record}" else body


@pytest.mark.parametrize(
    ("method", "tail", "body"),
    [
        ("GET", "/records/{record}", None),
        ("PATCH", "/records/{record}", {"content": "y"}),
        ("DELETE", "/records/{record}", None),
        ("GET", "/records/{record}/history", None),
        ("GET", "/records/{record}/content/0", None),
        ("POST", "/graph", {"around": "{record}"}),
        ("POST", "/erase", {"record_ids": ["{record}"]}),
    ],
)
def test_a_record_elsewhere_answers_as_one_that_does_not_exist(
    lab: Lab, alice: Member, bob: Member, method: str, tail: str, body: Any
) -> None:
    """Bob holds everything on his own memory; a record id of alice's hidden memory is no record there."""
    secret = lab.memory(alice)
    elsewhere = lab.remember(alice, secret)
    mine = lab.memory(bob)
    answers = [
        lab.client.request(
            method,
            f"/v1/memories/{mine}{tail.replace('{record}', record_id)}",
            json=_filled(body, record_id),
            headers=bob.headers,
        )
        for record_id in (elsewhere["id"], NOWHERE_RECORD)
    ]
    alike(*answers)
    assert answers[0].status_code in (404, 422)
    assert lab.get(alice, secret, elsewhere["id"])["version"] == 1


def test_a_grant_or_run_of_another_memory_answers_as_none(lab: Lab, alice: Member, bob: Member) -> None:
    secret = lab.memory(alice)
    asked = {"principal": "group:g", "privileges": ["read"]}
    grant = ok(lab.client.post(f"/v1/memories/{secret}/grants", json=asked, headers=alice.headers))
    run = ok(lab.client.post(f"/v1/memories/{secret}/consolidations", json={}, headers=alice.headers))
    mine = lab.memory(bob)
    alike(
        lab.client.delete(f"/v1/memories/{mine}/grants/{grant['id']}", headers=bob.headers),
        lab.client.delete(f"/v1/memories/{mine}/grants/hgrn_{'0' * 32}", headers=bob.headers),
    )
    for tail in ("", "/changes"):
        alike(
            lab.client.get(f"/v1/memories/{mine}/consolidations/{run['id']}{tail}", headers=bob.headers),
            lab.client.get(f"/v1/memories/{mine}/consolidations/hcon_{'0' * 32}{tail}", headers=bob.headers),
        )
    alike(
        lab.client.post(f"/v1/memories/{mine}/consolidations/{run['id']}/revert", headers=bob.headers),
        lab.client.post(f"/v1/memories/{mine}/consolidations/hcon_{'0' * 32}/revert", headers=bob.headers),
    )


def test_a_snapshot_reference_file_and_parent_out_of_reach_answer_as_none(
    lab: Lab, alice: Member, bob: Member
) -> None:
    secret = lab.memory(alice)
    snapshot = ok(
        lab.client.post(f"/v1/memories/{secret}/snapshots", json={"name": "s"}, headers=alice.headers)
    )
    target = lab.remember(alice, secret)
    mine = lab.memory(bob)
    own = lab.remember(bob, mine)
    for as_of in (snapshot["id"], "hsnp_" + "0" * 32):
        assert lab.read(bob, mine, own["id"], as_of=as_of).status_code == 422
    alike(
        lab.read(bob, mine, own["id"], as_of=snapshot["id"]), lab.read(bob, mine, own["id"], as_of="hsnp_x")
    )
    recalls = [
        lab.client.post(f"/v1/memories/{mine}/recall", json={"text": "x", "as_of": s}, headers=bob.headers)
        for s in (snapshot["id"], "hsnp_x")
    ]
    alike(*recalls)
    referring = [
        lab.post(bob, mine, {"content": "x", "references": [{"rel": "about", "record_id": r}]})
        for r in (target["id"], NOWHERE_RECORD)
    ]
    assert [r.status_code for r in referring] == [200, 200]
    assert [r.json()["references"] for r in referring] == [
        [{"record_id": target["id"], "available": False}],
        [{"record_id": NOWHERE_RECORD, "available": False}],
    ]
    upload = lab.client.post(
        "/v1/files", files={"file": ("a.txt", b"alice's", "text/plain")}, headers=alice.headers
    )
    files = [
        lab.post(bob, mine, {"content": [{"type": "file", "file": {"id": f}}]})
        for f in (ok(upload)["id"], "file_" + "0" * 32)
    ]
    alike(*files)
    children = [
        lab.client.post("/v1/memories", json={"name": "c", "parent_id": p}, headers=bob.headers)
        for p in (secret, NOWHERE_MEMORY)
    ]
    alike(*children)
    moves = [
        lab.client.put(f"/v1/memories/{mine}", json={"parent_id": p}, headers=bob.headers)
        for p in (secret, NOWHERE_MEMORY)
    ]
    alike(*moves)
    listings = [lab.client.get("/v1/memories", params={key: p}, headers=bob.headers)
                for key in ("parent", "ancestor") for p in (secret, NOWHERE_MEMORY)]  # fmt: skip
    alike(listings[0], listings[1])
    alike(listings[2], listings[3])


def test_a_harness_of_another_member_answers_as_none(client: TestClient, admin: Admin) -> None:
    owner, stranger = admin.member("agent"), admin.member("agent")
    made = client.post(
        "/v1/admin/harnesses", json={"name": "h", "member_id": owner.id}, headers=admin.headers
    )
    harness = ok(made)["id"]
    for method, body in (("GET", None), ("PUT", {"observe": False})):
        alike(
            client.request(method, f"/v1/harnesses/{harness}/memories", json=body, headers=stranger.headers),
            client.request(
                method, "/v1/harnesses/hhrn_nothing/memories", json=body, headers=stranger.headers
            ),
        )
