"""A consolidation run and an erase cut off by a SIGKILL of the service: nothing stays stuck or behind.

Consolidation: a run over many duplicate facts is killed part-way. After a restart the memory is
`memory_busy` no longer than the run's lease (UHP_LEASE_MS, 10 s here, longer than a restart takes so
the lease and not the restart is what is measured); the interrupted run ends `failed`, closed by the
sweeper or by the next run; and the next run finishes the work (one fact left of the duplicates).

Erase: records holding many file parts are erased and the service is killed either right after the
erase's transaction committed (its retry must answer 200 and remove the bytes) or while the bytes are
being removed (with no retry, the sweeper must remove the rest).
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest
from neo4j import Driver, GraphDatabase

from tests.faults.conftest import DedicatedNeo4j, ServiceFactory
from tests.faults.service import Api, ServiceProcess, text_of

pytestmark = pytest.mark.faults(timeout=150)

LONG_LEASE_MS = 10_000  # longer than a restart takes (4-7 s on 2 busy cores)
LEASE_S = LONG_LEASE_MS / 1000
MARGIN_S = 1.5  # a request's own time, and the clocks of two processes
DUPLICATES = 100  # the run still has ~80 merges to go when it is killed after 20
FACT = "Harlow Mills pays its invoices net sixty."
FILES, PER_RECORD = 120, 60
POLL = 0.005


@pytest.fixture
def bolt(neo4j: DedicatedNeo4j) -> Iterator[Driver]:
    """A driver on the folder's Neo4j, to watch what the service has committed."""
    access = neo4j.access
    with GraphDatabase.driver(
        access.uri, auth=(access.user, access.password), connection_timeout=3
    ) as driver:
        yield driver


def count(driver: Driver, cypher: str, **params: Any) -> int:
    records, _, _ = driver.execute_query(cypher, params)
    return int(records[0][0])


def in_parallel(calls: list[Callable[[], Any]], threads: int = 8) -> list[Any]:
    with ThreadPoolExecutor(threads) as pool:
        return [f.result(timeout=60) for f in [pool.submit(c) for c in calls]]


def until(condition: Callable[[], bool], within: float, what: str, pause: float = POLL) -> float:
    """Polls until `condition()`; when it held (monotonic). AssertionError naming `what` after `within` s."""
    deadline = time.monotonic() + within
    while not condition():
        assert time.monotonic() < deadline, f"{what}: not within {within} s"
        time.sleep(pause)
    return time.monotonic()


def in_background(call: Callable[[], Any]) -> threading.Thread:
    """A request whose answer we do not wait for (the process answering it will be killed)."""

    def swallow() -> None:
        with contextlib.suppress(httpx.TransportError):  # cut off by the kill, as intended
            call()

    thread = threading.Thread(target=swallow, daemon=True)
    thread.start()
    return thread


# -- consolidation -------------------------------------------------------------------------------


def running_run(api: Api, headers: dict[str, str], memory_id: str) -> str | None:
    runs = api.ok(api.client.get(f"/v1/memories/{memory_id}/consolidations", headers=headers))["data"]
    return next((str(r["id"]) for r in runs if r["status"] == "running"), None)


def changes_of(api: Api, headers: dict[str, str], memory_id: str, run_id: str) -> int:
    path = f"/v1/memories/{memory_id}/consolidations/{run_id}/changes"
    return len(api.ok(api.client.get(path, headers=headers))["data"])


def kill_mid_run(api: Api, served: ServiceProcess, headers: dict[str, str], memory_id: str) -> str:
    """Starts a run and kills the service once the run changed some records; the run's id."""
    path = f"/v1/memories/{memory_id}/consolidations"
    in_background(lambda: api.client.post(path, json={}, headers=headers, timeout=120))
    found: list[str] = []

    def started() -> bool:
        run_id = running_run(api, headers, memory_id)
        found.extend([run_id] if run_id else [])
        return bool(run_id)

    until(started, 30, "the run started", pause=0.02)
    until(lambda: changes_of(api, headers, memory_id, found[0]) >= 20, 60, "the run changed 20 records", 0.02)
    served.kill()
    return found[0]


def unblocking(
    api: Api, headers: dict[str, str], memory_id: str, elsewhere: str, how: str
) -> Callable[[], httpx.Response]:
    """What waits for the memory: a move below another memory, or a new run."""
    if how == "move":
        return lambda: api.client.put(
            f"/v1/memories/{memory_id}", json={"parent_id": elsewhere}, headers=headers
        )
    path = f"/v1/memories/{memory_id}/consolidations"
    return lambda: api.client.post(path, json={}, headers=headers, timeout=120)


@pytest.mark.parametrize("unblocked_by", ["move", "new_run"])
def test_a_killed_run_holds_its_memory_no_longer_than_its_lease(
    service: ServiceFactory, unblocked_by: str
) -> None:
    # "move": the sweeper (every 2 s) closes the dead run; "new_run": no sweep comes, the next run does.
    sweep = "2" if unblocked_by == "move" else "300"
    served = service(UHP_LEASE_MS=str(LONG_LEASE_MS), UHP_SWEEP_SECONDS=sweep)
    served.start()
    with Api(served.url, served.admin_key) as api:
        headers = api.member()
        memory_id, elsewhere = api.memory(headers), api.memory(headers)
        path = f"/v1/memories/{memory_id}/records"
        body = {"type": "fact", "content": FACT}
        in_parallel([lambda: api.write(path, body, headers)] * DUPLICATES)
        run_id = kill_mid_run(api, served, headers, memory_id)
        killed = time.monotonic()
        served.start()
        restarted = time.monotonic() - killed
        attempt = unblocking(api, headers, memory_id, elsewhere, unblocked_by)
        answer = assert_busy_no_longer_than_a_lease(attempt, killed, restarted, unblocked_by)
        assert_closed_as_failed(api, headers, memory_id, run_id)
        if unblocked_by == "move":
            path = f"/v1/memories/{memory_id}/consolidations"
            answer = api.client.post(path, json={}, headers=headers, timeout=120)
        assert api.ok(answer)["status"] == "completed", answer.text
        left = [r for r in api.records(headers, memory_id) if text_of(r) == FACT]
        assert len(left) == 1, f"{len(left)} copies of the fact left after the next run"


def assert_busy_no_longer_than_a_lease(
    attempt: Callable[[], httpx.Response], killed: float, restarted: float, what: str
) -> httpx.Response:
    """`attempt` is refused `memory_busy` at most a lease after the kill, then answered 200."""
    busy, sent, answer = retry_while_busy(attempt, within=LEASE_S + 10)
    busy_for = (busy[-1] if busy else killed) - killed
    print(
        f"faults: service back {restarted:.1f} s after the kill; memory_busy {len(busy)} times, the last "
        f"{busy_for:.1f} s after the kill (lease {LEASE_S:.0f} s); the {what} sent "
        f"{sent - killed:.1f} s after the kill answered {answer.status_code}"
    )
    assert answer.status_code == 200, answer.text
    assert busy_for <= LEASE_S + MARGIN_S, "memory_busy for longer than a lease after the kill"
    assert sent - killed <= max(LEASE_S, restarted) + MARGIN_S
    return answer


def assert_closed_as_failed(api: Api, headers: dict[str, str], memory_id: str, run_id: str) -> None:
    """The interrupted run is closed `failed` (by the sweeper or the next run), its changes kept."""
    run_path = f"/v1/memories/{memory_id}/consolidations/{run_id}"
    until(lambda: api.ok(api.client.get(run_path, headers=headers))["status"] != "running", 10,
          "the interrupted run was closed", pause=0.2)  # fmt: skip
    dead = api.ok(api.client.get(run_path, headers=headers))
    assert dead["status"] == "failed", dead
    assert changes_of(api, headers, memory_id, run_id) >= 20, "its changes are kept (revertible)"


def retry_while_busy(
    attempt: Callable[[], httpx.Response], within: float
) -> tuple[list[float], float, httpx.Response]:
    """Sends `attempt` until it is not 409 `memory_busy`: when each busy answer was sent, when the
    attempt that got through was sent (monotonic), and its answer."""
    busy: list[float] = []
    deadline = time.monotonic() + within
    while True:
        sent = time.monotonic()
        answer = attempt()
        if answer.status_code != 409 or time.monotonic() > deadline:
            return busy, sent, answer
        assert answer.json()["error"]["code"] == "memory_busy", answer.text
        busy.append(sent)
        time.sleep(0.1)


# -- erase ---------------------------------------------------------------------------------------


def blob(file_dir: Path, data: bytes) -> Path:
    digest = hashlib.sha256(data).hexdigest()
    return file_dir / digest[:2] / digest


def records_with_files(
    api: Api, headers: dict[str, str], memory_id: str, tag: str
) -> tuple[list[str], list[bytes]]:
    """FILES uploads of bytes no one else holds, PER_RECORD of them in each record; ids and bytes."""
    datas = [f"erase me {tag} {i}".encode() for i in range(FILES)]
    file_ids = in_parallel([functools.partial(api.upload, headers, d) for d in datas])
    path = f"/v1/memories/{memory_id}/records"
    record_ids = []
    for start in range(0, FILES, PER_RECORD):
        parts = [{"type": "file", "file": {"id": f}} for f in file_ids[start : start + PER_RECORD]]
        body = {"type": "note", "content": [{"type": "text", "text": "attachments"}, *parts]}
        record_ids.append(str(api.write(path, body, headers)["id"]))
    return record_ids, datas


@dataclass
class Erasure:
    """Records holding FILES blobs of their own, and the erase of all of them."""

    api: Api
    headers: dict[str, str]
    memory_id: str
    record_ids: list[str]
    blobs: list[Path]

    @property
    def path(self) -> str:
        return f"/v1/memories/{self.memory_id}/erase"

    def send(self) -> httpx.Response:
        return self.api.client.post(self.path, json={"record_ids": self.record_ids}, headers=self.headers)

    def left(self) -> int:
        return sum(p.exists() for p in self.blobs)

    def records_found(self) -> list[int]:
        paths = [f"/v1/memories/{self.memory_id}/records/{r}" for r in self.record_ids]
        return [self.api.client.get(p, headers=self.headers).status_code for p in paths]


def erasure(api: Api, served: ServiceProcess, tag: str) -> Erasure:
    headers = api.member()
    memory_id = api.memory(headers)
    record_ids, datas = records_with_files(api, headers, memory_id, tag)
    found = Erasure(api, headers, memory_id, record_ids, [blob(served.file_dir, d) for d in datas])
    assert found.left() == FILES
    return found


@pytest.mark.parametrize("cut", ["after_commit_then_retry", "mid_removal_then_sweeper"])
def test_an_erase_cut_off_by_a_kill_leaves_no_bytes_behind(
    service: ServiceFactory, bolt: Driver, cut: str, tmp_path: Path
) -> None:
    retry = cut == "after_commit_then_retry"
    # With a retry: a long lease and no sweep, so the retry (not the start-up sweep) does the work.
    long_lease = {"UHP_LEASE_MS": str(LONG_LEASE_MS), "UHP_SWEEP_SECONDS": "300"}
    served = service(**(long_lease if retry else {"UHP_SWEEP_SECONDS": "2"}))
    served.start()
    with Api(served.url, served.admin_key) as api:
        erase = erasure(api, served, tmp_path.name)
        in_background(erase.send)
        if retry:
            gone = "MATCH (r:Record) WHERE r.id IN $ids RETURN count(r)"
            until(lambda: count(bolt, gone, ids=erase.record_ids) == 0, 30, "the erase committed")
        else:
            until(lambda: erase.left() < FILES, 30, "the erase began removing bytes")
        served.kill()
        killed, left_at_kill = time.monotonic(), erase.left()
        served.start()
        print(f"faults: erase killed {cut.split('_then_')[0]}, {left_at_kill} of {FILES} blobs left then")
        if retry:
            again = erase.send()
            assert again.status_code == 200, again.text
            assert sorted(again.json()["erased"]) == sorted(erase.record_ids)
            assert erase.left() == 0, f"{erase.left()} of {FILES} blobs still there after the retry answered"
        else:
            try:
                until(lambda: erase.left() == 0, LEASE_S + 10, "the sweeper removed the bytes", 0.2)
            finally:
                print(f"faults: {erase.left()} blobs left {time.monotonic() - killed:.0f} s after the kill")
        assert erase.records_found() == [404] * len(erase.record_ids)
