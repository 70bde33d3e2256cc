"""Export/restore test helpers: a tree worth exporting, and what a reader sees of it (docs/EXPORT.md)."""

from __future__ import annotations

import base64
import hashlib
import hmac
import io
import json
import secrets
import struct
import tarfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from fastapi.testclient import TestClient
from pydantic import SecretStr

from provider.api.app import create_app
from provider.config import Settings
from provider.embeddings import OnnxEmbedder
from tests.api.lifecycle_support import erase
from tests.api.records_support import PNG, Lab, Reply, ok, tag
from tests.conftest import Member

QUESTIONS = ["Who pays net sixty?", "Where is the warehouse?", "What did the audit find?"]


@dataclass
class Tree:
    """Alice's root with a child, a restricted branch of bob's she cannot read, and what they hold."""

    root: str
    child: str
    hidden: str
    secret: str
    records: dict[str, str]  # record id -> its memory
    erased: str
    file_bytes: bytes


@contextmanager
def keyed_app(settings: Settings, embedder: OnnxEmbedder, key: str) -> Iterator[TestClient]:
    """An app on the suite's Neo4j and file store that signs and trusts archives with `key`."""
    own = settings.model_copy(update={"archive_key": SecretStr(key)})
    with TestClient(create_app(own, embedder=embedder)) as client:
        yield client


def upload(lab: Lab, who: Member, data: bytes) -> str:
    files = {"file": ("ledger.png", data, "image/png")}
    body = ok(lab.client.post("/v1/files", data={"purpose": "user_data"}, files=files, headers=who.headers))
    return str(body["id"])


def build(lab: Lab, alice: Member, bob: Member) -> Tree:
    root = lab.memory(alice)
    child = lab.memory(alice, parent_id=root)
    lab.grant(alice, root, bob, "read", "write", "create")
    hidden = lab.memory(bob, parent_id=root, restricted=True)
    secret = f"secret {tag()}"
    lab.remember(bob, hidden, content=secret)
    terms = lab.remember(alice, root, content="Harlow Mills pays net sixty.")
    lab.revise(alice, root, terms["id"], content="Harlow Mills pays net forty-five.")
    lab.revise(alice, root, terms["id"], content="Harlow Mills pays net thirty.")
    site = lab.remember(alice, child, content="The warehouse is on Quay Street.")
    refs = [{"rel": "about", "record_id": terms["id"]}]
    audit = lab.remember(alice, child, content="The audit found two missing pallets.", references=refs)
    data = PNG + secrets.token_bytes(3000) + b"\x00end"
    parts = [
        {"type": "text", "text": "The signed ledger."},
        {"type": "file", "file": {"id": upload(lab, alice, data)}},
    ]
    ledger = lab.remember(alice, child, type="note", content=parts)
    gone = lab.remember(alice, child, content=f"erase me {tag()}")
    erase(lab, alice, child, gone["id"])
    forgotten = lab.remember(alice, root, content="An old phone number.")
    ok(lab.delete(alice, root, forgotten["id"]))
    ok(lab.client.post(f"/v1/memories/{root}/snapshots", json={"name": "before"}, headers=alice.headers))
    records = {terms["id"]: root, forgotten["id"]: root, site["id"]: child, audit["id"]: child}
    records[ledger["id"]] = child
    return Tree(root, child, hidden, secret, records, gone["id"], data)


def exported(lab: Lab, who: Member, memory_id: str) -> bytes:
    response = lab.client.get(f"/v1/memories/{memory_id}/export", headers=who.headers)
    assert response.status_code == 200, response.text
    assert response.headers["content-type"] == "application/x-tar"
    return response.content


def members(archive: bytes) -> dict[str, bytes]:
    with tarfile.open(fileobj=io.BytesIO(archive), mode="r") as tar:
        return {m.name: tar.extractfile(m).read() for m in tar.getmembers() if m.isfile()}  # type: ignore[union-attr]


def restore(lab: Lab, who: Member, memory_id: str, archive: bytes) -> Reply:
    headers = {**who.headers, "Content-Type": "application/x-tar"}
    return lab.client.post(f"/v1/memories/{memory_id}/restore", content=archive, headers=headers)


def readback(lab: Lab, who: Member, tree: Tree) -> dict[str, Any]:
    """Everything a reader sees of the tree: each record's history, the file's bytes, recall's order."""
    seen: dict[str, Any] = {}
    for record_id, memory_id in sorted(tree.records.items()):
        seen[record_id] = lab.history(who, memory_id, record_id)
    ledger = next(r for r, h in seen.items() if h[-1]["type"] == "note")
    part = lab.client.get(f"{lab.path(tree.child, ledger)}/content/1", headers=who.headers)
    seen["file"] = part.content
    for question in QUESTIONS:
        body = {"query": question, "limit": 5}
        answer = ok(lab.client.post(f"/v1/memories/{tree.root}/recall", json=body, headers=who.headers))
        seen[question] = [r["record"]["id"] for r in answer["results"]]
    return seen


def tarred(found: list[tuple[str, bytes]]) -> bytes:
    """Members, in this order, as a tar."""
    out = io.BytesIO()
    with tarfile.open(fileobj=out, mode="w", format=tarfile.PAX_FORMAT) as tar:
        for name, data in found:
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    return out.getvalue()


def rewritten(archive: bytes, change: Callable[[str, bytes], bytes | None]) -> bytes:
    """The archive with each member's bytes passed through `change` (None leaves it out), its
    manifest's checksums made anew (and any signature left as it was)."""
    passed = [(n, d if n == "manifest.json" else change(n, d)) for n, d in members(archive).items()]
    changed = [(name, data) for name, data in passed if data is not None]
    manifest = json.loads(dict(changed)["manifest.json"])
    manifest["members"] = {
        n: {"sha256": hashlib.sha256(d).hexdigest(), "bytes": len(d)}
        for n, d in changed
        if n != "manifest.json"
    }
    return tarred([(n, json.dumps(manifest).encode() if n == "manifest.json" else d) for n, d in changed])


def sealed(archive: bytes, key: str) -> bytes:
    """The archive with its manifest signed anew under `key`, as docs/EXPORT.md spells the signature out
    (written here from the page, not with the provider's code, so the page is checked too)."""
    found = members(archive)
    manifest = json.loads(found["manifest.json"])
    manifest.pop("signature", None)
    body = json.dumps(manifest, sort_keys=True, separators=(",", ":"), ensure_ascii=True).encode()
    mac = hmac.new(key.encode(), b"uhp-memory-archive manifest\n" + body, hashlib.sha256).hexdigest()
    found["manifest.json"] = json.dumps({**manifest, "signature": f"hmac-sha256:{mac}"}).encode()
    return tarred(list(found.items()))


def record_entries(archive: bytes) -> dict[str, dict[str, Any]]:
    """Each record the archive carries, by id, as its line holds it."""
    return {
        entry["id"]: entry
        for name, data in members(archive).items()
        if name.startswith("records/")
        for entry in map(json.loads, data.splitlines())
    }


def carried(entry: dict[str, Any]) -> list[float]:
    """The vector a record entry carries for its current version."""
    data = base64.b64decode(entry["vectors"]["float32"][-1])
    return list(struct.unpack(f"<{len(data) // 4}f", data))
