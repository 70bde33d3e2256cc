"""Observe jobs through HTTP on the real Neo4j: 202 when asked or for a large batch, read at their route,
finished by another runner when theirs died, and never another memory's."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient

from provider import ids
from provider.fairness import FairGate
from provider.models import Caller, NewObserveJob
from provider.protocol.record_requests import ObserveRequest
from tests.api.lifecycle_support import cypher
from tests.api.records_support import Lab, assert_error, ok, tag, validate
from tests.conftest import Member
from tests.neo4j_target import Neo4jTarget


@pytest.fixture
def lab(client: TestClient) -> Iterator[Lab]:
    tracker = Lab(client)
    yield tracker
    tracker.cleanup()


def observe(lab: Lab, who: Member, memory_id: str, episodes: list[Any], **headers: str) -> Any:
    return lab.client.post(
        f"/v1/memories/{memory_id}/observe", json={"episodes": episodes}, headers={**who.headers, **headers}
    )


def job_of(lab: Lab, who: Member, memory_id: str, job_id: str) -> Any:
    return lab.client.get(f"/v1/memories/{memory_id}/jobs/{job_id}", headers=who.headers)


def settled(lab: Lab, who: Member, memory_id: str, job_id: str, seconds: float = 20.0) -> dict[str, Any]:
    deadline = time.monotonic() + seconds
    while True:
        body = dict(ok(job_of(lab, who, memory_id, job_id)))
        if body["status"] != "pending" or time.monotonic() > deadline:
            return body
        time.sleep(0.1)


def test_an_observe_asked_to_answer_at_once_gets_a_job_that_completes(lab: Lab, alice: Member) -> None:
    memory_id = lab.memory(alice)
    marker = tag()
    answer = observe(lab, alice, memory_id, [{"content": f"turn one {marker}"}, {"content": "turn two"}],
                     Prefer="respond-async")  # fmt: skip
    assert answer.status_code == 202, answer.text
    body = answer.json()
    assert body["data"] == [] and body["job"]["status"] in ("pending", "completed")
    job = settled(lab, alice, memory_id, body["job"]["id"])
    assert job["status"] == "completed"
    validate("MemoryJob", job)
    assert [r["type"] for r in job["data"]] == ["episode", "episode"]
    assert job["data"][0]["content"] == [{"type": "text", "text": f"turn one {marker}"}]
    assert sorted(lab.listed(alice, memory_id)) == sorted(r["id"] for r in job["data"])


def test_a_large_batch_is_kept_after_the_answer(lab: Lab, alice: Member, client: TestClient) -> None:
    memory_id = lab.memory(alice)
    many = client.app.state.services.settings.observe_sync_max + 1  # type: ignore[attr-defined]
    answer = observe(lab, alice, memory_id, [{"content": f"episode {i}"} for i in range(many)])
    assert answer.status_code == 202
    job = settled(lab, alice, memory_id, answer.json()["job"]["id"], seconds=60)
    assert job["status"] == "completed" and len(job["data"]) == many


def test_a_job_is_not_found_in_another_memory_nor_by_one_who_cannot_read(
    lab: Lab, alice: Member, bob: Member
) -> None:
    memory_id, other = lab.memory(alice), lab.memory(alice)
    job_id = observe(lab, alice, memory_id, [{"content": "x"}], Prefer="respond-async").json()["job"]["id"]
    settled(lab, alice, memory_id, job_id)
    assert_error(job_of(lab, alice, other, job_id), 404, "uhp_memory.job_not_found")
    assert_error(job_of(lab, alice, memory_id, "hjob_" + "0" * 32), 404, "uhp_memory.job_not_found")
    assert_error(job_of(lab, bob, memory_id, job_id), 404, "memory_not_found")


def test_a_job_whose_runner_died_is_taken_over_and_keeps_each_episode_once(
    lab: Lab, alice: Member, client: TestClient, neo4j_target: Neo4jTarget
) -> None:
    """A job left pending by a dead process, part of it written: the sweeper finishes it, no duplicates."""
    services: Any = client.app.state.services  # type: ignore[attr-defined]
    # The session's apps sweep only when a test asks: no background pass can take the job before ours.
    assert services.settings.sweep_seconds == 0, "a background sweeper would race this test's sweep"
    memory_id = lab.memory(alice)
    jobs = client.app.state.services.jobs  # type: ignore[attr-defined]
    job_id = ids.new_id(ids.JOB)
    episodes = [{"content": f"kept once {tag()}"}, {"content": f"and this {tag()}"}]
    portal = client.portal
    assert portal is not None
    parsed = [e.draft([]) for e in ObserveRequest.model_validate({"episodes": episodes}).episodes]
    owner = Caller(member_id=alice.id, member_type="human")
    # The dead runner wrote the first episode under the job's derived id, then died.
    portal.call(lambda: jobs.observe.observe(owner, memory_id, parsed[:1], seed=job_id))
    now = ids.now_ms()
    held = NewObserveJob(
        id=job_id,
        memory_id=memory_id,
        caller=owner,
        episodes_json=json.dumps(episodes),
        count=2,
        now=now,
        lease_until=now - 1,
        owner="dead",
    )
    portal.call(lambda: jobs.jobs.create(held))
    assert len(lab.listed(alice, memory_id)) == 1
    sweeper: Any = client.app.state.services.sweeper  # type: ignore[attr-defined]
    swept = portal.call(sweeper.sweep)
    assert swept.jobs_resumed >= 1
    job = settled(lab, alice, memory_id, job_id)
    assert job["status"] == "completed" and len(job["data"]) == 2
    assert len(lab.listed(alice, memory_id)) == 2
    left = cypher(neo4j_target, "MATCH (j:ObserveJob {id: $id}) RETURN j.episodes_json AS held", id=job_id)
    assert left == [{"held": None}], "a finished job keeps no content of its own"


def test_a_job_under_an_idempotency_key_is_one_job(lab: Lab, alice: Member) -> None:
    memory_id = lab.memory(alice)
    key = f"k-{tag()}"
    first = observe(
        lab, alice, memory_id, [{"content": "once"}], Prefer="respond-async", **{"Idempotency-Key": key}
    )
    again = observe(
        lab, alice, memory_id, [{"content": "once"}], Prefer="respond-async", **{"Idempotency-Key": key}
    )
    assert first.status_code == again.status_code == 202
    assert first.json()["job"]["id"] == again.json()["job"]["id"]
    settled(lab, alice, memory_id, first.json()["job"]["id"])
    assert len(lab.listed(alice, memory_id)) == 1


def test_however_many_jobs_a_caller_starts_a_process_runs_a_bounded_number_at_once(
    lab: Lab, alice: Member, client: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    memory_id = lab.memory(alice)
    jobs: Any = client.app.state.services.jobs  # type: ignore[attr-defined]
    monkeypatch.setattr(jobs, "slots", FairGate("observe jobs", slots=1, max_waiting=1, max_wait_seconds=1.0))
    keep = jobs.observe.observe
    running, most = 0, 0

    async def counted(*args: Any, **kwargs: Any) -> Any:
        nonlocal running, most
        running += 1
        most = max(most, running)
        try:
            await asyncio.sleep(0.05)
            return await keep(*args, **kwargs)
        finally:
            running -= 1

    monkeypatch.setattr(jobs.observe, "observe", counted)
    started = [
        observe(lab, alice, memory_id, [{"content": f"burst {i} {tag()}"}], Prefer="respond-async").json()[
            "job"
        ]
        for i in range(4)
    ]
    for job in started:
        assert settled(lab, alice, memory_id, job["id"])["status"] == "completed"
    assert most == 1
