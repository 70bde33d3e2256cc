"""Concurrent keyed writers, and the check that what was acknowledged is there, once.

Each writer thread makes one intended write after another: a record whose text carries a marker
unique to that write, sent under an Idempotency-Key unique to it, and sent again with the same key
and body after any answer that is not 2xx (or no answer at all) until a 2xx or its deadline. Every
status (or transport error) is kept, so a test can say what the callers saw while things broke.
"""

from __future__ import annotations

import random
import threading
import time
import uuid
from collections import Counter
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

import httpx

from tests.faults.service import Api, text_of

CUT_OFF = {"RemoteProtocolError", "ReadError", "ReadTimeout"}  # the request went out, no answer came
RETRY_PAUSE = (0.1, 0.3)  # seconds between attempts, drawn at random so the writers do not march in step


@dataclass
class Intended:
    """One write a caller meant to make once."""

    key: str
    marker: str
    attempts: list[str] = field(default_factory=list)  # "200", "503", "ConnectError", ...
    record_id: str | None = None
    began: float = 0.0  # monotonic
    began_at: float = field(default_factory=time.time)  # wall clock, to compare with the server's times
    acknowledged_at: float | None = None

    @property
    def body(self) -> dict[str, Any]:
        return {"type": "note", "content": f"fault write {self.marker}"}


@dataclass
class Verdict:
    """What the writes came to."""

    intended: int
    acknowledged: int
    statuses: Counter[str]
    duplicates: dict[str, int]  # marker → how many records carry it, where more than one
    missing: list[str]  # acknowledged record ids that do not read back or are not listed
    unacknowledged_written: int  # writes never acknowledged that did happen (allowed: at most once)
    server_errors: list[str]  # answers 500 and above other than 503, with their body
    listed: dict[str, dict[str, Any]] = field(default_factory=dict)  # record id → the record as listed

    def line(self) -> str:
        statuses = ", ".join(f"{k}: {v}" for k, v in sorted(self.statuses.items()))
        return (
            f"{self.intended} intended writes, {self.acknowledged} acknowledged, "
            f"{self.unacknowledged_written} unacknowledged but written, "
            f"{len(self.duplicates)} written twice, "
            f"{len(self.missing)} acknowledged but missing; statuses seen: {statuses}"
        )


class Writers:
    """`threads` writers against one memory until stopped; each write retried under its key."""

    def __init__(
        self,
        url: str,
        headers: dict[str, str],
        memory_id: str,
        *,
        threads: int = 8,
        deadline_s: float = 90.0,
        request_timeout_s: float = 20.0,
    ):
        self.url, self.headers, self.memory_id = url, headers, memory_id
        self.deadline_s = deadline_s
        self.timeout = httpx.Timeout(request_timeout_s, connect=2.0)
        self.run = uuid.uuid4().hex[:8]
        self.stopping = threading.Event()
        self.lock = threading.Lock()
        self.intended: list[Intended] = []
        self.server_errors: list[str] = []
        self.threads = [threading.Thread(target=self._write, args=(i,), daemon=True) for i in range(threads)]

    @classmethod
    def on_a_new_memory(cls, api: Api, url: str, **options: Any) -> Writers:
        """Writers as a new member, into a memory of its own."""
        headers = api.member()
        return cls(url, headers, api.memory(headers), **options)

    def start(self) -> Writers:
        for thread in self.threads:
            thread.start()
        return self

    def acknowledged(self) -> int:
        with self.lock:
            return sum(1 for w in self.intended if w.record_id)

    def wait_for(self, acknowledged: int, within: float) -> None:
        """Until at least this many writes were acknowledged (AssertionError after `within` s)."""
        deadline = time.monotonic() + within
        while self.acknowledged() < acknowledged:
            assert time.monotonic() < deadline, (
                f"only {self.acknowledged()} writes acknowledged in {within} s"
            )
            time.sleep(0.05)

    def stop(self, within: float | None = None) -> list[Intended]:
        """No new writes; waits for those in flight (each bounded by its deadline)."""
        self.stopping.set()
        limit = time.monotonic() + (within if within is not None else self.deadline_s + 30)
        for thread in self.threads:
            thread.join(max(0.0, limit - time.monotonic()))
        assert not any(t.is_alive() for t in self.threads), "a writer did not finish by its deadline"
        return list(self.intended)

    def _write(self, writer: int) -> None:
        rng = random.Random(f"{self.run}-{writer}")
        with httpx.Client(base_url=self.url, timeout=self.timeout) as client:
            index = 0
            while not self.stopping.is_set():
                marker = f"w{self.run}x{writer}x{index}"
                write = Intended(key=f"k-{marker}", marker=marker, began=time.monotonic())
                with self.lock:
                    self.intended.append(write)
                self._until_acknowledged(client, write, rng)
                index += 1

    def _until_acknowledged(self, client: httpx.Client, write: Intended, rng: random.Random) -> None:
        headers = {**self.headers, "Idempotency-Key": write.key}
        path = f"/v1/memories/{self.memory_id}/records"
        while time.monotonic() - write.began < self.deadline_s:
            try:
                answer = client.post(path, json=write.body, headers=headers)
            except httpx.TransportError as e:
                write.attempts.append(type(e).__name__)
            else:
                write.attempts.append(str(answer.status_code))
                if 200 <= answer.status_code < 300:
                    write.record_id = str(answer.json()["id"])
                    write.acknowledged_at = time.monotonic()
                    return
                if answer.status_code >= 500 and answer.status_code != 503:
                    with self.lock:
                        self.server_errors.append(f"{answer.status_code} {answer.text[:300]}")
            time.sleep(rng.uniform(*RETRY_PAUSE))


def read_back(api: Api, headers: dict[str, str], memory_id: str, record_id: str) -> int:
    """GET of one record: its status (503 retried for a few seconds: the pool may be re-connecting)."""
    deadline = time.monotonic() + 10
    while True:
        status = api.client.get(f"/v1/memories/{memory_id}/records/{record_id}", headers=headers).status_code
        if status != 503 or time.monotonic() > deadline:
            return status
        time.sleep(0.2)


def verify(api: Api, writers: Writers) -> Verdict:
    """Every acknowledged write reads back and is listed, exactly once; none was written twice."""
    headers, memory_id = writers.headers, writers.memory_id
    intended = writers.intended
    listed = api.records(headers, memory_id)
    by_marker: dict[str, list[str]] = {}
    for record in listed:
        for word in text_of(record).split():
            if word.startswith(f"w{writers.run}x"):
                by_marker.setdefault(word, []).append(str(record["id"]))
    listed_ids = {str(r["id"]) for r in listed}
    missing = []
    for write in intended:
        if write.record_id is None:
            continue
        listed_once = write.record_id in listed_ids and write.record_id in by_marker.get(write.marker, [])
        if not listed_once or read_back(api, headers, memory_id, write.record_id) != 200:
            missing.append(write.record_id)
    return Verdict(
        intended=len(intended),
        acknowledged=sum(1 for w in intended if w.record_id),
        statuses=Counter(a for w in intended for a in w.attempts),
        duplicates={m: len(ids) for m, ids in by_marker.items() if len(ids) > 1},
        missing=missing,
        unacknowledged_written=sum(1 for w in intended if w.record_id is None and w.marker in by_marker),
        server_errors=list(writers.server_errors),
        listed={str(r["id"]): r for r in listed},
    )


def cut_off_then_acknowledged(writes: list[Intended]) -> list[Intended]:
    """Writes whose request was cut off (no answer, or a 5xx) before a retry was answered 2xx."""
    return [w for w in writes if w.record_id and any(a in CUT_OFF or a.startswith("5") for a in w.attempts)]


def written_at(record: dict[str, Any]) -> float:
    """When a record's version was written, as a Unix time."""
    return datetime.fromisoformat(str(record["time"]["written_at"]).replace("Z", "+00:00")).timestamp()


def assert_nothing_lost_or_doubled(verdict: Verdict, allowed: set[str], logged: Counter[str]) -> None:
    """The invariants: acknowledged writes are there once, nothing twice, no status outside `allowed`.

    `logged`: what the service logged as unhandled (route, exception, frames), for the message.
    """
    print(f"faults: {verdict.line()}")
    for error, count in logged.items():
        print(f"faults: {count} x unhandled {error}")
    assert verdict.acknowledged > 0, verdict.line()
    assert not verdict.missing, f"acknowledged but not read back or not listed: {verdict.missing[:10]}"
    assert not verdict.duplicates, f"written more than once: {verdict.duplicates}"
    unexpected = {s for s in verdict.statuses if s not in allowed}
    assert not unexpected, f"statuses not allowed here: {unexpected}; logged: {dict(logged)}"
