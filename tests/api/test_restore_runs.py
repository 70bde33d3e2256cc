"""Restore at its edges (docs/EXPORT.md): the body cap, grants, the CLI, and a run cut off part way.

Each test exports a tree of its own, deletes it so its ids are free, and restores it, as in
test_export.py; the CLI runs in-process (`main(argv)`) on the suite's Neo4j and file store.
"""

from __future__ import annotations

import asyncio
import json
import secrets
from collections.abc import Iterator
from functools import partial
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from starlette.types import Message, Receive, Scope, Send

from provider.__main__ import main
from provider.api.app import create_app
from provider.api.idempotency import Idempotency
from provider.config import Settings
from provider.embeddings import OnnxEmbedder
from provider.models import ArchiveCounts
from tests.api.export_support import Tree, build, exported, readback, restore
from tests.api.records_support import Lab, assert_error, caller_of, ok
from tests.conftest import Member

SMALL_CAP = 4096  # below any archive: its tar headers alone take more


@pytest.fixture
def lab(client: TestClient) -> Iterator[Lab]:
    tracker = Lab(client)
    yield tracker
    tracker.cleanup()


@pytest.fixture(scope="module")
def capped(settings: Settings, embedder: OnnxEmbedder) -> Iterator[TestClient]:
    """An app on the suite's Neo4j whose restore body is capped at SMALL_CAP bytes."""
    own = settings.model_copy(update={"max_restore_bytes": SMALL_CAP})
    with TestClient(create_app(own, embedder=embedder)) as test_client:
        yield test_client


def exported_and_gone(lab: Lab, alice: Member, bob: Member) -> tuple[Tree, bytes, dict[str, object]]:
    """A tree, its archive, what alice saw of it; the tree then deleted, so its ids are free again."""
    tree = build(lab, alice, bob)
    before = readback(lab, alice, tree)
    archive = exported(lab, alice, tree.root)
    ok(lab.client.delete(f"/v1/memories/{tree.root}", headers=alice.headers))
    return tree, archive, before


def test_an_archive_past_the_cap_is_413_and_writes_nothing(
    lab: Lab, alice: Member, bob: Member, capped: TestClient
) -> None:
    tree, archive, _ = exported_and_gone(lab, alice, bob)
    assert len(archive) > SMALL_CAP
    target = lab.memory(alice)
    there = Lab(capped)
    declared = restore(there, alice, target, archive)
    error = assert_error(declared, 413, "uhp_memory.body_too_large")
    assert error["detail"] == {"limit": SMALL_CAP}
    headers = {**alice.headers, "Content-Type": "application/x-tar"}
    pieces = (archive[i : i + 1024] for i in range(0, len(archive), 1024))  # chunked: no Content-Length
    streamed = capped.post(f"/v1/memories/{target}/restore", content=pieces, headers=headers)
    assert_error(streamed, 413, "uhp_memory.body_too_large")
    assert lab.client.get(f"/v1/memories/{tree.root}", headers=alice.headers).status_code == 404
    assert lab.listed(alice, target) == []


def test_grants_are_restored_only_when_asked_by_one_who_may_delete(
    lab: Lab, alice: Member, bob: Member
) -> None:
    tree, archive, _ = exported_and_gone(lab, alice, bob)
    target = lab.memory(alice)
    lab.grant(alice, target, bob, "read", "write", "create")
    refused = lab.client.post(
        f"/v1/memories/{target}/restore?grants=true",
        content=archive,
        headers={**bob.headers, "Content-Type": "application/x-tar"},
    )
    assert_error(refused, 403, "memory_forbidden")
    assert lab.client.get(f"/v1/memories/{tree.root}", headers=alice.headers).status_code == 404

    headers = {**alice.headers, "Content-Type": "application/x-tar"}
    url = f"/v1/memories/{target}/restore?grants=true"
    answer = ok(lab.client.post(url, content=archive, headers=headers))
    assert answer["created"]["grants"] == 1  # bob's on the root; alice's own (implicit) are not copied
    grants = ok(lab.client.get(f"/v1/memories/{tree.root}/grants", headers=alice.headers))["data"]
    given = next(g for g in grants if g["principal"] == bob.principal)
    assert set(given["privileges"]) == {"read", "write", "create"}


def test_without_grants_the_archive_s_grants_stay_out(lab: Lab, alice: Member, bob: Member) -> None:
    tree, archive, _ = exported_and_gone(lab, alice, bob)
    target = lab.memory(alice)
    answer = ok(restore(lab, alice, target, archive))
    assert answer["created"]["grants"] == 0
    grants = ok(lab.client.get(f"/v1/memories/{tree.root}/grants", headers=alice.headers))["data"]
    assert bob.principal not in {g["principal"] for g in grants}


def test_the_cli_exports_and_restores_with_progress_on_stderr(
    lab: Lab,
    alice: Member,
    bob: Member,
    settings: Settings,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setenv("UHP_ENVIRONMENT", "test")
    monkeypatch.setenv("UHP_FILE_DIR", str(settings.file.dir))
    # The CLI reads the deployment from the environment: the tests' Neo4j, wherever it came from.
    monkeypatch.setenv("NEO4J_URI", settings.neo4j.uri)
    monkeypatch.setenv("NEO4J_USER", settings.neo4j.user)
    monkeypatch.setenv("NEO4J_PASSWORD", settings.neo4j.password.get_secret_value())
    monkeypatch.setenv("UHP_ARCHIVE_KEY", secrets.token_urlsafe(32))  # signs the export, trusts it back
    tree = build(lab, alice, bob)
    before = readback(lab, alice, tree)
    out = tmp_path / "tree.tar"
    assert main(["export", tree.root, "--as", alice.principal, "--out", str(out)]) == 0
    exporting = capsys.readouterr()
    assert "export: " in exporting.err and "records/s" in exporting.err
    summary = json.loads(exporting.err.strip().splitlines()[-1])
    assert summary["counts"]["records"] == len(tree.records) and summary["signed"] is True
    ok(lab.client.delete(f"/v1/memories/{tree.root}", headers=alice.headers))

    target = lab.memory(alice)
    assert main(["restore", str(out), "--under", target, "--as", alice.principal]) == 0
    restoring = capsys.readouterr()
    assert "restore: " in restoring.err
    answer = json.loads(restoring.out)
    assert answer["root"] == tree.root and answer["created"]["records"] == len(tree.records)
    assert (answer["vectors"], answer["vectors_reason"]) == ("kept", None)
    assert readback(lab, alice, tree) == before


class Interrupted(Exception):
    """Stands for a crash once the first page of records is written."""


def test_a_restore_cut_off_part_way_completes_on_the_next_run_without_duplicates(
    lab: Lab, alice: Member, bob: Member, tmp_path: Path
) -> None:
    tree, archive, before = exported_and_gone(lab, alice, bob)
    target = lab.memory(alice)
    path = tmp_path / "tree.tar"
    path.write_bytes(archive)
    service = lab.client.app.state.services.restore  # type: ignore[attr-defined]

    def crash(counts: ArchiveCounts) -> None:
        if counts.records:
            raise Interrupted

    assert lab.client.portal is not None
    with pytest.raises(Interrupted):
        lab.client.portal.call(partial(service.restore, caller_of(alice), target, path, progress=crash))
    written = [r for r, m in tree.records.items() if m == tree.root]
    assert len(lab.listed(alice, tree.root, include="all")) == len(written)  # the root's page, no more
    assert lab.client.get(f"/v1/memories/{tree.child}", headers=alice.headers).status_code == 200
    assert lab.listed(alice, tree.child) == []

    answer = ok(restore(lab, alice, target, archive))
    assert answer["present"]["records"] == len(written) and answer["present"]["memories"] == 2
    assert answer["created"]["records"] == len(tree.records) - len(written)
    assert answer["created"]["memories"] == 0
    assert readback(lab, alice, tree) == before
    assert len(lab.listed(alice, tree.child)) == 3


def test_a_keyed_restore_runs_again_rather_than_replaying(lab: Lab, alice: Member, bob: Member) -> None:
    tree, archive, _ = exported_and_gone(lab, alice, bob)
    target = lab.memory(alice)
    headers = {**alice.headers, "Content-Type": "application/x-tar", "Idempotency-Key": f"restore-{target}"}
    url = f"/v1/memories/{target}/restore"
    first = lab.client.post(url, content=archive, headers=headers)
    again = lab.client.post(url, content=archive, headers=headers)
    assert ok(first)["created"]["records"] == len(tree.records)
    assert "Idempotent-Replayed" not in again.headers
    assert ok(again)["present"]["records"] == len(tree.records) and again.json()["created"]["records"] == 0


def test_the_idempotency_layer_leaves_a_restore_body_unread() -> None:
    """The archive streams to the route as it arrives: nothing is pulled (and held) before the route runs."""
    pulled: list[Message] = []
    seen_before_route: list[int] = []
    body = [{"type": "http.request", "body": b"x" * 1024, "more_body": True}] * 3

    async def receive() -> Message:
        message = body[len(pulled)] if len(pulled) < len(body) else {"type": "http.request", "body": b""}
        pulled.append(message)
        return message

    async def route(scope: Scope, receive: Receive, send: Send) -> None:
        seen_before_route.append(len(pulled))
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": b"{}"})

    sent: list[Message] = []

    async def send(message: Message) -> None:
        sent.append(message)

    scope = {
        "type": "http",
        "method": "POST",
        "path": "/v1/memories/hmem_x/restore",
        "root_path": "",
        "headers": [(b"idempotency-key", b"k")],
    }
    asyncio.run(Idempotency(route)(scope, receive, send))
    assert seen_before_route == [0] and sent[0]["status"] == 200
