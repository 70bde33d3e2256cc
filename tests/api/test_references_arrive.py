"""A reference becomes an edge whenever its target exists, whichever was written first (issue 48).

Over HTTP and the importer and restore the service runs, on a real Neo4j: a record that names a record
written after it gets its edge when the target arrives, so the graph read shows it and the target's
erase reaches it.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from provider.cli_import import line_record_id
from tests.api.export_support import exported, restore
from tests.api.lifecycle_support import erase
from tests.api.records_support import Lab, assert_error, ok, tag
from tests.api.test_bulk_import import run_import
from tests.conftest import Member


@pytest.fixture
def lab(client: TestClient) -> Iterator[Lab]:
    tracker = Lab(client)
    yield tracker
    tracker.cleanup()


def digest(path: Path) -> str:
    """The digest the importer keys a file's record ids by (the sha256 of its bytes)."""
    return hashlib.sha256(path.read_bytes()).hexdigest()


def edges_of(lab: Lab, who: Member, memory_id: str) -> set[tuple[str, str, str]]:
    graph = ok(lab.client.post(f"/v1/memories/{memory_id}/graph", json={}, headers=who.headers))
    return {(e["from"]["record_id"], e["rel"], e["to"]["record_id"]) for e in graph["edges"]}


def test_an_import_that_names_a_record_imported_later_gets_its_edge(
    lab: Lab, alice: Member, tmp_path: Path
) -> None:
    memory = lab.memory(alice)
    marker = tag()
    sources = tmp_path / "sources.jsonl"
    sources.write_text(
        json.dumps({"type": "fact", "content": f"{marker}: Ines said the renewal is in March."}) + "\n"
    )
    source_id = line_record_id(memory, digest(sources), 1)
    derived = tmp_path / "derived.jsonl"
    body = {
        "type": "note",
        "content": f"{marker}: a note drawn from Ines's word.",
        "references": [{"rel": "derived_from", "record_id": source_id}],
    }
    derived.write_text(json.dumps(body) + "\n")
    derived_id = line_record_id(memory, digest(derived), 1)
    run_import(lab.client, alice, memory, derived)
    assert edges_of(lab, alice, memory) == set(), "the source is not there yet"
    run_import(lab.client, alice, memory, sources)
    assert edges_of(lab, alice, memory) == {(derived_id, "derived_from", source_id)}
    answer = erase(lab, alice, memory, source_id)
    assert sorted(answer["erased"]) == sorted([source_id, derived_id]), "the erase reached it"
    assert_error(lab.read(alice, memory, derived_id), 404, "memory_record_not_found")


def test_a_restore_in_reverse_order_draws_the_edges_when_the_target_arrives(lab: Lab, alice: Member) -> None:
    targets, referrers = lab.memory(alice), lab.memory(alice)
    source = lab.remember(alice, targets, type="fact", content=f"{tag()}: the source statement.")
    note = lab.remember(
        alice,
        referrers,
        type="note",
        content="Drawn from the source.",
        references=[{"rel": "derived_from", "record_id": source["id"]}],
    )
    of_targets, of_referrers = exported(lab, alice, targets), exported(lab, alice, referrers)
    for memory_id in (targets, referrers):
        ok(lab.client.delete(f"/v1/memories/{memory_id}", headers=alice.headers))
    home = lab.memory(alice)
    ok(restore(lab, alice, home, of_referrers))
    assert edges_of(lab, alice, referrers) == set(), "the target is not back yet"
    ok(restore(lab, alice, home, of_targets))
    assert edges_of(lab, alice, referrers) == {(note["id"], "derived_from", source["id"])}
    answer = erase(lab, alice, targets, source["id"])
    assert sorted(answer["erased"]) == sorted([source["id"], note["id"]])
