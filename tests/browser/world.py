"""A small team's memories, written through the API, for the browser tests to look at."""

from __future__ import annotations

import secrets
import struct
import zlib
from dataclasses import dataclass, field
from typing import Any

from fastapi.testclient import TestClient

from tests.conftest import Admin, Member
from tests.support import ok


def png(width: int, height: int) -> bytes:
    """A striped RGB PNG made here: big enough to be seen in a screenshot, valid to any decoder."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))

    rows = b"".join(
        b"\x00"
        + b"".join(bytes((200, 40, 40) if (x // 8 + y // 8) % 2 else (250, 220, 90)) for x in range(width))
        for y in range(height)
    )
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(rows))
        + chunk(b"IEND", b"")
    )


PNG_WIDTH = 96
PNG = png(PNG_WIDTH, 48)
HOSTILE_TITLE = "<img src=x onerror=\"window.__pwned='title'\">"
HOSTILE_TEXT = "<script>window.__pwned='text'</script><b onmouseover=\"window.__pwned='b'\">bold</b>"


@dataclass
class World:
    """Who is who, and the ids of what the tests open."""

    alice: Member
    bob: Member
    tag: str
    root: dict[str, Any]
    projects: dict[str, Any]
    apollo: dict[str, Any]
    private: dict[str, Any]
    ada: dict[str, Any]
    engine: dict[str, Any]
    fact: dict[str, Any]
    with_files: dict[str, Any]
    hostile: dict[str, Any]
    secret: dict[str, Any]
    pointer: dict[str, Any]
    extra: dict[str, Any] = field(default_factory=dict)


def _memory(client: TestClient, who: Member, **body: Any) -> dict[str, Any]:
    return ok(client.post("/v1/memories", json=body, headers=who.headers))


def _record(client: TestClient, who: Member, memory_id: str, **body: Any) -> dict[str, Any]:
    return ok(client.post(f"/v1/memories/{memory_id}/records", json=body, headers=who.headers))


def _upload(client: TestClient, who: Member, data: bytes, name: str, media_type: str) -> str:
    answer = ok(client.post("/v1/files", files={"file": (name, data, media_type)}, headers=who.headers))
    return str(answer["id"])


def build(client: TestClient, admin: Admin) -> World:
    """Alice keeps a team's tree; Bob may read one branch of it and nothing else."""
    alice, bob = admin.member(), admin.member()
    tag = secrets.token_hex(3)
    root = _memory(client, alice, name=f"Team {tag}", description="Everything the team's agents learned")
    projects = _memory(
        client, alice, name=f"Projects {tag}", description="Work in flight", parent_id=root["id"]
    )
    apollo = _memory(
        client, alice, name=f"Apollo {tag}", description="The engine history", parent_id=projects["id"]
    )
    private = _memory(
        client, alice, name=f"Private {tag}", description="Alice alone", parent_id=root["id"], restricted=True
    )
    ada = _record(
        client, alice, apollo["id"], type="entity", title="Ada Lovelace", content="A mathematician."
    )
    engine = _record(
        client, alice, apollo["id"], type="entity", title="Analytical Engine", content="A machine."
    )
    fact = _record(
        client,
        alice,
        apollo["id"],
        type="fact",
        title="Ada wrote notes on the Analytical Engine",
        content="In 1843 Ada Lovelace published notes on the Analytical Engine, with the first program.",
        attributes={"predicate": "wrote_notes_on", "year": 1843},
        references=[{"rel": "subject", "record_id": ada["id"]}, {"rel": "object", "record_id": engine["id"]}],
    )
    image_id = _upload(client, alice, PNG, "red.png", "image/png")
    text_id = _upload(client, alice, b"minutes of the meeting\n", "minutes.txt", "text/plain")
    with_files = _record(
        client,
        alice,
        projects["id"],
        type="note",
        title="Meeting with pictures",
        content=[
            {"type": "text", "text": "The whiteboard after the meeting."},
            {"type": "file", "file": {"id": image_id}},
            {"type": "file", "file": {"id": text_id}},
        ],
    )
    hostile = _record(client, alice, projects["id"], type="note", title=HOSTILE_TITLE, content=HOSTILE_TEXT)
    secret = _record(
        client, alice, private["id"], type="note", title="Salary review", content="Private numbers."
    )
    pointer = _record(
        client,
        alice,
        projects["id"],
        type="note",
        title="Budget notes",
        content="See the private review for the numbers.",
        references=[{"rel": "about", "record_id": secret["id"]}],
    )
    ok(
        client.post(
            f"/v1/memories/{projects['id']}/grants",
            json={"principal": bob.principal, "privileges": ["read"]},
            headers=alice.headers,
        )
    )
    ok(
        client.put(
            f"/v1/memories/{projects['id']}/queries/by_type",
            json={
                "description": "Records of one type",
                "body": "MATCH (r:Record {type: $type}) RETURN r.title AS title ORDER BY title",
                "params": {
                    "type": "object",
                    "properties": {"type": {"type": "string"}},
                    "required": ["type"],
                },
            },
            headers=alice.headers,
        )
    )
    return World(
        alice,
        bob,
        tag,
        root,
        projects,
        apollo,
        private,
        ada,
        engine,
        fact,
        with_files,
        hostile,
        secret,
        pointer,
    )
