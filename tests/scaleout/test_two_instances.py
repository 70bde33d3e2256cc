"""Two instances, one truth: one client's calls spread over A and B behave as if one service answered.

Each test sends the `UHP-Bookmark` an answer gave with the next call, as a client behind a load
balancer would. What is covered: a record (with a file) written through one instance and read,
recalled, revised, queried with Cypher and erased through the other; an Idempotency-Key retried on
the other instance (after, and at the same time); B's query sandbox, a copy cached by data version,
answering after A's writes as if it kept nothing; bookmarks reaching Neo4j (refused when unknown,
waited for a bounded time when ahead); and, last, a consolidation run under an Idempotency-Key, both
leases (the key's and the run's) held by A, which is SIGKILLed: B's retry under the key takes both
over and does the work, and A, started again, replays B's answer.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import secrets
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import httpx
import pytest

from tests.faults.service import text_of
from tests.scaleout.conftest import LEASE_MS, Pair
from tests.support import bookmark_ahead_of

pytestmark = pytest.mark.scaleout(timeout=300)

BOOKMARK = "UHP-Bookmark"
FACT = "Harlow Mills pays its invoices net sixty."
DUPLICATES = 150


class Client:
    """One client behind a load balancer: each call names the instance, and carries the last bookmark."""

    def __init__(self, pair: Pair):
        self.apis = {"a": pair.api(pair.a), "b": pair.api(pair.b)}
        self.headers: dict[str, str] = {}
        self.bookmark = ""

    def close(self) -> None:
        for api in self.apis.values():
            api.close()

    def call(self, on: str, method: str, path: str, **kwargs: Any) -> httpx.Response:
        carried = {BOOKMARK: self.bookmark} if self.bookmark else {}
        headers = self.headers | carried | kwargs.pop("headers", {})
        answer = self.apis[on].client.request(method, path, headers=headers, **kwargs)
        self.bookmark = answer.headers.get(BOOKMARK, self.bookmark)
        return answer

    def ok(self, on: str, method: str, path: str, **kwargs: Any) -> Any:
        return self.apis[on].ok(self.call(on, method, path, **kwargs))


@pytest.fixture
def client(pair: Pair) -> Any:
    spread = Client(pair)
    spread.headers = spread.apis["a"].member()
    yield spread
    spread.close()


def new_memory(client: Client, on: str = "a") -> str:
    return str(client.ok(on, "POST", "/v1/memories", json={"name": f"m-{secrets.token_hex(4)}"})["id"])


def remember(client: Client, on: str, memory_id: str, text: str, **body: Any) -> dict[str, Any]:
    record: dict[str, Any] = client.ok(
        on, "POST", f"/v1/memories/{memory_id}/records", json={"type": "fact", "content": text, **body}
    )
    return record


def rows(client: Client, on: str, memory_id: str, statement: str) -> list[list[Any]]:
    answer = client.ok(on, "POST", f"/v1/memories/{memory_id}/query", json={"statement": statement})
    return list(answer["rows"])


def recalled(client: Client, on: str, memory_id: str, query: str) -> list[str]:
    answer = client.ok(on, "POST", f"/v1/memories/{memory_id}/recall", json={"query": query, "limit": 10})
    return [str(r["record"]["id"]) for r in answer["results"]]


def object_exists(pair: Pair, data: bytes) -> bool:
    digest = hashlib.sha256(data).hexdigest()
    key = f"{pair.prefix}{digest[:2]}/{digest}"
    listed = pair.s3.client().list_objects_v2(Bucket=pair.s3.bucket, Prefix=key)
    return bool(listed.get("KeyCount", 0))


def test_a_record_written_through_a_is_read_recalled_revised_queried_and_erased_through_b(
    pair: Pair, client: Client
) -> None:
    memory_id = new_memory(client)
    data = os.urandom(200_000)
    files = {"file": ("scan.pdf", data, "application/pdf")}
    file_id = client.ok("a", "POST", "/v1/files", files=files)["id"]
    content = [{"type": "text", "text": "Acme renews its support contract every March."},
               {"type": "file", "file": {"id": file_id}}]  # fmt: skip
    written = remember(client, "a", memory_id, "", content=content, title="acme renewal")
    assert client.bookmark, "an answer to a write carries the bookmark after it"
    path = f"/v1/memories/{memory_id}/records/{written['id']}"

    assert client.ok("b", "GET", path)["content"] == written["content"]
    assert client.call("b", "GET", f"{path}/content/1").content == data, "bytes uploaded through A"
    assert written["id"] in recalled(client, "b", memory_id, "when does Acme renew?")
    titles = rows(client, "b", memory_id, "MATCH (r:Record) RETURN r.id AS id, r.title AS title")
    assert [written["id"], "acme renewal"] in titles, "B's sandbox copy holds the record A wrote"

    more = [*content, {"type": "text", "text": "Since 2024."}]
    revised = client.ok("b", "PATCH", path, json={"content": more})
    assert revised["version"] == 2
    assert client.ok("a", "GET", path)["version"] == 2, "A reads B's revision"

    erased = client.ok("b", "POST", f"/v1/memories/{memory_id}/erase", json={"record_ids": [written["id"]]})
    assert erased["erased"] == [written["id"]]
    assert client.call("a", "GET", path).status_code == 404
    assert client.call("a", "GET", f"{path}/content/1").status_code == 404
    assert not object_exists(pair, data), "the erase through B removed the object A uploaded"


def test_an_idempotency_key_retried_on_the_other_instance_does_the_work_once(client: Client) -> None:
    memory_id = new_memory(client)
    body = {"type": "fact", "content": "Retried through the other door."}
    path = f"/v1/memories/{memory_id}/records"
    key = {"Idempotency-Key": secrets.token_hex(16)}
    first = client.ok("a", "POST", path, json=body, headers=key)
    again = client.call("b", "POST", path, json=body, headers=key)
    assert again.status_code == 200 and again.json() == first, "B replays what A answered"

    # The same key sent to both at once: one does the work, the other waits for it and replays it.
    key = {"Idempotency-Key": secrets.token_hex(16)}
    racing = {"type": "fact", "content": "Sent to both at once."}
    with ThreadPoolExecutor(2) as pool:
        answers = list(pool.map(lambda on: client.call(on, "POST", path, json=racing, headers=key), "ab"))
    assert [a.status_code for a in answers] == [200, 200], [a.text for a in answers]
    assert answers[0].json()["id"] == answers[1].json()["id"]
    listed = client.ok("b", "GET", path, params={"limit": 100})["data"]
    assert sorted(text_of(r) for r in listed) == sorted([body["content"], racing["content"]])


def test_b_s_cached_sandbox_copy_answers_as_if_it_kept_nothing(client: Client) -> None:
    memory_id = new_memory(client)
    remember(client, "a", memory_id, "The first fact.")
    count = "MATCH (r:Record) RETURN count(r) AS n"
    assert rows(client, "b", memory_id, count) == [[1]]
    assert rows(client, "b", memory_id, count) == [[1]]  # the same version: B answers from its copy
    late = remember(client, "a", memory_id, "A late fact about Zanzibar shipping routes.")
    assert rows(client, "b", memory_id, count) == [[2]], "A's write is a newer version: B copies again"
    assert late["id"] in recalled(client, "b", memory_id, "Zanzibar shipping")
    client.ok("a", "DELETE", f"/v1/memories/{memory_id}/records/{late['id']}")
    status = f"MATCH (r:Record {{id: '{late['id']}'}}) RETURN r.status AS s"
    assert rows(client, "b", memory_id, status) == [["forgotten"]]
    assert late["id"] not in recalled(client, "b", memory_id, "Zanzibar shipping")


def test_bookmarks_reach_the_database_of_the_other_instance(client: Client) -> None:
    memory_id = new_memory(client)
    remember(client, "a", memory_id, "Bookmarked.")
    given = client.bookmark
    path = f"/v1/memories/{memory_id}/records"
    assert client.call("b", "GET", path).status_code == 200, "B honours A's bookmark"
    for bad, why in (("not a bookmark!", "not shaped like one"), ("FB:AAAA", "not Neo4j's")):
        refused = client.call("b", "GET", path, headers={BOOKMARK: bad})
        assert refused.status_code == 422, (why, refused.text)
        assert (refused.json()["error"]["code"], refused.json()["error"]["param"]) == (
            "invalid_input",
            BOOKMARK,
        )
    future = {BOOKMARK: bookmark_ahead_of(given.split(",")[0].strip())}
    ahead = client.apis["b"].client.get(path, headers=client.headers | future, timeout=15.0)
    assert ahead.status_code == 422, "a bookmark ahead of the database is waited for, within a bound"
    assert ahead.json()["error"]["param"] == BOOKMARK and "ahead" in ahead.json()["error"]["message"]
    assert client.call("b", "GET", path).status_code == 200


def test_a_lease_held_by_an_instance_that_dies_is_taken_over_by_the_other(pair: Pair, client: Client) -> None:
    # A consolidation run under an Idempotency-Key: A holds two leases, the key's and the run's.
    memory_id = new_memory(client)
    path = f"/v1/memories/{memory_id}/consolidations"
    body = {"type": "fact", "content": FACT}
    with ThreadPoolExecutor(8) as pool:
        list(pool.map(lambda _: client.ok("b", "POST", f"/v1/memories/{memory_id}/records", json=body),
                      range(DUPLICATES)))  # fmt: skip
    key = {"Idempotency-Key": secrets.token_hex(16)}
    run_id = start_and_kill(pair, client, path, key)
    killed = time.monotonic()
    busy, last_busy = 0, killed
    # B's retry under the same key waits on A's key lease, then takes it over; while A's run lease
    # lasts it is refused memory_busy (a 409 frees the key), after it B runs the work.
    while (answer := client.call("b", "POST", path, json={}, headers=key)).status_code == 409:
        assert answer.json()["error"]["code"] == "memory_busy", answer.text
        last_busy = time.monotonic()
        assert last_busy - killed < LEASE_MS / 1000 + 5, "busy long past the dead run's lease"
        busy += 1
        time.sleep(0.1)
    print(
        f"scaleout: A killed mid-run; B's retry under its key refused memory_busy {busy} times, the last "
        f"{last_busy - killed:.1f} s after the kill (leases {LEASE_MS / 1000:.0f} s), then answered"
        f" {answer.status_code} {time.monotonic() - killed:.1f} s after it"
    )
    assert answer.status_code == 200 and answer.json()["status"] == "completed", answer.text
    assert answer.json()["id"] != run_id
    dead = client.ok("b", "GET", f"{path}/{run_id}")
    assert dead["status"] == "failed", "B closed the run A held as failed"
    left = client.ok("b", "GET", f"/v1/memories/{memory_id}/records", params={"limit": 100})["data"]
    assert [text_of(r) for r in left] == [FACT], "B's run finished what A's had begun"
    pair.a.start()
    again = client.call("a", "POST", path, json={}, headers=key)
    assert again.headers.get("Idempotent-Replayed") == "true" and again.json() == answer.json(), again.text


def start_and_kill(pair: Pair, client: Client, path: str, key: dict[str, str]) -> str:
    """Starts a run on A and SIGKILLs A once it has changed some records; the run's id."""

    def run() -> None:
        with contextlib.suppress(httpx.TransportError):  # cut off by the kill, as intended
            client.apis["a"].client.post(path, json={}, headers=client.headers | key, timeout=120)

    threading.Thread(target=run, daemon=True).start()
    run_id = str(until(lambda: running(client, path), within=60))
    until(lambda: len(client.ok("b", "GET", f"{path}/{run_id}/changes")["data"]) >= 10 or None, within=60)
    pair.a.kill()
    return run_id


def running(client: Client, path: str) -> str | None:
    runs = client.ok("b", "GET", path)["data"]
    return next((str(r["id"]) for r in runs if r["status"] == "running"), None)


def until(probe: Callable[[], Any], within: float) -> Any:
    deadline = time.monotonic() + within
    while not (found := probe()):
        assert time.monotonic() < deadline, "not within the bound"
        time.sleep(0.02)
    return found
