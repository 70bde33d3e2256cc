"""Idempotency-Key over HTTP: one write per key and caller, repeats answered from the first result."""

from __future__ import annotations

from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest
from fastapi.testclient import TestClient

from provider import ids
from tests.api.records_support import Lab, Reply, assert_error, ok, tag
from tests.conftest import Member

DAY_MS = 24 * 3600 * 1000


@pytest.fixture
def lab(client: TestClient) -> Iterator[Lab]:
    tracker = Lab(client)
    yield tracker
    tracker.cleanup()


def post(lab: Lab, who: Member, memory_id: str, body: Any, key: str, **headers: str) -> Reply:
    sent = {**who.headers, "Idempotency-Key": key, **headers}
    return lab.client.post(f"/v1/memories/{memory_id}/records", json=body, headers=sent)


def test_a_repeat_with_the_same_body_answers_the_first_result_and_writes_nothing(
    lab: Lab, alice: Member
) -> None:
    memory = lab.memory(alice)
    key = f"k-{tag()}"
    first = post(lab, alice, memory, {"content": "renews in March"}, key)
    again = post(lab, alice, memory, {"content": "renews in March"}, key)
    assert first.status_code == again.status_code == 200
    assert "Idempotent-Replayed" not in first.headers
    assert again.headers["Idempotent-Replayed"] == "true"
    assert again.json() == first.json()
    assert again.headers["UHP-Version"] == first.headers["UHP-Version"]
    assert lab.listed(alice, memory) == [first.json()["id"]]


def test_the_same_key_with_another_body_is_refused_and_writes_nothing(lab: Lab, alice: Member) -> None:
    memory = lab.memory(alice)
    key = f"k-{tag()}"
    first = ok(post(lab, alice, memory, {"content": "renews in March"}, key))
    error = assert_error(post(lab, alice, memory, {"content": "renews in May"}, key), 422, "memory_invalid")
    assert error["param"] == "Idempotency-Key"
    assert lab.listed(alice, memory) == [first["id"]]


def test_concurrent_repeats_wait_for_the_first_and_get_its_answer(lab: Lab, alice: Member) -> None:
    memory = lab.memory(alice)
    key = f"k-{tag()}"
    with ThreadPoolExecutor(max_workers=6) as pool:
        replies = list(pool.map(lambda _: post(lab, alice, memory, {"content": "one write"}, key), range(6)))
    assert {r.status_code for r in replies} == {200}, [r.text for r in replies]
    assert len({r.json()["id"] for r in replies}) == 1
    assert sum(1 for r in replies if r.headers.get("Idempotent-Replayed") == "true") == 5
    assert lab.listed(alice, memory) == [replies[0].json()["id"]]


def test_a_key_belongs_to_the_caller_that_sent_it(lab: Lab, alice: Member, bob: Member) -> None:
    key = f"k-{tag()}"
    mine, theirs = lab.memory(alice), lab.memory(bob)
    first = ok(post(lab, alice, mine, {"content": "the same words"}, key))
    other = post(lab, bob, theirs, {"content": "the same words"}, key)
    assert other.status_code == 200 and "Idempotent-Replayed" not in other.headers
    assert other.json()["id"] != first["id"] and other.json()["memory_id"] == theirs


def test_a_refusal_is_kept_and_replayed_like_a_success(lab: Lab, alice: Member) -> None:
    memory = lab.memory(alice)
    key = f"k-{tag()}"
    refused = post(lab, alice, memory, {"content": [{"type": "text"}]}, key)
    assert_error(refused, 422, "memory_invalid")
    again = post(lab, alice, memory, {"content": [{"type": "text"}]}, key)
    assert again.headers["Idempotent-Replayed"] == "true"
    assert again.status_code == 422 and again.json()["error"] == refused.json()["error"]


def test_a_refused_protocol_version_claims_no_key(lab: Lab, alice: Member) -> None:
    memory = lab.memory(alice)
    key = f"k-{tag()}"
    refused = post(lab, alice, memory, {"content": "a fact"}, key, **{"UHP-Version": "1999-01-01"})
    assert_error(refused, 400, "unsupported_protocol_version")
    accepted = post(lab, alice, memory, {"content": "a fact"}, key)
    assert accepted.status_code == 200 and "Idempotent-Replayed" not in accepted.headers


def test_a_key_is_kept_more_than_a_day_and_then_expires(
    lab: Lab, alice: Member, monkeypatch: pytest.MonkeyPatch
) -> None:
    memory = lab.memory(alice)
    key = f"k-{tag()}"
    first = ok(post(lab, alice, memory, {"content": "kept a day"}, key))
    started = ids.now_ms()
    monkeypatch.setattr(ids, "now_ms", lambda: started + DAY_MS + 60_000)
    replay = post(lab, alice, memory, {"content": "kept a day"}, key)
    assert replay.headers.get("Idempotent-Replayed") == "true" and replay.json()["id"] == first["id"]
    monkeypatch.setattr(ids, "now_ms", lambda: started + 3 * DAY_MS)
    fresh = post(lab, alice, memory, {"content": "kept a day"}, key)
    assert fresh.status_code == 200 and "Idempotent-Replayed" not in fresh.headers
    assert fresh.json()["id"] != first["id"]


def test_a_key_too_long_is_refused_before_anything_is_written(lab: Lab, alice: Member) -> None:
    memory = lab.memory(alice)
    error = assert_error(post(lab, alice, memory, {"content": "x"}, "k" * 256), 422, "memory_invalid")
    assert error["param"] == "Idempotency-Key"
    assert lab.listed(alice, memory) == []
