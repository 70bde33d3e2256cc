"""One member attacking the parts every member shares while another keeps working: the attacks, the
victim's calls and the world they run in, shared by tests/fuzz/test_noisy_neighbour.py and
`python -m bench.neighbours`.

The service runs for real (tests.serving), with a query sandbox service of its own (devtools'). The attacker
owns a memory of large records; the victim owns a memory with one record, and reads its memory, its
record, and queries its memory.
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import httpx
from fastapi import FastAPI

from devtools.sandbox_service import LocalSandbox
from provider.config import Settings
from provider.sandbox.pool import SandboxPool
from tests.conftest import Member
from tests.mcp.support import Agent
from tests.support import bookmark_ahead_of

HOSTILE_TIMEOUT_S = 60.0
BUDGET_SETTINGS = ("rate_reads", "rate_writes", "rate_queries", "in_flight_per_principal")
# A quota the upload flood reaches (the app also gets a sandbox service of its own, killed in the end),
# and the budgets a service starts with (the session's settings lift them).
SETTINGS: dict[str, Any] = {
    "file_quota_bytes": 64 * 1024 * 1024,
    **{name: Settings.model_fields[name].default for name in BUDGET_SETTINGS},
}
LARGE_RECORD = "words of a long record " * 4_000  # ~90 KB of text
VICTIM_QUERY = "MATCH (r:Record) RETURN r.id AS id"


@dataclass
class Live:
    url: str
    app: FastAPI
    sandbox: LocalSandbox
    attacker: Member
    victim: Member
    attacker_memory: str
    victim_memory: str
    victim_record: str
    shared_memory: str  # the victim's, where the attacker holds write and not read
    shared_record: str

    def pool(self) -> SandboxPool:
        pool: SandboxPool = self.app.state.services.queries.pool
        return pool


@dataclass
class Run:
    """What the victim saw (seconds per call, failures) and what the attacker's calls answered."""

    latencies: list[float] = field(default_factory=list)
    failures: list[str] = field(default_factory=list)
    hostile: list[str] = field(default_factory=list)


def posted(url: str, headers: dict[str, str], path: str, body: object) -> dict[str, object]:
    answer = httpx.post(url + path, json=body, headers=headers, timeout=60)
    assert answer.status_code == 200, answer.text
    made: dict[str, object] = answer.json()
    return made


def member(url: str, admin_key: str, member_type: str) -> Member:
    """A member made through the admin routes, with a key."""
    admin = {"Authorization": f"Bearer {admin_key}"}
    made = posted(url, admin, "/v1/admin/members", {"type": member_type, "name": "neighbour"})
    key = posted(url, admin, f"/v1/admin/members/{made['id']}/keys", {"server": False})
    return Member(id=str(made["id"]), key=str(key["key"]), type=member_type)


def world(url: str, app: FastAPI, sandbox: LocalSandbox, admin_key: str, large_records: int = 20) -> Live:
    attacker, victim = member(url, admin_key, "agent"), member(url, admin_key, "human")
    attacker_memory = str(posted(url, attacker.headers, "/v1/memories", {"name": "attacker"})["id"])
    victim_memory = str(posted(url, victim.headers, "/v1/memories", {"name": "victim"})["id"])
    record = posted(url, victim.headers, f"/v1/memories/{victim_memory}/records", {"content": "Acme renewed"})
    # A memory of the victim's where the attacker may write but not read (beside the one it queries,
    # whose copy every write there would otherwise renew).
    shared = str(posted(url, victim.headers, "/v1/memories", {"name": "shared"})["id"])
    grant = {"principal": f"member:{attacker.id}", "privileges": ["write"]}
    posted(url, victim.headers, f"/v1/memories/{shared}/grants", grant)
    kept = posted(url, victim.headers, f"/v1/memories/{shared}/records", {"content": "Acme's secret terms"})
    for _ in range(large_records):  # a scope whose copy is large: each write makes the next query copy it
        posted(url, attacker.headers, f"/v1/memories/{attacker_memory}/records", {"content": LARGE_RECORD})
    return Live(
        url,
        app,
        sandbox,
        attacker,
        victim,
        attacker_memory,
        victim_memory,
        str(record["id"]),
        shared,
        str(kept["id"]),
    )


def query(client: httpx.Client, who: Member, memory: str, statement: str) -> httpx.Response:
    return client.post(f"/v1/memories/{memory}/query", json={"statement": statement}, headers=who.headers)


def doubling(live: Live, client: httpx.Client) -> str:
    """A string doubled 30 times: 2 GB built inside one expression, which Neo4j does not track."""
    statement = "RETURN size(reduce(s = 'xy', i IN range(1, 30) | s + s)) AS n"
    return str(query(client, live.attacker, live.attacker_memory, statement).status_code)


def huge_answer(live: Live, client: httpx.Client) -> str:
    """Five million numbers in one value (38.9 MB of JSON before the answer bound)."""
    return str(
        query(client, live.attacker, live.attacker_memory, "RETURN range(1, 5000000) AS r").status_code
    )


def huge_answer_through_mcp(live: Live, client: httpx.Client) -> str:
    """Three million numbers through MCP's `memory_query`."""

    async def call() -> str:
        async with Agent(live.url, live.attacker).session() as session:
            arguments = {"memory": live.attacker_memory, "statement": "RETURN range(1, 3000000) AS r"}
            result = await session.call_tool("memory_query", arguments)
        return "mcp error" if result.is_error else "mcp ok"

    return asyncio.run(call())


def copy_again_and_again(live: Live, client: httpx.Client) -> str:
    """A write, then a query: each query copies the attacker's ~2 MB scope into the sandbox again."""
    client.post(
        f"/v1/memories/{live.attacker_memory}/records",
        json={"content": "one more"},
        headers=live.attacker.headers,
    )
    statement = "MATCH (r:Record) RETURN count(r) AS n"
    return str(query(client, live.attacker, live.attacker_memory, statement).status_code)


UPLOAD = b"\0" * (8 * 1024 * 1024)


def upload_flood(live: Live, client: httpx.Client) -> str:
    """8 MB uploads, one after another, until the uploader's quota says no."""
    files = {"file": ("flood.bin", UPLOAD, "application/octet-stream")}
    return str(client.post("/v1/files", files=files, headers=live.attacker.headers).status_code)


def future_bookmark(live: Live, client: httpx.Client) -> str:
    """A write, then a read carrying that write's bookmark forged far into the future."""
    path = f"/v1/memories/{live.attacker_memory}/records"
    written = client.post(path, json={"content": "bookmarked"}, headers=live.attacker.headers)
    forged = bookmark_ahead_of(written.headers["UHP-Bookmark"])
    headers = {**live.attacker.headers, "UHP-Bookmark": forged}
    return str(client.get(f"/v1/memories/{live.attacker_memory}", headers=headers).status_code)


def write_without_read(live: Live, client: httpx.Client) -> str:
    """A writer who may not read revises a record of the victim's: it may, and is told nothing of it."""
    path = f"/v1/memories/{live.shared_memory}/records/{live.shared_record}"
    answer = client.patch(path, json={"attributes": {"poked": True}}, headers=live.attacker.headers)
    assert "Acme" not in answer.text, "a writer without read saw content"
    return str(answer.status_code)


Hostile = Callable[[Live, httpx.Client], str]
ATTACKS: tuple[Hostile, ...] = (
    doubling,
    huge_answer,
    huge_answer_through_mcp,
    copy_again_and_again,
    upload_flood,
    future_bookmark,
    write_without_read,
)


def remember_flood(live: Live, client: httpx.Client) -> str:
    """An ordinary remember on the busy member's own memory."""
    path = f"/v1/memories/{live.attacker_memory}/records"
    return str(
        client.post(path, json={"content": "busy fact about Acme"}, headers=live.attacker.headers).status_code
    )


def recall_flood(live: Live, client: httpx.Client) -> str:
    """An ordinary question to the busy member's own memory."""
    path = f"/v1/memories/{live.attacker_memory}/recall"
    return str(
        client.post(path, json={"query": "what about Acme?"}, headers=live.attacker.headers).status_code
    )


def cypher_flood(live: Live, client: httpx.Client) -> str:
    """An ordinary free Cypher query on the busy member's own memory."""
    statement = "MATCH (r:Record) RETURN r.id AS id LIMIT 5"
    return str(query(client, live.attacker, live.attacker_memory, statement).status_code)


FLOODS: tuple[Hostile, ...] = (remember_flood, recall_flood, cypher_flood)
FLOOD_CONNECTIONS = 16


def attack(live: Live, hostile: Hostile, stop: threading.Event, run: Run) -> None:
    """Repeats `hostile` until `stop`, noting each answer."""
    with httpx.Client(base_url=live.url, timeout=httpx.Timeout(HOSTILE_TIMEOUT_S, connect=5.0)) as client:
        while not stop.is_set():
            try:
                run.hostile.append(hostile(live, client))
            except httpx.TransportError as e:
                run.hostile.append(f"closed: {type(e).__name__}")


def victim(live: Live, run: Run, calls: int, pause: float = 0.1) -> None:
    """The victim's own calls in turn: its memory, its record, a query on its memory."""
    memory = live.victim_memory
    asks = [
        ("GET", f"/v1/memories/{memory}", None),
        ("GET", f"/v1/memories/{memory}/records/{live.victim_record}", None),
        ("POST", f"/v1/memories/{memory}/query", {"statement": VICTIM_QUERY}),
    ]
    with httpx.Client(base_url=live.url, timeout=httpx.Timeout(60.0, connect=5.0)) as client:
        for i in range(calls):
            method, path, body = asks[i % len(asks)]
            began = time.perf_counter()
            answer = client.request(method, path, json=body, headers=live.victim.headers)
            run.latencies.append(time.perf_counter() - began)
            if not 200 <= answer.status_code < 300:
                run.failures.append(f"{method} {path}: {answer.status_code} {answer.text[:300]}")
            time.sleep(pause)


def under_attack(live: Live, hostile: Hostile, calls: int, workers: int = 2) -> Run:
    """The victim's calls while `workers` threads repeat `hostile` (from its first answer on)."""
    run, stop = Run(), threading.Event()
    threads = [
        threading.Thread(target=attack, args=(live, hostile, stop, run), daemon=True) for _ in range(workers)
    ]
    for thread in threads:
        thread.start()
    deadline = time.monotonic() + HOSTILE_TIMEOUT_S
    while not run.hostile and time.monotonic() < deadline:
        time.sleep(0.05)
    try:
        victim(live, run, calls)
    finally:
        stop.set()
        for thread in threads:
            thread.join(HOSTILE_TIMEOUT_S + 30)
    return run


def kill_sandbox_and_wait(live: Live, within: float, under: Hostile | None = None) -> tuple[float, list[int]]:
    """SIGKILLs the sandbox's JVM (while `under` is repeated from two threads, when given); seconds
    until the victim's query answers 200, and what it got meanwhile. The victim's plain reads must
    answer 200 all along."""
    victim(live, Run(), 3)  # the service runs and holds the victim's copy
    killed = live.sandbox.process
    assert killed.poll() is None, "the sandbox service runs"
    run, stop = Run(), threading.Event()
    threads = [] if under is None else [
        threading.Thread(target=attack, args=(live, under, stop, run), daemon=True) for _ in range(2)
    ]  # fmt: skip
    for thread in threads:
        thread.start()
    live.sandbox.kill()
    killed.wait(10)
    began = time.monotonic()
    statuses: list[int] = []
    try:
        with httpx.Client(base_url=live.url, timeout=httpx.Timeout(60.0, connect=5.0)) as client:
            while time.monotonic() - began < within:
                statuses.append(query(client, live.victim, live.victim_memory, VICTIM_QUERY).status_code)
                if statuses[-1] == 200:
                    break
                read = client.get(f"/v1/memories/{live.victim_memory}", headers=live.victim.headers)
                assert read.status_code == 200, f"a plain read noticed the sandbox: {read.status_code}"
                time.sleep(0.2)
    finally:
        stop.set()
        for thread in threads:
            thread.join(HOSTILE_TIMEOUT_S + 30)
    return time.monotonic() - began, statuses
