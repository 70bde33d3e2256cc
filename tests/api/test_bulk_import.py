"""Bulk import and re-embedding against real Neo4j and the real model, through the app's own services.

The importer is what `python -m provider import` runs; it is driven here inside the app's event loop
(the TestClient's portal) so the records it writes are then read back over HTTP like any others.
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

from provider.cli_import import BulkImporter, ImportSummary
from provider.errors import MemoryNotFoundError
from provider.services.records.reembed import Reembedder
from provider.services.records.service import PreparedBatch
from tests.api.lifecycle_support import cypher
from tests.api.records_support import Lab, caller_of, ok, tag, texts
from tests.conftest import Member
from tests.neo4j_target import Neo4jTarget

GOOD_LINES = 10


@pytest.fixture
def lab(client: TestClient) -> Iterator[Lab]:
    tracker = Lab(client)
    yield tracker
    tracker.cleanup()


def write_lines(path: Path, marker: str) -> dict[int, str]:
    """Ten good records among a bad JSON line, a bad part and a blank line; returns line → words."""
    lines: list[str] = []
    good: dict[int, str] = {}
    for n in range(GOOD_LINES):
        words = f"{marker} import line {n}: the {['billing', 'shipping', 'support'][n % 3]} desk"
        body: dict[str, Any] = {"type": "fact", "content": words, "attributes": {"n": n}}
        if n % 4 == 1:
            body = {"type": "note", "title": f"title {n}", "content": [{"type": "text", "text": words}]}
        lines.append(json.dumps(body))
        good[len(lines)] = words
        if n == 3:
            lines.append("{not json")
        if n == 5:
            lines.append(json.dumps({"content": [{"type": "text"}]}))
        if n == 7:
            lines.append("")
    path.write_text("\n".join(lines) + "\n")
    return good


def run_import(
    client: TestClient, who: Member, memory_id: str, path: Path, *, resume: bool = False, batch_size: int = 3
) -> tuple[ImportSummary, str]:
    progress = io.StringIO()
    importer = BulkImporter(client.app.state.services.records, batch_size=batch_size, progress=progress)  # type: ignore[attr-defined]
    assert client.portal is not None
    summary = client.portal.call(partial(importer.run, caller_of(who), memory_id, path, resume=resume))
    return summary, progress.getvalue()


def test_an_import_validates_each_line_writes_the_good_ones_and_reports(
    lab: Lab, alice: Member, tmp_path: Path
) -> None:
    memory = lab.memory(alice)
    marker = f"m{tag()}"
    good = write_lines(tmp_path / "records.jsonl", marker)
    summary, progress = run_import(lab.client, alice, memory, tmp_path / "records.jsonl")
    assert summary.created == GOOD_LINES and summary.skipped_existing == 0
    assert [(r["line"], r["code"]) for r in summary.rejected] == [
        (5, "memory_invalid"),
        (8, "memory_invalid"),
    ]
    assert summary.lines_done == 13
    assert "13/13 lines" in progress and "10 created" in progress and "2 rejected" in progress
    state = json.loads((tmp_path / f"records.jsonl.{memory}.import.json").read_text())
    assert state["created"] == GOOD_LINES and state["lines_done"] == 13
    listed = lab.page(alice, memory, limit=50)["data"]
    assert sorted(" ".join(texts(r)) for r in listed) == sorted(good.values())
    assert {r["written_by"]["id"] for r in listed} == {alice.id}
    asked = {"query": f"{marker} import line 4: the shipping desk", "limit": 1}
    found = ok(lab.client.post(f"/v1/memories/{memory}/recall", json=asked, headers=alice.headers))
    assert texts(found["results"][0]["record"]) == [good[6]], "line 6 holds record 4 and was embedded"


def test_running_the_same_file_again_writes_nothing_twice(lab: Lab, alice: Member, tmp_path: Path) -> None:
    memory = lab.memory(alice)
    write_lines(tmp_path / "records.jsonl", f"m{tag()}")
    run_import(lab.client, alice, memory, tmp_path / "records.jsonl")
    again, _ = run_import(lab.client, alice, memory, tmp_path / "records.jsonl", batch_size=5)
    assert again.created == 0 and again.skipped_existing == GOOD_LINES
    assert len(lab.listed(alice, memory)) == GOOD_LINES


def test_an_interrupted_import_resumes_after_the_last_batch_written(
    lab: Lab, alice: Member, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    memory = lab.memory(alice)
    write_lines(tmp_path / "records.jsonl", f"m{tag()}")
    records = lab.client.app.state.services.records  # type: ignore[attr-defined]
    real = records.store_prepared
    calls = {"n": 0}

    async def failing_third(prepared: PreparedBatch) -> int:
        calls["n"] += 1
        if calls["n"] == 3:
            raise ConnectionError("the database went away")
        written: int = await real(prepared)
        return written

    monkeypatch.setattr(records, "store_prepared", failing_third)
    with pytest.raises(ConnectionError):
        run_import(lab.client, alice, memory, tmp_path / "records.jsonl")
    monkeypatch.setattr(records, "store_prepared", real)
    state = json.loads((tmp_path / f"records.jsonl.{memory}.import.json").read_text())
    assert state["created"] == 6 and 0 < state["lines_done"] < 13
    resumed, _ = run_import(lab.client, alice, memory, tmp_path / "records.jsonl", resume=True)
    assert resumed.created == GOOD_LINES and resumed.lines_done == 13
    assert len(lab.listed(alice, memory)) == GOOD_LINES


def test_an_import_needs_write_on_the_memory(lab: Lab, alice: Member, bob: Member, tmp_path: Path) -> None:
    memory = lab.memory(alice)
    write_lines(tmp_path / "records.jsonl", f"m{tag()}")
    with pytest.raises(MemoryNotFoundError):
        run_import(lab.client, bob, memory, tmp_path / "records.jsonl")
    assert lab.listed(alice, memory) == []


def test_reembedding_restores_each_vector_from_the_model(
    lab: Lab, alice: Member, neo4j_target: Neo4jTarget
) -> None:
    memory = lab.memory(alice)
    words = [f"r{tag()} the renewal is due in {month}" for month in ("March", "June", "October")]
    made = [lab.remember(alice, memory, content=w)["id"] for w in words]
    cypher(
        neo4j_target,
        "MATCH (r:Record) WHERE r.id IN $ids SET r.embedding = reverse([x IN r.embedding | x])",
        ids=made,
    )
    services = lab.client.app.state.services  # type: ignore[attr-defined]
    progress = io.StringIO()
    reembedder = Reembedder(
        services.tree, services.records.records, services.vectors, batch_size=256, progress=progress
    )
    assert lab.client.portal is not None
    done = lab.client.portal.call(reembedder.run, caller_of(alice), memory)
    assert done == 3 and "re-embedded 3 records" in progress.getvalue()
    expected = services.embedder.embed_sync(words)
    rows = cypher(
        neo4j_target, "MATCH (r:Record) WHERE r.id IN $ids RETURN r.id AS id, r.embedding AS e", ids=made
    )
    stored = {row["id"]: row["e"] for row in rows}
    for record_id, vector in zip(made, expected, strict=True):
        cosine = sum(a * b for a, b in zip(stored[record_id], vector, strict=True))
        assert cosine > 0.9999, (record_id, cosine)
    with pytest.raises(MemoryNotFoundError):
        lab.client.portal.call(reembedder.run, caller_of(alice), "hmem_" + "0" * 32)
