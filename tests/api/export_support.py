"""Export/restore test helpers: a tree worth exporting, and what a reader sees of it (docs/EXPORT.md)."""

from __future__ import annotations

import hashlib
import io
import json
import secrets
import tarfile
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

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


def rewritten(archive: bytes, change: Callable[[str, bytes], bytes | None]) -> bytes:
    """The archive with each member's bytes passed through `change` (None leaves it out), its
    manifest's checksums made anew."""
    with tarfile.open(fileobj=io.BytesIO(archive), mode="r") as tar:
        found = [(m.name, tar.extractfile(m).read()) for m in tar.getmembers() if m.isfile()]  # type: ignore[union-attr]
    passed = [(name, data if name == "manifest.json" else change(name, data)) for name, data in found]
    changed = [(name, data) for name, data in passed if data is not None]
    out = io.BytesIO()
    with tarfile.open(fileobj=out, mode="w", format=tarfile.PAX_FORMAT) as tar:
        for name, data in changed:
            if name == "manifest.json":
                manifest = json.loads(data)
                manifest["members"] = {
                    n: {"sha256": hashlib.sha256(d).hexdigest(), "bytes": len(d)}
                    for n, d in changed
                    if n != "manifest.json"
                }
                data = json.dumps(manifest).encode()
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    return out.getvalue()
