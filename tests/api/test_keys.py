"""Keys that can be managed, over HTTP on the real Neo4j: ids, expiry, last use, revocation, rotation."""

from __future__ import annotations

import hashlib
import json
import uuid
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from fastapi.testclient import TestClient
from neo4j import Driver, GraphDatabase

from provider import __main__ as command_line
from provider.client import MemoryClient
from provider.protocol.answers.admin import ApiKeyListOut, ApiKeyOut, IssuedKeyOut, RotatedKeyOut
from tests.conftest import Admin, Member
from tests.neo4j_target import Neo4jTarget
from tests.support import assert_error
from tests.time_bound import next_millisecond, until


@pytest.fixture(scope="module")
def driver(neo4j_target: Neo4jTarget) -> Iterator[Driver]:
    with GraphDatabase.driver(neo4j_target.uri, auth=(neo4j_target.user, neo4j_target.password)) as sync:
        yield sync


def bearer(key: str, **more: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {key}", **more}


def keys_path(member_id: str) -> str:
    return f"/v1/admin/members/{member_id}/keys"


def issue(client: TestClient, admin: Admin, member_id: str, **body: Any) -> dict[str, Any]:
    response = client.post(keys_path(member_id), json=body, headers=admin.headers)
    assert response.status_code == 200, response.text
    answer: dict[str, Any] = response.json()
    IssuedKeyOut.model_validate(answer)
    return answer


def listed(client: TestClient, admin: Admin, member_id: str) -> dict[str, dict[str, Any]]:
    response = client.get(keys_path(member_id), headers=admin.headers)
    assert response.status_code == 200, response.text
    ApiKeyListOut.model_validate(response.json())
    return {key["id"]: key for key in response.json()["data"]}


def refused_as_unknown(client: TestClient, key: str, **headers: str) -> None:
    """401 with exactly the answer a key that never existed gets (the request id aside)."""
    never = assert_error(client.get("/v1/memories", headers=bearer("uhpk_" + uuid.uuid4().hex)), 401)
    for method, path in (("GET", "/v1/memories"), ("POST", "/v1/memories")):
        response = client.request(method, path, json={"name": "m"}, headers=bearer(key, **headers))
        error = assert_error(response, 401, "invalid_credential")
        assert error["type"] == "authentication_error"
        assert {k: v for k, v in error.items() if k != "request_id"} == {
            k: v for k, v in never.items() if k != "request_id"
        }


def works(client: TestClient, key: str, **headers: str) -> bool:
    return client.get("/v1/memories", headers=bearer(key, **headers)).status_code == 200


def instant(text: str) -> datetime:
    return datetime.fromisoformat(text.replace("Z", "+00:00"))


def wait_past(text: str) -> None:
    """Until the clock is past the instant `text` names (a key's expiry or grace end)."""
    left = max(0.0, (instant(text) - datetime.now(UTC)).total_seconds())
    until(lambda: datetime.now(UTC) > instant(text), within=left + 30, what=f"the clock past {text}")


# -- issuing and listing ----------------------------------------------------------------------------------


def test_a_key_is_issued_with_an_id_and_listed_without_its_secret(
    client: TestClient, admin: Admin, alice: Member
) -> None:
    issued = issue(client, admin, alice.id)
    assert issued["id"].startswith("hkey_") and issued["key"].startswith("uhpk_")
    assert issued["member_id"] == alice.id and issued["server"] is False
    assert issued["expires_at"] is None and issued["revoked_at"] is None and issued["last_used_at"] is None
    assert abs(instant(issued["created_at"]) - datetime.now(UTC)) < timedelta(seconds=30)
    response = client.get(keys_path(alice.id), headers=admin.headers)
    assert response.status_code == 200, response.text
    text = response.text
    assert issued["key"] not in text and hashlib.sha256(issued["key"].encode()).hexdigest() not in text
    keys = response.json()["data"]
    assert len(keys) == 2, "the fixture's key and this one"
    assert keys[0]["id"] == issued["id"], "newest first"
    assert {k: v for k, v in issued.items() if k != "key"} == keys[0]
    assert all(set(key) == set(ApiKeyOut.model_fields) for key in keys)


def test_a_member_without_keys_lists_none(client: TestClient, admin: Admin) -> None:
    made = client.post("/v1/admin/members", json={"type": "agent", "name": "k"}, headers=admin.headers)
    assert made.status_code == 200, made.text
    assert listed(client, admin, made.json()["id"]) == {}


def test_a_key_given_an_instant_expires_then_and_is_refused_like_an_unknown_key(
    client: TestClient, admin: Admin, alice: Member
) -> None:
    later = (datetime.now(UTC) + timedelta(days=30)).replace(microsecond=0)
    far = issue(client, admin, alice.id, expires_at=later.isoformat())
    assert instant(far["expires_at"]) == later and far["expired"] is False
    soon = issue(client, admin, alice.id, expires_in=1)
    assert works(client, soon["key"])
    wait_past(soon["expires_at"])
    refused_as_unknown(client, soon["key"])
    assert listed(client, admin, alice.id)[soon["id"]]["expired"] is True
    assert works(client, far["key"]) and works(client, alice.key)


@pytest.mark.parametrize(
    ("body", "param"),
    [
        ({"expires_at": "2001-01-01T00:00:00Z"}, "expires_at"),
        ({"expires_at": "not a time"}, "expires_at"),
        ({"expires_at": "9999-12-31T23:59:59.999999"}, "expires_at"),
        ({"expires_at": "9999-12-31T23:59:59-23:59"}, "expires_at"),
        ({"expires_at": "0001-01-01T00:00:00+14:00"}, "expires_at"),
        ({"expires_in": 2**63}, "expires_in"),
        ({"expires_at": 1700000000}, "expires_at"),
        ({"expires_in": 0}, "expires_in"),
        ({"expires_in": "60"}, "expires_in"),
        ({"expires_in": 10**12}, "expires_in"),
        ({"expires_in": 60, "expires_at": "2100-01-01T00:00:00Z"}, "expires_in"),
        ({"server": "yes"}, "server"),
    ],
)
def test_a_bad_expiry_is_refused(
    client: TestClient, admin: Admin, alice: Member, body: dict[str, Any], param: str
) -> None:
    before = listed(client, admin, alice.id)
    error = assert_error(client.post(keys_path(alice.id), json=body, headers=admin.headers), 422)
    assert error["param"] == param, error
    assert listed(client, admin, alice.id) == before, "nothing was issued"


@pytest.mark.parametrize("body", [[], "key", 7, [{"server": True}]])
@pytest.mark.parametrize("verb", ["issue", "rotate"])
def test_a_body_that_is_not_an_object_is_refused(
    client: TestClient, admin: Admin, alice: Member, body: Any, verb: str
) -> None:
    (key_id,) = listed(client, admin, alice.id)
    path = keys_path(alice.id) if verb == "issue" else f"{keys_path(alice.id)}/{key_id}/rotate"
    assert_error(client.post(path, json=body, headers=admin.headers), 422)
    assert list(listed(client, admin, alice.id)) == [key_id] and works(client, alice.key)


# -- last use -------------------------------------------------------------------------------------------


def test_last_use_is_stamped_at_most_once_a_minute(
    client: TestClient, admin: Admin, alice: Member, driver: Driver
) -> None:
    issued = issue(client, admin, alice.id)
    assert works(client, issued["key"])
    first = listed(client, admin, alice.id)[issued["id"]]["last_used_at"]
    assert first is not None and abs(instant(first) - datetime.now(UTC)) < timedelta(seconds=30)
    next_millisecond()
    assert works(client, issued["key"])
    assert listed(client, admin, alice.id)[issued["id"]]["last_used_at"] == first, "no write within a minute"
    driver.execute_query(
        "MATCH (k:ApiKey {id: $id}) SET k.last_used_at = k.last_used_at - 61000", id=issued["id"]
    )
    assert works(client, issued["key"])
    again = listed(client, admin, alice.id)[issued["id"]]["last_used_at"]
    assert instant(again) > instant(first)


# -- revocation -----------------------------------------------------------------------------------------


def test_a_revoked_key_is_refused_at_once_and_its_siblings_still_work(
    client: TestClient, admin: Admin, alice: Member
) -> None:
    issued = issue(client, admin, alice.id)
    assert works(client, issued["key"])
    revoked = client.delete(f"{keys_path(alice.id)}/{issued['id']}", headers=admin.headers)
    assert revoked.status_code == 200, revoked.text
    ApiKeyOut.model_validate(revoked.json())
    assert revoked.json()["revoked"] is True and revoked.json()["id"] == issued["id"]
    refused_as_unknown(client, issued["key"])
    assert works(client, alice.key)
    again = client.delete(f"{keys_path(alice.id)}/{issued['id']}", headers=admin.headers)
    assert again.status_code == 200, again.text
    assert again.json()["revoked_at"] == revoked.json()["revoked_at"], "the first end stays"
    assert listed(client, admin, alice.id)[issued["id"]] == revoked.json()


def test_a_revoked_server_key_cannot_act_for_anyone(client: TestClient, admin: Admin, alice: Member) -> None:
    server = admin.member("agent", server=True)
    on_behalf = {"UHP-On-Behalf-Of": alice.principal}
    assert works(client, server.key, **on_behalf)
    (key_id,) = listed(client, admin, server.id)
    revoked = client.delete(f"{keys_path(server.id)}/{key_id}", headers=admin.headers)
    assert revoked.status_code == 200, revoked.text
    refused_as_unknown(client, server.key, **on_behalf)
    refused_as_unknown(client, server.key)


def test_unknown_members_and_keys_are_404(
    client: TestClient, admin: Admin, alice: Member, bob: Member
) -> None:
    ghost_member, ghost_key = "hmbr_" + uuid.uuid4().hex, "hkey_" + uuid.uuid4().hex
    (bobs_key,) = listed(client, admin, bob.id)
    calls: list[tuple[str, str, str]] = [
        ("GET", keys_path(ghost_member), "member_id"),
        ("DELETE", f"{keys_path(ghost_member)}/{ghost_key}", "member_id"),
        ("POST", f"{keys_path(ghost_member)}/{ghost_key}/rotate", "member_id"),
        ("DELETE", f"{keys_path(alice.id)}/{ghost_key}", "key_id"),
        ("POST", f"{keys_path(alice.id)}/{ghost_key}/rotate", "key_id"),
        ("DELETE", f"{keys_path(alice.id)}/{bobs_key}", "key_id"),
        ("POST", f"{keys_path(alice.id)}/{bobs_key}/rotate", "key_id"),
    ]
    for method, path, param in calls:
        error = assert_error(client.request(method, path, headers=admin.headers), 404, "member_not_found")
        assert error["param"] == param, (method, path, error)
    assert works(client, bob.key), "a key named under another member is left alone"
    assert len(listed(client, admin, bob.id)) == 1


def test_key_routes_take_the_admin_key_only(client: TestClient, admin: Admin, alice: Member) -> None:
    (key_id,) = listed(client, admin, alice.id)
    for method, path in (
        ("GET", keys_path(alice.id)),
        ("DELETE", f"{keys_path(alice.id)}/{key_id}"),
        ("POST", f"{keys_path(alice.id)}/{key_id}/rotate"),
    ):
        for headers in (alice.headers, {}, bearer("uhpk_" + uuid.uuid4().hex)):
            assert_error(client.request(method, path, headers=headers), 401, "invalid_credential")
    assert works(client, alice.key)


# -- rotation -------------------------------------------------------------------------------------------


def rotate(client: TestClient, admin: Admin, member_id: str, key_id: str, **body: Any) -> dict[str, Any]:
    response = client.post(f"{keys_path(member_id)}/{key_id}/rotate", json=body, headers=admin.headers)
    assert response.status_code == 200, response.text
    answer: dict[str, Any] = response.json()
    RotatedKeyOut.model_validate(answer)
    return answer


def test_rotation_without_grace_ends_the_old_key_at_once_and_keeps_the_server_flag(
    client: TestClient, admin: Admin, alice: Member
) -> None:
    server = admin.member("agent", server=True)
    (old_id,) = listed(client, admin, server.id)
    rotated = rotate(client, admin, server.id, old_id)
    assert rotated["server"] is True and rotated["id"] != old_id and rotated["key"] != server.key
    assert rotated["previous"]["id"] == old_id and rotated["previous"]["revoked"] is True
    refused_as_unknown(client, server.key, **{"UHP-On-Behalf-Of": alice.principal})
    assert works(client, rotated["key"], **{"UHP-On-Behalf-Of": alice.principal})
    keys = listed(client, admin, server.id)
    assert list(keys) == [rotated["id"], old_id]
    assert keys[old_id] == rotated["previous"]


def test_rotation_with_grace_lets_the_old_key_work_until_the_grace_ends(
    client: TestClient, admin: Admin, alice: Member
) -> None:
    (old_id,) = listed(client, admin, alice.id)
    rotated = rotate(client, admin, alice.id, old_id, grace_seconds=1, expires_in=3600)
    previous = rotated["previous"]
    assert previous["revoked"] is False and previous["revoked_at"] is not None
    assert rotated["expires_at"] is not None and rotated["server"] is False
    assert works(client, alice.key) and works(client, rotated["key"])
    wait_past(previous["revoked_at"])
    refused_as_unknown(client, alice.key)
    assert works(client, rotated["key"])
    assert listed(client, admin, alice.id)[old_id]["revoked"] is True


def test_revoking_during_the_grace_ends_the_key_now(client: TestClient, admin: Admin, alice: Member) -> None:
    (old_id,) = listed(client, admin, alice.id)
    rotate(client, admin, alice.id, old_id, grace_seconds=3600)
    assert works(client, alice.key)
    revoked = client.delete(f"{keys_path(alice.id)}/{old_id}", headers=admin.headers)
    assert revoked.status_code == 200, revoked.text
    assert revoked.json()["revoked"] is True
    refused_as_unknown(client, alice.key)


def test_rotating_a_revoked_key_issues_a_new_one_and_keeps_the_old_end(
    client: TestClient, admin: Admin, alice: Member
) -> None:
    (old_id,) = listed(client, admin, alice.id)
    ended = client.delete(f"{keys_path(alice.id)}/{old_id}", headers=admin.headers).json()
    rotated = rotate(client, admin, alice.id, old_id, grace_seconds=3600)
    assert rotated["previous"]["revoked_at"] == ended["revoked_at"], "a grace does not bring a key back"
    refused_as_unknown(client, alice.key)
    assert works(client, rotated["key"])


@pytest.mark.parametrize(
    "body",
    [{"grace_seconds": -1}, {"grace_seconds": 10**9}, {"grace_seconds": 1.5}, {"expires_at": "2001-01-01"}],
)
def test_a_bad_rotation_is_refused_and_changes_nothing(
    client: TestClient, admin: Admin, alice: Member, body: dict[str, Any]
) -> None:
    (old_id,) = listed(client, admin, alice.id)
    response = client.post(f"{keys_path(alice.id)}/{old_id}/rotate", json=body, headers=admin.headers)
    error = assert_error(response, 422)
    assert error["param"] == next(iter(body)), error
    assert list(listed(client, admin, alice.id)) == [old_id] and works(client, alice.key)


# -- the command line -----------------------------------------------------------------------------------


def test_the_command_line_lists_revokes_and_rotates(
    client: TestClient,
    admin: Admin,
    alice: Member,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    def connect(url: str, key: str) -> MemoryClient:
        assert url == "http://uhp.test"
        return MemoryClient(http=client, key=key)

    monkeypatch.setattr(command_line, "connect", connect)
    monkeypatch.setenv("UHP_URL", "http://uhp.test")
    monkeypatch.setenv("UHP_ADMIN_KEY", admin.key)
    (first,) = listed(client, admin, alice.id)

    def run(*argv: str) -> dict[str, Any]:
        assert command_line.main(["admin", *argv]) == 0
        answer: dict[str, Any] = json.loads(capsys.readouterr().out)
        return answer

    made = run("key", alice.id, "--expires-in", "600")
    assert made["expires_at"] is not None and works(client, made["key"])
    assert [key["id"] for key in run("keys", alice.id)["data"]] == [made["id"], first]
    assert run("revoke", alice.id, made["id"])["revoked"] is True
    rotated = run("rotate", alice.id, first, "--grace", "60")
    assert rotated["previous"]["id"] == first and works(client, rotated["key"]) and works(client, alice.key)
    assert command_line.main(["admin", "revoke", alice.id, "hkey_" + uuid.uuid4().hex]) == 1
    assert "member_not_found" in capsys.readouterr().err
