"""Moving a deployment to another model (`reembed --to`) while recall keeps answering, on a real Neo4j.

The move writes the database's record of its vector slots, which every app on that database follows,
so the module runs on a Neo4j of its own. The app is configured with all-MiniLM-L6-v2; the move takes
the database to bge-small-en-v1.5 (the real model, fetched into the usual cache). A first run is cut
off halfway (the new model fails on its second batch); meanwhile recall must answer exactly as before
and writes must fill both slots. The command line then resumes the move to its end.
"""

from __future__ import annotations

import io
import os
import subprocess
import sys
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from fastapi.testclient import TestClient
from neo4j import GraphDatabase
from pydantic import SecretStr

from devtools import neo4j_server
from provider.api.app import create_app
from provider.config import Settings
from provider.embeddings import Embedder, OnnxEmbedder, loaded_embedder
from provider.services.records.model_move import ModelMove
from provider.store.vector_state import Neo4jVectorStateStore
from tests.api.recall_support import found, recall
from tests.conftest import Admin, Member, make_memory

BGE = "bge-small-en-v1.5"
REPO_ROOT = Path(__file__).resolve().parents[2]

FACTS = {
    "boat": "The sailing boat is moored at pier seven in the north harbour.",
    "dentist": "The dentist appointment was moved to the second Tuesday of March.",
    "wifi": "The guest wifi password is written under the kitchen clock.",
    "cat": "Mittens the cat only eats the salmon flavoured dry food.",
    "roof": "A roofer fixed the leaking gutter above the garage last autumn.",
    "tax": "The tax return is filed every year by the end of April.",
    "piano": "Piano lessons happen on Thursday evenings with Mrs Alvarez.",
    "car": "The blue hatchback needs new winter tyres before December.",
    "garden": "Tomatoes in the garden are watered at six in the morning.",
    "bank": "The savings account moved to the credit union in town.",
}
QUESTIONS = {
    "boat": "Where is the sailing boat kept?",
    "wifi": "What is the guest wifi password hidden under?",
    "piano": "When are the piano lessons?",
    "car": "What does the hatchback need before winter?",
}
LATE = "The spare house keys are with the neighbour at number twelve."
LATE_QUESTION = "Who has the spare house keys?"


class FailsAfter:
    """The real model, cut off after `calls` batches: a move that stops halfway, as a crash would."""

    def __init__(self, real: Embedder, calls: int):
        self.real, self.left, self.dimension = real, calls, real.dimension

    async def embed(self, texts: Sequence[str]) -> list[list[float]]:
        self.left -= 1
        if self.left < 0:
            raise RuntimeError("the model went away halfway")
        return await self.real.embed(texts)

    async def embed_questions(self, texts: Sequence[str]) -> list[list[float]]:
        return await self.real.embed_questions(texts)


@dataclass
class Deployment:
    client: TestClient
    settings: Settings
    alice: Member
    memory: str
    ids: dict[str, str]

    def cypher(self, statement: str, **params: Any) -> list[dict[str, Any]]:
        auth = (self.settings.neo4j.user, self.settings.neo4j.password.get_secret_value())
        with GraphDatabase.driver(self.settings.neo4j.uri, auth=auth) as driver:
            records, _, _ = driver.execute_query(statement, params)
            return [r.data() for r in records]

    def ask(self, question: str, **body: Any) -> dict[str, Any]:
        return recall(self.client, self.alice, self.memory, query=question, limit=5, **body)


@pytest.fixture(scope="module")
def deployment(
    tmp_path_factory: pytest.TempPathFactory, settings: Settings, embedder: OnnxEmbedder
) -> Iterator[Deployment]:
    home = tmp_path_factory.mktemp("model-move-neo4j")
    server = neo4j_server.start(home, heap="512m", pagecache="128m")
    own = settings.changed(
        neo4j_uri=server.uri,
        neo4j_user=server.user,
        neo4j_password=SecretStr(server.password),
        file_dir=tmp_path_factory.mktemp("model-move-files"),
        vector_state_seconds=0.2,
        model_move_settle_seconds=1.0,
    )
    try:
        with TestClient(create_app(own, embedder=embedder)) as client:
            alice = Admin(client=client, key=own.admin_key.get_secret_value()).member()
            memory = make_memory(client, alice, "household")["id"]
            ids = {}
            for name, text in FACTS.items():
                answer = client.post(
                    f"/v1/memories/{memory}/records", json={"content": text}, headers=alice.headers
                )
                assert answer.status_code == 200, answer.text
                ids[name] = answer.json()["id"]
            yield Deployment(client, own, alice, memory, ids)
    finally:
        neo4j_server.stop(home, timeout=30)


def answers(deployment: Deployment) -> dict[str, list[tuple[str, float]]]:
    return {
        name: [(r["record"]["id"], r["score"]) for r in deployment.ask(q)["results"]]
        for name, q in QUESTIONS.items()
    }


def test_recall_reads_the_old_model_until_the_switch_and_nothing_written_meanwhile_is_lost(
    deployment: Deployment,
) -> None:
    client, services = deployment.client, deployment.client.app.state.services  # type: ignore[attr-defined]
    before = answers(deployment)
    assert all(ranked[0][0] == deployment.ids[name] for name, ranked in before.items())

    bge = loaded_embedder(deployment.settings, BGE)
    services.vectors.embedders[BGE] = FailsAfter(bge, calls=1)
    move = ModelMove(
        Neo4jVectorStateStore(services.store),
        services.vectors,
        settle_seconds=1.0,
        batch_size=4,
        index_wait_seconds=600.0,
        progress=io.StringIO(),
    )
    assert client.portal is not None
    with pytest.raises(RuntimeError, match="halfway"):
        client.portal.call(move.move, BGE)

    # Halfway: the state says the new slot is being filled, some records have it and some do not.
    slots = deployment.cypher("MATCH (s:VectorState) RETURN s.active AS active, s.filling AS filling")
    assert slots == [{"active": "embedding", "filling": "embedding_b"}]
    filled = deployment.cypher("MATCH (r:Record) RETURN count(r.embedding_b) AS b, count(r) AS all")[0]
    assert 0 < filled["b"] < filled["all"], filled
    # Readers notice nothing: the same records in the same order with the same cosines.
    assert answers(deployment) == before
    # A write now fills both slots, with each slot's own model.
    services.vectors.embedders[BGE] = bge
    time.sleep(0.3)  # past UHP_VECTOR_STATE_SECONDS: the app has read the slots again
    late = client.post(
        f"/v1/memories/{deployment.memory}/records", json={"content": LATE}, headers=deployment.alice.headers
    )
    assert late.status_code == 200, late.text
    late_id = late.json()["id"]
    both = deployment.cypher(
        "MATCH (r:Record {id: $id}) RETURN r.embedding AS a, r.embedding_b AS b", id=late_id
    )[0]
    assert both["a"] is not None and both["b"] is not None
    assert float(np.dot(both["b"], client.portal.call(bge.embed, [LATE])[0])) > 0.9999

    # The command line resumes the move from where it stopped and takes it to its end.
    environment = {
        **os.environ,
        "NEO4J_URI": deployment.settings.neo4j.uri,
        "NEO4J_USER": deployment.settings.neo4j.user,
        "NEO4J_PASSWORD": deployment.settings.neo4j.password.get_secret_value(),
        "UHP_ENVIRONMENT": "test",
        "UHP_ADMIN_KEY": deployment.settings.admin_key.get_secret_value(),
        "UHP_FILE_DIR": str(deployment.settings.file.dir),
        "UHP_MODEL_MOVE_SETTLE_SECONDS": "1",
    }
    done = subprocess.run(
        [sys.executable, "-m", "provider", "reembed", "--to", BGE],
        env=environment,
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert "recall now reads embedding_b" in done.stderr and "retired embedding" in done.stderr

    time.sleep(0.3)
    slots = deployment.cypher(
        "MATCH (s:VectorState) RETURN s.active AS active, s.filling AS filling, "
        "s.model_embedding AS old, s.model_embedding_b AS new"
    )
    assert slots == [{"active": "embedding_b", "filling": None, "old": None, "new": BGE}]
    left = deployment.cypher(
        "MATCH (n) WHERE (n:Record OR n:RecordVersion) "
        "RETURN count(n.embedding) AS old, count(n.embedding_b) AS new, count(n) AS all"
    )[0]
    assert left["old"] == 0 and left["new"] == left["all"] == 2 * (len(FACTS) + 1), left
    indexes = {r["name"]: r["state"] for r in deployment.cypher("SHOW VECTOR INDEXES YIELD name, state")}
    assert indexes == {"record_embedding_b": "ONLINE"}

    # The app, still configured with MiniLM, now asks in bge-small and reads the new slot.
    for name, question in {**QUESTIONS, "late": LATE_QUESTION}.items():
        wanted = late_id if name == "late" else deployment.ids[name]
        for body in ({}, {"include": "all"}):
            ranked = deployment.ask(question, **body)
            assert found(ranked)[0] == wanted, (name, body, found(ranked))
        slot, asked = client.portal.call(services.vectors.questions, [question])
        assert slot == "embedding_b"
        assert float(np.dot(asked[0], client.portal.call(bge.embed_questions, [question])[0])) > 0.9999


def test_a_move_to_the_model_already_read_changes_nothing(deployment: Deployment) -> None:
    services = deployment.client.app.state.services  # type: ignore[attr-defined]
    move = ModelMove(
        Neo4jVectorStateStore(services.store),
        services.vectors,
        settle_seconds=0.1,
        batch_size=256,
        index_wait_seconds=600.0,
        progress=io.StringIO(),
    )
    assert deployment.client.portal is not None
    outcome = deployment.client.portal.call(move.move, BGE)
    assert (outcome.active, outcome.filled, outcome.passes, outcome.retired) == ("embedding_b", 0, 0, None)


def test_a_process_started_after_the_move_follows_it_and_makes_no_retired_index(
    deployment: Deployment, embedder: OnnxEmbedder
) -> None:
    """Configured with MiniLM, started on a database that moved to bge-small: it asks in bge-small,
    and start-up's idempotent schema does not make the retired slot's index again."""
    with TestClient(create_app(deployment.settings, embedder=embedder)) as restarted:
        indexes = {r["name"] for r in deployment.cypher("SHOW VECTOR INDEXES YIELD name")}
        assert indexes == {"record_embedding_b"}
        for name, question in QUESTIONS.items():
            ranked = recall(restarted, deployment.alice, deployment.memory, query=question, limit=5)
            assert found(ranked)[0] == deployment.ids[name], (name, found(ranked))
        services = restarted.app.state.services  # type: ignore[attr-defined]
        assert restarted.portal is not None
        slot, _ = restarted.portal.call(services.vectors.questions, [QUESTIONS["boat"]])
        assert slot == "embedding_b"
