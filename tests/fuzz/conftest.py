"""The fuzz session: the app's schema with links, a member's seeded world, and the tally's summary.

Reuses tests/conftest.py's session `client` (the real app on the real Neo4j and model) and `admin`.
"""

from __future__ import annotations

import os
import secrets
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from provider.config import Settings
from tests.conftest import Admin, Member, make_memory
from tests.fuzz.harness import TALLY, Sender, session_over, table


@dataclass
class World:
    """What one member owns, so a generated path can name something that exists.

    `root` (owner: admin by creation) holds `record`; `child` sits below it; `run` is a consolidation
    of root, `query` a named query on it, `harness` a harness running as `owner`, `group` a group.
    The admin operations are pointed at `spare`, never at `owner`, whose key sends the cases.
    """

    client: TestClient
    owner: Member
    spare: Member
    admin: Admin
    root: str
    child: str
    record: str
    run: str
    harness: str
    group: str
    query: str

    def fresh_memory(self) -> str:
        return str(make_memory(self.client, self.owner, "doomed", parent_id=self.root)["id"])

    def fresh_record(self) -> str:
        return self.remember(self.root, "a fact to forget")

    def fresh_grant(self) -> str:
        granted = self.client.post(
            f"/v1/memories/{self.root}/grants",
            json={"principal": f"member:{self.admin.member().id}", "privileges": ["read"]},
            headers=self.owner.headers,
        )
        assert granted.status_code == 200, granted.text
        return str(granted.json()["id"])

    def fresh_key(self) -> str:
        made = self.client.post(
            f"/v1/admin/members/{self.spare.id}/keys", json={}, headers=self.admin.headers
        )
        assert made.status_code == 200, made.text
        return str(made.json()["id"])

    def remember(self, memory: str, text: str, **fields: Any) -> str:
        made = self.client.post(
            f"/v1/memories/{memory}/records",
            json={"type": "fact", "content": text, **fields},
            headers=self.owner.headers,
        )
        assert made.status_code == 200, made.text
        return str(made.json()["id"])


def _consolidation(client: TestClient, owner: Member, memory: str) -> str:
    run = client.post(f"/v1/memories/{memory}/consolidations", json={}, headers=owner.headers)
    assert run.status_code == 200, run.text
    return str(run.json()["id"])


def _harness(world_client: TestClient, admin: Admin, owner: Member) -> str:
    made = world_client.post(
        "/v1/admin/harnesses", json={"name": "fuzz", "member_id": owner.id}, headers=admin.headers
    )
    assert made.status_code == 200, made.text
    return str(made.json()["id"])


def _named_query(client: TestClient, owner: Member, memory: str, name: str) -> None:
    defined = client.put(
        f"/v1/memories/{memory}/queries/{name}",
        json={
            "body": "MATCH (r:Record) WHERE r.title = $title RETURN r.id AS id",
            "description": "records by title",
            "params": {"type": "object", "properties": {"title": {"type": "string"}}},
        },
        headers=owner.headers,
    )
    assert defined.status_code == 200, defined.text


@pytest.fixture(scope="session")
def world(client: TestClient, admin: Admin) -> World:
    owner = admin.member("agent")
    root = str(make_memory(client, owner, "fuzz root")["id"])
    child = str(make_memory(client, owner, "fuzz child", parent_id=root)["id"])
    name = "fuzz_" + secrets.token_hex(4)
    _named_query(client, owner, root, name)
    world = World(
        client=client,
        owner=owner,
        spare=admin.member("agent"),
        admin=admin,
        root=root,
        child=child,
        record="",
        run="",
        harness=_harness(client, admin, owner),
        group=admin.group(),
        query=name,
    )
    world.record = world.remember(root, "Acme renewed its contract in March", title="acme")
    world.run = _consolidation(client, owner, root)
    return world


@pytest.fixture(scope="session")
def sender(client: TestClient, world: World, settings: Settings) -> Iterator[Sender]:
    session, adapter = session_over(client)
    yield Sender(session, adapter, world.owner.key, settings.admin_key.get_secret_value())
    session.close()


def pytest_sessionfinish(session: pytest.Session) -> None:
    """Writes the tally where bench/fuzz asks for it (UHP_FUZZ_REPORT)."""
    target = os.environ.get("UHP_FUZZ_REPORT")
    if target and TALLY.cases:
        TALLY.write(Path(target))


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    """Operations, cases and outcomes, when the OpenAPI fuzzing ran."""
    if not TALLY.cases:
        return
    terminalreporter.write_sep("-", "fuzzing from the OpenAPI")
    for line in table(TALLY.as_json(), per_operation=False):
        terminalreporter.write_line(line)
