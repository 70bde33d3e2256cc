"""`migrate mem0` with a file in mem0's export shape (several users, metadata, history), and broken files.

The migration runs inside the app's event loop (the TestClient's portal) against real Neo4j and the
real model, and is read back over HTTP; one test runs the command itself, as an operator would.
"""

from __future__ import annotations

import io
import json
from collections.abc import Iterator
from functools import partial
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from provider import cli
from provider.config import Settings
from provider.errors import InvalidInputError
from provider.migrate.mem0 import Mem0Migration, load
from provider.migrate.writer import MigrationSummary, MigrationWriter
from tests.api.records_support import Lab, caller_of, ok, tag, texts
from tests.conftest import Member


@pytest.fixture
def lab(client: TestClient) -> Iterator[Lab]:
    tracker = Lab(client)
    yield tracker
    tracker.cleanup()


def history(memory_id: str, *steps: tuple[str, str | None, str | None]) -> list[dict[str, Any]]:
    """History entries as mem0's history call gives them: event, old and new text, times."""
    return [
        {
            "id": f"h{n}-{memory_id}",
            "memory_id": memory_id,
            "event": event,
            "old_memory": old,
            "new_memory": new,
            "created_at": f"2025-06-0{n + 1}T10:00:00-07:00",
            "updated_at": None,
            "is_deleted": event == "DELETE",
            "actor_id": None,
            "role": "user",
        }
        for n, (event, old, new) in enumerate(steps)
    ]


def export(marker: str) -> dict[str, Any]:
    """Four memories of two users and an agent: one updated, one deleted, one bare."""
    tea = f"{marker} prefers green tea in the afternoon"
    return {
        "results": [
            {
                "id": "m-tea",
                "memory": tea,
                "hash": "9f1c",
                "metadata": {"topic": "drinks", "source": "chat"},
                "categories": ["food"],
                "created_at": "2025-06-01T10:00:00-07:00",
                "updated_at": "2025-06-02T10:00:00-07:00",
                "user_id": "ana",
                "agent_id": None,
                "run_id": None,
                "history": history(
                    "m-tea",
                    ("ADD", None, f"{marker} prefers coffee"),
                    ("UPDATE", f"{marker} prefers coffee", tea),
                ),
            },
            {
                "id": "m-city",
                "memory": f"{marker} lives in Porto",
                "user_id": "ben",
                "metadata": None,
                "created_at": "2025-06-03T08:00:00Z",
                "updated_at": None,
            },
            {
                "id": "m-lang",
                "memory": f"{marker} answers in Portuguese",
                "agent_id": "helper",
                "user_id": None,
            },
            {
                "id": "m-cat",
                "memory": f"{marker} has a cat",
                "user_id": "ana",
                "history": history(
                    "m-cat", ("ADD", None, f"{marker} has a cat"), ("DELETE", f"{marker} has a cat", None)
                ),
            },
        ]
    }


def migrate(client: TestClient, who: Member, into: str, path: Path) -> MigrationSummary:
    services = client.app.state.services  # type: ignore[attr-defined]
    summary = MigrationSummary(source="mem0", into=into)
    writer = MigrationWriter(services.records, services.tree, caller_of(who), summary, progress=io.StringIO())
    assert client.portal is not None
    return client.portal.call(partial(Mem0Migration(writer, batch_size=3).run, path))


def test_a_mem0_export_comes_across_with_history_and_a_second_run_writes_nothing(
    lab: Lab, alice: Member, tmp_path: Path
) -> None:
    into, marker = lab.memory(alice), f"m{tag()}"
    path = tmp_path / "mem0.json"
    path.write_text(json.dumps(export(marker)))
    first = migrate(lab.client, alice, into, path)
    lab.made += [(m, alice) for m in first.memories.values()]
    assert (first.read, first.written, first.revised, first.forgotten, first.refused) == (4, 4, 1, 1, [])
    assert sorted(first.memories) == ["agent:helper", "user:ana", "user:ben"]

    writer = MigrationWriter(None, None, caller_of(alice), first)  # type: ignore[arg-type]
    ana = first.memories["user:ana"]
    tea = lab.get(alice, ana, writer.record_id("memory", "m-tea"))
    assert (tea["type"], texts(tea)) == ("fact", [f"{marker} prefers green tea in the afternoon"])
    kept = tea["attributes"]["mem0"]
    assert kept["metadata"] == {"topic": "drinks", "source": "chat"} and kept["categories"] == ["food"]
    assert (kept["id"], kept["user_id"], kept["hash"]) == ("m-tea", "ana", "9f1c")
    assert kept["created_at"] == "2025-06-01T10:00:00-07:00" and kept["event"]["event"] == "UPDATE"
    versions = lab.history(alice, ana, tea["id"])
    assert [texts(v) for v in versions] == [
        [f"{marker} prefers coffee"],
        [f"{marker} prefers green tea in the afternoon"],
    ]
    assert versions[0]["attributes"]["mem0"]["event"]["event"] == "ADD"
    cat = lab.get(alice, ana, writer.record_id("memory", "m-cat"))
    assert cat["status"] == "forgotten", "a memory mem0 deleted is forgotten, its text kept in history"
    assert lab.listed(alice, ana) == [tea["id"]]
    found = ok(
        lab.client.post(
            f"/v1/memories/{ana}/recall", json={"query": "what does the user drink?"}, headers=alice.headers
        )
    )
    assert found["results"][0]["record"]["id"] == tea["id"], "embedded with the deployment's model"

    again = migrate(lab.client, alice, into, path)
    assert (again.written, again.skipped, again.revised, again.forgotten) == (0, 4, 0, 0)
    assert again.memories == first.memories


@pytest.mark.parametrize(
    ("item", "why"),
    [
        ({"id": "x1", "user_id": "ana"}, "it has no text (memory)"),
        ({"id": "x2", "memory": "ok", "metadata": ["not", "an", "object"]}, "metadata is not an object"),
        ({"id": "x3", "memory": 42}, "memory is not text"),
        ({"memory": "no id"}, "it has no id"),
        ({"id": "x5", "memory": "ok", "user_id": {"name": "ana"}}, "user_id is not a string"),
        (
            {"id": "x6", "memory": "ok", "history": [{"event": "UPDATE"}]},
            "history[0] (UPDATE) has no new_memory text",
        ),
        ("just a string", "not an object"),
    ],
)
def test_an_unreadable_memory_is_refused_by_its_index_and_the_rest_written(
    lab: Lab, alice: Member, tmp_path: Path, item: Any, why: str
) -> None:
    into = lab.memory(alice)
    path = tmp_path / "mem0.json"
    path.write_text(json.dumps([{"id": "good", "memory": f"m{tag()} is fine", "user_id": "ana"}, item]))
    summary = migrate(lab.client, alice, into, path)
    lab.made += [(m, alice) for m in summary.memories.values()]
    assert summary.written == 1 and summary.read == 2
    assert [(r["item"], r["message"]) for r in summary.refused] == [(1, f"Cannot be read: {why}.")]


def test_a_file_that_is_not_mem0_json_is_refused_whole_naming_where(tmp_path: Path) -> None:
    path = tmp_path / "broken.json"
    path.write_text('[\n  {"id": "a", "memory": "x"},\n  {"id": "b" "memory": "y"}\n]')
    with pytest.raises(InvalidInputError, match=r"not JSON at line 3, column 14"):
        load(path)
    path.write_text('{"memories": []}')
    with pytest.raises(InvalidInputError, match="a `results` list"):
        load(path)
    path.write_text(json.dumps([{"id": "a", "memory": "bare list"}]))
    assert load(path) == [{"id": "a", "memory": "bare list"}]


def test_the_command_prints_its_summary_and_fails_on_a_broken_file(
    lab: Lab, alice: Member, settings: Settings, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    into = lab.memory(alice)
    path = tmp_path / "mem0.json"
    path.write_text(json.dumps([{"id": "one", "memory": f"m{tag()} one", "user_id": "ana"}]))
    assert cli.migrate_mem0(settings, path, into, alice.principal) == 0
    printed = json.loads(capsys.readouterr().out)
    lab.made += [(m, alice) for m in printed["memories"].values()]
    assert (printed["read"], printed["written"], printed["refused"], printed["why"]) == (1, 1, 0, [])
    path.write_text("{not json")
    assert cli.migrate_mem0(settings, path, into, alice.principal) == 1
    assert "not JSON at line 1, column 2" in capsys.readouterr().err


def test_a_memory_with_a_version_past_the_bounds_is_refused_before_any_of_it_is_written(
    lab: Lab, alice: Member, tmp_path: Path
) -> None:
    into = lab.memory(alice)
    too_long = "x" * 200_001  # past UHP_MAX_TEXT_CHARS, as a body's text part would be
    steps = history("m-long", ("ADD", None, f"m{tag()} first words"), ("UPDATE", None, too_long))
    path = tmp_path / "mem0.json"
    path.write_text(json.dumps([{"id": "m-long", "memory": too_long, "user_id": "ana", "history": steps}]))
    summary = migrate(lab.client, alice, into, path)
    lab.made += [(m, alice) for m in summary.memories.values()]
    assert summary.written == 0 and [r["item"] for r in summary.refused] == [0]
    assert summary.refused[0]["message"].startswith("version 2.content")
    assert lab.listed(alice, summary.memories["user:ana"], include="all") == []


def test_a_run_stopped_between_versions_finishes_them_when_run_again(
    lab: Lab, alice: Member, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    into, marker = lab.memory(alice), f"m{tag()}"
    path = tmp_path / "mem0.json"
    path.write_text(json.dumps(export(marker)))
    records = lab.client.app.state.services.records  # type: ignore[attr-defined]

    async def gone(*args: Any, **kwargs: Any) -> None:
        raise ConnectionError("the database went away")

    with monkeypatch.context() as patched:
        patched.setattr(records, "revise", gone)
        with pytest.raises(ConnectionError):
            migrate(lab.client, alice, into, path)
    again = migrate(lab.client, alice, into, path)
    lab.made += [(m, alice) for m in again.memories.values()]
    assert (again.revised, again.forgotten) == (1, 1) and again.written + again.skipped == 4
    writer = MigrationWriter(None, None, caller_of(alice), again)  # type: ignore[arg-type]
    ana = again.memories["user:ana"]
    versions = lab.history(alice, ana, writer.record_id("memory", "m-tea"))
    assert [texts(v) for v in versions] == [
        [f"{marker} prefers coffee"],
        [f"{marker} prefers green tea in the afternoon"],
    ]
