"""Consolidation over HTTP: duplicates and expired facts forgotten, entities merged, reverts appended."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest
from fastapi.testclient import TestClient

from provider import ids
from tests.api.lifecycle_support import cypher, provider_document, refs
from tests.api.records_support import Lab, Reply, assert_error, ok, validate
from tests.conftest import Admin, Member
from tests.neo4j_target import Neo4jTarget

PAST = "2020-01-01T00:00:00Z"
FUTURE = "2999-01-01T00:00:00Z"


@pytest.fixture
def lab(client: TestClient) -> Iterator[Lab]:
    tracker = Lab(client)
    yield tracker
    tracker.cleanup()


def runs_path(memory_id: str, *rest: str) -> str:
    return "/".join([f"/v1/memories/{memory_id}/consolidations", *rest])


def start_reply(lab: Lab, who: Member, memory_id: str, body: Any = None) -> Reply:
    return lab.client.post(runs_path(memory_id), json=body, headers=who.headers)


def start(lab: Lab, who: Member, memory_id: str, **body: Any) -> dict[str, Any]:
    """A run that must answer 200, checked against the schema."""
    validate("MemoryConsolidationStart", body)
    run = ok(start_reply(lab, who, memory_id, body))
    validate("MemoryConsolidation", run)
    return run


def get_run(lab: Lab, who: Member, memory_id: str, run_id: str) -> dict[str, Any]:
    run = ok(lab.client.get(runs_path(memory_id, run_id), headers=who.headers))
    validate("MemoryConsolidation", run)
    return run


def changes(lab: Lab, who: Member, memory_id: str, run_id: str) -> dict[str, str]:
    """What the run did to each record: record id → action."""
    body = ok(lab.client.get(runs_path(memory_id, run_id, "changes"), headers=who.headers))
    assert body["object"] == "list"
    return {c["record_id"]: c["action"] for c in body["data"]}


def revert_reply(lab: Lab, who: Member, memory_id: str, run_id: str) -> Reply:
    return lab.client.post(runs_path(memory_id, run_id, "revert"), headers=who.headers)


def fact(lab: Lab, who: Member, memory_id: str, text: str, subject: str | None = None, **body: Any) -> str:
    references = [{"rel": "subject", "record_id": subject}] if subject else []
    return str(lab.remember(who, memory_id, type="fact", content=text, references=references, **body)["id"])


def entity(lab: Lab, who: Member, memory_id: str, title: str) -> str:
    return str(lab.remember(who, memory_id, type="entity", title=title, content=title)["id"])


@dataclass
class Scene:
    """A memory with every case the rules decide, by role."""

    memory: str
    ids: dict[str, str]

    def __getitem__(self, role: str) -> str:
        return self.ids[role]


def build_scene(lab: Lab, who: Member) -> Scene:
    memory = lab.memory(who)
    ids: dict[str, str] = {}
    ids["harlow"] = entity(lab, who, memory, "Harlow Mills")
    ids["quillon"] = entity(lab, who, memory, "Quillon Freight")
    ids["first"] = fact(lab, who, memory, "Harlow Mills pays its invoices net sixty.", ids["harlow"])
    ids["same"] = fact(lab, who, memory, "harlow mills pays its invoices, NET SIXTY!", ids["harlow"])
    ids["near"] = fact(lab, who, memory, "Harlow Mills pays their invoices net sixty.", ids["harlow"])
    ids["other_subject"] = fact(
        lab, who, memory, "Harlow Mills pays its invoices at net sixty.", ids["quillon"]
    )
    ids["distinct"] = fact(lab, who, memory, "Harlow Mills moved its warehouse to Leeds.", ids["harlow"])
    ids["twin"] = entity(lab, who, memory, "HARLOW   mills")
    ids["about_twin"] = fact(lab, who, memory, "Ines Varga buys for them.", ids["twin"])
    ids["note_on_twin"] = str(
        lab.remember(
            who,
            memory,
            type="note",
            content="Account notes.",
            references=[{"rel": "about", "record_id": ids["twin"]}],
        )["id"]
    )
    ids["expired"] = fact(lab, who, memory, "The spring discount applies.", time={"valid_to": PAST})
    ids["current"] = fact(lab, who, memory, "The contract runs for years.", time={"valid_to": FUTURE})
    return Scene(memory=memory, ids=ids)


EXPECTED = {
    "same": "forgotten",
    "near": "forgotten",
    "expired": "forgotten",
    "twin": "forgotten",
    "about_twin": "superseded",
    "note_on_twin": "superseded",
}


def histories(lab: Lab, who: Member, scene: Scene) -> dict[str, list[dict[str, Any]]]:
    return {role: lab.history(who, scene.memory, rid) for role, rid in scene.ids.items()}


def stated(version: dict[str, Any]) -> dict[str, Any]:
    """What a version says, whoever wrote it and whenever."""
    return {
        "content": version["content"],
        "title": version.get("title"),
        "attributes": version["attributes"],
        "references": sorted(refs(version)),
        "status": version["status"],
        "valid_from": version["time"]["valid_from"],
        "valid_to": version["time"]["valid_to"],
    }


def written(version: dict[str, Any]) -> dict[str, Any]:
    """A version as history keeps it, apart from the status a later version may close."""
    fields = {k: v for k, v in stated(version).items() if k != "status"}
    return {**fields, "version": version["version"], "written_by": version["written_by"],
            "written_at": version["time"]["written_at"]}  # fmt: skip


# -- a run -------------------------------------------------------------------------------------------


def test_a_run_forgets_duplicates_and_expired_facts_and_merges_entities(lab: Lab, alice: Member) -> None:
    scene = build_scene(lab, alice)
    provider_id = provider_document(lab.client, alice)["id"]
    run = start(lab, alice, scene.memory)
    assert run["object"] == "memory.consolidation" and run["memory_id"] == scene.memory
    assert (run["status"], run["trigger"]) == ("completed", "request")
    assert run["written_by"] == {"kind": "provider", "id": provider_id, "consolidation_id": run["id"]}
    assert run["read"]["examined"] == 11 and run["budget"]["exhausted"] is False
    assert run["changes"] == {"created": 0, "superseded": 2, "forgotten": 4}
    assert isinstance(run["started_at"], int) and isinstance(run["finished_at"], int)
    status = {role: lab.get(alice, scene.memory, rid)["status"] for role, rid in scene.ids.items()}
    assert {role for role, s in status.items() if s == "forgotten"} == {"same", "near", "expired", "twin"}
    assert changes(lab, alice, scene.memory, run["id"]) == {scene[role]: a for role, a in EXPECTED.items()}
    for role, rel in (("about_twin", "subject"), ("note_on_twin", "about")):
        moved = lab.get(alice, scene.memory, scene[role])
        assert refs(moved) == {(rel, scene["harlow"])}, role
        assert moved["version"] == 2 and moved["supersedes"] == 1
        assert moved["written_by"] == {"kind": "provider", "id": provider_id, "consolidation_id": run["id"]}
    for role, history in histories(lab, alice, scene).items():
        by_run = [v for v in history if v["written_by"]["kind"] == "provider"]
        assert all(v["written_by"].get("consolidation_id") == run["id"] for v in by_run), role
        assert len(by_run) == (1 if EXPECTED.get(role) == "superseded" else 0), role
    assert get_run(lab, alice, scene.memory, run["id"]) == run


def test_the_runs_are_listed_newest_first(lab: Lab, alice: Member) -> None:
    memory = lab.memory(alice)
    fact(lab, alice, memory, "Harlow Mills pays net sixty.")
    first = start(lab, alice, memory)
    second = start(lab, alice, memory)
    body = ok(lab.client.get(runs_path(memory), headers=alice.headers))
    validate("MemoryConsolidationList", body)
    assert [r["id"] for r in body["data"]] == [second["id"], first["id"]]
    assert second["read"]["examined"] == 0, "nothing was written since the first run read through"


def test_a_budget_stops_a_run_and_the_next_resumes_after_it(lab: Lab, alice: Member) -> None:
    memory = lab.memory(alice)
    texts = [
        "Harlow Mills pays net sixty.",
        "Quillon Freight ships on Mondays.",
        "Harlow Mills pays net sixty.",
        "Ines Varga signs the orders.",
        "The warehouse is in Leeds.",
    ]
    written = [lab.remember(alice, memory, type="fact", content=t) for t in texts]
    stopped = start(lab, alice, memory, budget={"limit": 2})
    assert stopped["status"] == "stopped"
    assert stopped["budget"]["exhausted"] is True and stopped["budget"]["limit"] == 2
    assert stopped["read"]["examined"] == 2
    assert stopped["read"]["through"] == written[1]["time"]["written_at"]
    assert changes(lab, alice, memory, stopped["id"]) == {}
    resumed = start(lab, alice, memory)
    assert resumed["status"] == "completed" and resumed["budget"]["exhausted"] is False
    assert resumed["read"]["examined"] == 3
    assert resumed["read"]["through"] == written[4]["time"]["written_at"]
    assert changes(lab, alice, memory, resumed["id"]) == {written[2]["id"]: "forgotten"}
    assert start(lab, alice, memory)["read"]["examined"] == 0


def test_a_budget_that_ends_inside_a_millisecond_loses_no_record(
    lab: Lab, alice: Member, neo4j_target: Neo4jTarget
) -> None:
    """Writes from several clients (or a bulk import) share milliseconds; the resume point must not
    skip the records of the millisecond a budget stopped in. Simulated by giving two records one
    `written_at` in Neo4j, as two writes in the same millisecond would have."""
    memory = lab.memory(alice)
    first = fact(lab, alice, memory, "Harlow Mills pays net sixty.")
    second = fact(lab, alice, memory, "Quillon Freight ships on Mondays.")
    duplicate = fact(lab, alice, memory, "Harlow Mills pays net sixty.")
    cypher(
        neo4j_target,
        "MATCH (a:Record {id: $a}), (b:Record {id: $b}) SET b.written_at = a.written_at",
        a=second,
        b=duplicate,
    )
    stopped = start(lab, alice, memory, budget={"limit": 2})
    assert stopped["status"] == "stopped" and stopped["read"]["examined"] == 2
    resumed = start(lab, alice, memory)
    assert resumed["read"]["examined"] >= 1, "the record sharing the last millisecond was skipped"
    assert lab.get(alice, memory, duplicate)["status"] == "forgotten"
    assert lab.get(alice, memory, first)["status"] == "active"


# -- revert ------------------------------------------------------------------------------------------


def test_revert_restores_every_record_by_appending(lab: Lab, alice: Member) -> None:
    scene = build_scene(lab, alice)
    before = histories(lab, alice, scene)
    run = start(lab, alice, scene.memory)
    after_run = histories(lab, alice, scene)
    reverted = ok(revert_reply(lab, alice, scene.memory, run["id"]))
    validate("MemoryConsolidation", reverted)
    assert reverted["status"] == "completed" and reverted["revert_of"] == run["id"]
    assert reverted["trigger"] == "revert" and reverted["id"] != run["id"]
    assert get_run(lab, alice, scene.memory, run["id"])["reverted_by"] == reverted["id"]
    assert set(changes(lab, alice, scene.memory, reverted["id"])) == {scene[r] for r in EXPECTED}
    after_revert = histories(lab, alice, scene)
    for role in scene.ids:
        old, mid, now = before[role], after_run[role], after_revert[role]
        assert stated(now[-1]) == stated(old[-1]), role
        assert [written(v) for v in now[: len(mid)]] == [written(v) for v in mid], f"{role}: rewritten"
        appended = now[len(mid) :]
        assert len(appended) == (1 if role in EXPECTED else 0), role
        for version in appended:
            assert version["written_by"]["kind"] == "provider", role
            assert version["written_by"]["consolidation_id"] == reverted["id"], role
            assert version["status"] == "active" and version["supersedes"] == version["version"] - 1
        if role not in EXPECTED:
            assert now == old, f"{role} was not touched by the run"
    listed = set(lab.listed(alice, scene.memory))
    assert listed == set(scene.ids.values())


def test_a_run_cannot_be_reverted_twice_nor_a_revert_reverted(lab: Lab, alice: Member) -> None:
    memory = lab.memory(alice)
    fact(lab, alice, memory, "Harlow Mills pays net sixty.")
    duplicate = fact(lab, alice, memory, "Harlow Mills pays net sixty.")
    run = start(lab, alice, memory)
    reverted = ok(revert_reply(lab, alice, memory, run["id"]))
    assert lab.get(alice, memory, duplicate)["status"] == "active"
    assert_error(revert_reply(lab, alice, memory, run["id"]), 422, "memory_invalid")
    assert_error(revert_reply(lab, alice, memory, reverted["id"]), 422, "memory_invalid")
    assert [v["version"] for v in lab.history(alice, memory, duplicate)] == [1, 2]


# -- a run in progress -------------------------------------------------------------------------------


def test_a_run_in_progress_blocks_moves_and_deletes_of_its_memory_and_ancestors(
    lab: Lab, alice: Member, neo4j_target: Neo4jTarget
) -> None:
    root = lab.memory(alice)
    child = lab.memory(alice, parent_id=root)
    elsewhere = lab.memory(alice)
    run_id = f"hcon_{uuid.uuid4().hex}"
    cypher(
        neo4j_target,
        "CREATE (:Consolidation {id: $id, memory_id: $memory_id, status: 'running', started_at: 0,"
        " lease_until: $far})",
        id=run_id,
        memory_id=child,
        far=ids.now_ms() + 3_600_000,
    )
    try:
        for memory_id in (child, root):
            path = f"/v1/memories/{memory_id}"
            move = lab.client.put(path, json={"parent_id": elsewhere}, headers=alice.headers)
            assert_error(move, 409, "memory_busy")
            assert_error(lab.client.delete(path, headers=alice.headers), 409, "memory_busy")
        assert_error(start_reply(lab, alice, child, {}), 409, "memory_busy")
        renamed = lab.client.put(f"/v1/memories/{child}", json={"name": "renamed"}, headers=alice.headers)
        assert ok(renamed)["name"] == "renamed", "a rename is not a move"
    finally:
        cypher(neo4j_target, "MATCH (c:Consolidation {id: $id}) DETACH DELETE c", id=run_id)
    moved = ok(lab.client.put(f"/v1/memories/{child}", json={"parent_id": elsewhere}, headers=alice.headers))
    assert moved["parent_id"] == elsewhere
    assert ok(lab.client.delete(f"/v1/memories/{root}", headers=alice.headers))["deleted"] is True
    assert start(lab, alice, child)["status"] == "completed"


# -- access and refusals -----------------------------------------------------------------------------


def test_readers_see_runs_writers_start_them_strangers_see_nothing(
    lab: Lab, alice: Member, bob: Member, admin: Admin
) -> None:
    memory = lab.memory(alice)
    fact(lab, alice, memory, "Harlow Mills pays net sixty.")
    run = start(lab, alice, memory)
    lab.grant(alice, memory, bob, "read")
    assert get_run(lab, bob, memory, run["id"])["id"] == run["id"]
    assert ok(lab.client.get(runs_path(memory), headers=bob.headers))["data"][0]["id"] == run["id"]
    assert_error(start_reply(lab, bob, memory, {}), 403, "memory_forbidden")
    assert_error(revert_reply(lab, bob, memory, run["id"]), 403, "memory_forbidden")
    stranger = admin.member()
    for reply in (
        start_reply(lab, stranger, memory, {}),
        lab.client.get(runs_path(memory), headers=stranger.headers),
        lab.client.get(runs_path(memory, run["id"]), headers=stranger.headers),
        lab.client.get(runs_path(memory, run["id"], "changes"), headers=stranger.headers),
        revert_reply(lab, stranger, memory, run["id"]),
    ):
        assert_error(reply, 404, "memory_not_found")


def test_an_unknown_run_is_404(lab: Lab, alice: Member) -> None:
    memory = lab.memory(alice)
    other = lab.memory(alice)
    foreign = start(lab, alice, other)["id"]
    for run_id in (f"hcon_{uuid.uuid4().hex}", foreign):
        for reply in (
            lab.client.get(runs_path(memory, run_id), headers=alice.headers),
            lab.client.get(runs_path(memory, run_id, "changes"), headers=alice.headers),
            revert_reply(lab, alice, memory, run_id),
        ):
            assert reply.status_code == 404, reply.text
            validate("ErrorEnvelope", reply.json())


@pytest.mark.parametrize(
    "body",
    [
        {"budget": {"limit": 0}},
        {"budget": {"limit": -1}},
        {"budget": {"limit": "2"}},
        {"budget": {"limit": True}},
        {"budget": {"limit": 1.5}},
        {"budget": {}},
        {"budget": 5},
        {"budget": {"limit": 100_001}},
    ],
    ids=repr,
)
def test_a_bad_budget_is_422(lab: Lab, alice: Member, body: dict[str, Any]) -> None:
    memory = lab.memory(alice)
    assert_error(start_reply(lab, alice, memory, body), 422, "memory_invalid")
    assert ok(lab.client.get(runs_path(memory), headers=alice.headers))["data"] == []


def test_a_run_whose_process_died_blocks_nothing_and_is_closed_as_failed(
    lab: Lab, alice: Member, neo4j_target: Neo4jTarget, client: TestClient
) -> None:
    """A run left `running` by a dead process held its memory busy for good; its lease now runs out."""
    root = lab.memory(alice)
    child = lab.memory(alice, parent_id=root)
    elsewhere = lab.memory(alice)
    dead, later = f"hcon_{uuid.uuid4().hex}", f"hcon_{uuid.uuid4().hex}"
    for run_id in (dead, later):
        cypher(
            neo4j_target,
            "MATCH (m:Memory {id: $memory_id}) CREATE (:Consolidation {id: $id, memory_id: $memory_id,"
            " status: 'running', started_at: 0, lease_until: $gone})-[:IN]->(m)",
            id=run_id,
            memory_id=child,
            gone=ids.now_ms() - 1,
        )
    moved = ok(lab.client.put(f"/v1/memories/{child}", json={"parent_id": elsewhere}, headers=alice.headers))
    assert moved["parent_id"] == elsewhere
    started = ok(start_reply(lab, alice, child, {}))
    assert started["status"] == "completed"
    runs = {
        r["id"]: r
        for r in ok(lab.client.get(f"/v1/memories/{child}/consolidations", headers=alice.headers))["data"]
    }
    assert runs[dead]["status"] == "failed" and "abandoned" in runs[dead]["error"]
    services = client.app.state.services  # type: ignore[attr-defined]
    portal = client.portal
    assert portal is not None
    assert portal.call(services.sweeper.sweep).runs == 0  # start closed them already
