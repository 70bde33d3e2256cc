"""An export restored into a fresh deployment (its own Neo4j, its own blob store) reads back the same.

The issue's round trip: a tree with history, a file, a reference across memories and a restricted
branch is exported from the suite's app, then restored into an app on the folder's own Neo4j, where no
id of the tree exists. Every record's history, the file's bytes and recall's order for a few questions
must read back as they did, and the fresh deployment's own export must carry the same records, files,
snapshots and blobs byte for byte. Both deployments hold the same archive key, as two that trust each
other's vectors do (docs/EXPORT.md), so the vectors travel and are not made again.
"""

from __future__ import annotations

import secrets
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from pydantic import SecretStr

from provider.api.app import create_app
from provider.config import Settings
from provider.embeddings import OnnxEmbedder
from tests.api.export_support import build, exported, keyed_app, members, readback, restore
from tests.api.records_support import Lab, ok
from tests.conftest import Admin, Member
from tests.faults.conftest import DedicatedNeo4j

pytestmark = pytest.mark.faults(timeout=240)

# Members the fresh deployment's export must repeat byte for byte: what was written, not who restored it.
SAME_BYTES = ("records/", "snapshots/", "files/", "blobs/", "format.json")
KEY = secrets.token_urlsafe(32)


@pytest.fixture
def fresh(
    neo4j: DedicatedNeo4j, settings: Settings, embedder: OnnxEmbedder, tmp_path: Path
) -> Iterator[TestClient]:
    """An app of its own: the folder's Neo4j and an empty file store, as a new deployment would have."""
    access = neo4j.access
    own = settings.changed(
        neo4j_uri=access.uri,
        neo4j_user=access.user,
        neo4j_password=SecretStr(access.password),
        file_dir=tmp_path / "fresh-files",
        archive_key=SecretStr(KEY),
    )
    with TestClient(create_app(own, embedder=embedder)) as client:
        yield client


@pytest.fixture
def lab(settings: Settings, embedder: OnnxEmbedder) -> Iterator[Lab]:
    """The suite's Neo4j and file store, through an app that signs with the fresh deployment's key."""
    with keyed_app(settings, embedder, KEY) as client:
        tracker = Lab(client)
        yield tracker
        tracker.cleanup()


def test_a_tree_restored_into_a_fresh_deployment_reads_back_the_same(
    lab: Lab, alice: Member, bob: Member, fresh: TestClient, settings: Settings
) -> None:
    tree = build(lab, alice, bob)
    before = readback(lab, alice, tree)
    assert before["file"] == tree.file_bytes and all(before[q] for q in before if q.endswith("?"))
    archive = exported(lab, alice, tree.root)

    there = Lab(fresh)
    carol = Admin(client=fresh, key=settings.admin_key.get_secret_value()).member()
    target = there.memory(carol)
    answer = ok(restore(there, carol, target, archive))
    assert answer["created"]["records"] == len(tree.records) and answer["created"]["memories"] == 2
    assert answer["present"]["records"] == 0 and answer["withheld"] is True
    assert answer["vectors"] == "kept"

    after = readback(there, carol, tree)
    assert after == before
    assert ok(fresh.get(f"/v1/memories/{tree.root}", headers=carol.headers))["parent_id"] == target
    assert fresh.get(f"/v1/memories/{tree.hidden}", headers=carol.headers).status_code == 404

    original, again = members(archive), members(exported(there, carol, tree.root))
    same = sorted(n for n in original if n.startswith(SAME_BYTES))
    assert same == sorted(n for n in again if n.startswith(SAME_BYTES))
    assert any(n.startswith("blobs/") for n in same)
    assert {n: again[n] for n in same} == {n: original[n] for n in same}
