"""The typed client against the real service: answers as the service's models, refusals as exceptions.

The sync client runs over the session's TestClient (shaped like an `httpx.Client`), the async one
over httpx's ASGI transport into the same app, on the app's own loop; both reach the real Neo4j and
the real model.
"""

from __future__ import annotations

import io
import tarfile
from pathlib import Path

import httpx
import pytest
from fastapi.testclient import TestClient

from provider.client import (
    AsyncMemoryClient,
    AuthenticationError,
    InvalidRequestError,
    MemoryClient,
    NotFoundError,
)
from provider.protocol.answers.archive import RestoredOut
from provider.protocol.answers.queries import QueryRowsOut
from provider.protocol.answers.records import RecordOut
from tests.conftest import Admin, Member

FACT = "The lighthouse keeper on Skerry Point logs the weather at dawn."


def test_a_session_reads_back_typed_answers(client: TestClient, alice: Member) -> None:
    with MemoryClient(http=client, key=alice.key) as memory:
        home = memory.create_memory("client notes", description="the client's own")
        kept = memory.remember(home.id, FACT, title="keeper", attributes={"place": "Skerry Point"})
        assert isinstance(kept, RecordOut) and kept.memory_id == home.id and kept.version == 1
        revised = memory.revise(home.id, kept.id, title="the keeper")
        assert revised.version == 2 and revised.supersedes == 1
        assert [v.version for v in memory.history(home.id, kept.id).data] == [1, 2]
        found = memory.recall(home.id, query="Who writes down the weather each morning?")
        assert found.results and found.results[0].record.id == kept.id
        assert found.results[0].record.trust == "untrusted"
        assert memory.get_memory(home.id).records.count == 1


def test_pages_are_iterated_to_the_end(client: TestClient, alice: Member) -> None:
    with MemoryClient(http=client, key=alice.key) as memory:
        home = memory.create_memory("paged")
        made = {memory.remember(home.id, f"note number {n}").id for n in range(7)}
        assert memory.list_records(home.id, limit=3).next is not None  # more than one page
        assert {r.id for r in memory.iter_records(home.id, limit=3)} == made


def test_refusals_raise_the_chapters_errors(client: TestClient, alice: Member, bob: Member) -> None:
    with MemoryClient(http=client, key=alice.key) as memory:
        home = memory.create_memory("alice only")
        with MemoryClient(http=client, key=bob.key) as other, pytest.raises(NotFoundError) as unseen:
            other.get_memory(home.id)  # unknown and forbidden look the same
        assert unseen.value.status == 404 and unseen.value.code == "memory_not_found"
        with pytest.raises(InvalidRequestError) as invalid:
            memory.recall(home.id, limit=1000)
        assert invalid.value.param is not None
    with MemoryClient(http=client, key="not-a-key") as stranger, pytest.raises(AuthenticationError):
        stranger.list_memories()


def losing_first_answer(client: TestClient) -> tuple[httpx.Client, list[str]]:
    """An httpx client into the app that delivers each request, but loses the first write's answer."""
    lost: list[str] = []

    def deliver(request: httpx.Request) -> httpx.Response:
        answer = client.request(
            request.method, str(request.url), headers=request.headers, content=request.read()
        )
        if request.method == "POST" and not lost:
            lost.append(request.headers.get("Idempotency-Key", ""))
            raise httpx.ReadError("the answer was lost on the way back", request=request)
        return httpx.Response(answer.status_code, headers=answer.headers, content=answer.content)

    return httpx.Client(transport=httpx.MockTransport(deliver), base_url="http://testserver"), lost


def test_a_retried_write_is_done_once(client: TestClient, alice: Member) -> None:
    with MemoryClient(key=alice.key, http=client) as memory:
        home = memory.create_memory("retried")
    lossy, lost = losing_first_answer(client)
    with MemoryClient(key=alice.key, http=lossy) as memory:
        kept = memory.remember(home.id, "written once, answered twice")
    assert len(lost) == 1 and lost[0]  # the first answer was lost, and the write carried a key
    with MemoryClient(http=client, key=alice.key) as memory:
        assert [r.id for r in memory.iter_records(home.id)] == [kept.id]


def test_files_and_queries_come_back_typed(client: TestClient, alice: Member) -> None:
    with MemoryClient(http=client, key=alice.key) as memory:
        home = memory.create_memory("files")
        upload = memory.upload_file("tide.txt", b"high tide 06:12\n", media_type="text/plain")
        part = {"type": "file", "file": {"id": upload.id}}
        kept = memory.remember(home.id, [{"type": "text", "text": "tide table"}, part])
        assert memory.content_part(home.id, kept.id, 1) == b"high tide 06:12\n"
        answer = memory.free_query(home.id, "MATCH (r:Record) RETURN count(r) AS n")
        assert isinstance(answer, QueryRowsOut) and answer.rows == [[1]]


def test_the_async_client_answers_the_same(client: TestClient, alice: Member) -> None:
    async def session() -> tuple[str, list[str]]:
        transport = httpx.ASGITransport(app=client.app)
        async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as http:
            memory = AsyncMemoryClient(http=http, key=alice.key)
            home = await memory.create_memory("async notes")
            kept = await memory.remember(home.id, FACT)
            seen = [record.id async for record in memory.iter_records(home.id)]
            found = await memory.recall(home.id, query="Who logs the weather?")
            assert found.results[0].record.id == kept.id
            return kept.id, seen

    assert client.portal is not None  # the session's app runs on this loop, and its Neo4j driver too
    kept, seen = client.portal.call(session)
    assert seen == [kept]


def test_the_admin_surface_is_typed(client: TestClient, admin: Admin) -> None:
    with MemoryClient(http=client, key=admin.key) as operator:
        made = operator.create_member("agent", "typed agent")
        assert made.principal == f"member:{made.id}" and made.type == "agent"
        issued = operator.issue_key(made.id)
        assert issued.key and not issued.revoked
        assert [k.id for k in operator.list_keys(made.id).data] == [issued.id]
        rotated = operator.rotate_key(made.id, issued.id)
        assert rotated.previous.id == issued.id and rotated.key != issued.key


def test_an_export_streams_to_a_file_and_restores_elsewhere(
    client: TestClient, alice: Member, tmp_path: Path
) -> None:
    with MemoryClient(http=client, key=alice.key) as memory:
        home = memory.create_memory("to move")
        kept = memory.remember(home.id, FACT, title="keeper")
        archive = tmp_path / "home.tar"
        size = memory.export(home.id, archive)
        assert size == archive.stat().st_size > 0 and tarfile.is_tarfile(archive)
        held = io.BytesIO()
        assert memory.export(home.id, held) == size  # into a file the caller opened, too
        memory.delete_memory(home.id)
        target = memory.create_memory("new home")
        restored = memory.restore(target.id, archive)
        assert isinstance(restored, RestoredOut) and restored.root == home.id
        assert restored.created.records == 1 and restored.present.records == 0
        assert memory.get_memory(home.id).parent_id == target.id
        assert memory.get_record(home.id, kept.id).title == "keeper"
        held.seek(0)
        again = memory.restore(target.id, held)  # safe to send again: everything is found present
        assert again.present.records == 1 and again.created.records == 0


def test_a_restore_sends_no_idempotency_key(client: TestClient, alice: Member, tmp_path: Path) -> None:
    seen: list[httpx.Headers] = []

    def deliver(request: httpx.Request) -> httpx.Response:
        seen.append(request.headers)
        answer = client.request(
            request.method, str(request.url), headers=request.headers, content=request.read()
        )
        return httpx.Response(answer.status_code, headers=answer.headers, content=answer.content)

    recording = httpx.Client(transport=httpx.MockTransport(deliver), base_url="http://testserver")
    with MemoryClient(http=recording, key=alice.key) as memory:
        home = memory.create_memory("moved once")
        memory.remember(home.id, FACT)
        archive = tmp_path / "once.tar"
        memory.export(home.id, archive)
        memory.delete_memory(home.id)
        answer = memory.restore(memory.create_memory("its new home").id, archive)
    assert answer.created.records == 1
    restore = seen[-1]
    assert restore["content-type"] == "application/x-tar" and "idempotency-key" not in restore


def test_the_async_client_streams_an_export_and_a_restore(
    client: TestClient, alice: Member, tmp_path: Path
) -> None:
    archive = tmp_path / "async.tar"

    async def session() -> tuple[str, str]:
        transport = httpx.ASGITransport(app=client.app)
        async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as http:
            memory = AsyncMemoryClient(http=http, key=alice.key)
            home = await memory.create_memory("async move")
            kept = await memory.remember(home.id, FACT)
            assert await memory.export(home.id, archive) == archive.stat().st_size
            await memory.delete_memory(home.id)
            target = await memory.create_memory("async new home")
            with archive.open("rb") as body:
                restored = await memory.restore(target.id, body)
            assert restored.created.records == 1
            return kept.id, (await memory.get_record(home.id, kept.id)).id

    assert client.portal is not None
    kept, read = client.portal.call(session)
    assert read == kept
