"""A restore cannot be used to learn about, or reach, what the restorer may not read (docs/EXPORT.md).

An archive is the caller's to write: it can name any id. Each test hands a restorer an archive made by
someone who could read more, once as it is (a right guess) and once altered (a wrong guess), and
requires the same answer to both, with nothing of the hidden thing written, confirmed or handed out.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import pytest
from fastapi.testclient import TestClient

from provider import ids
from tests.api.export_support import exported, members, restore, rewritten, upload
from tests.api.records_support import PNG, Lab, Reply, assert_error, ok, tag
from tests.conftest import Admin, Member


@pytest.fixture
def lab(client: TestClient) -> Iterator[Lab]:
    tracker = Lab(client)
    yield tracker
    tracker.cleanup()


def replacing(old: str, new: str) -> Callable[[str, bytes], bytes]:
    def change(name: str, data: bytes) -> bytes:
        return data.replace(old.encode(), new.encode())

    return change


def refusal(reply: Reply) -> dict[str, Any]:
    """The error as a prober would compare two answers: everything but the request's own id."""
    error = assert_error(reply, 409, "uhp_memory.restore_clash")
    return {k: v for k, v in error.items() if k != "request_id"}


def hidden_branch(lab: Lab, alice: Member, bob: Member) -> tuple[str, str, str, bytes]:
    """Alice's root; bob's restricted branch below it holding one secret; bob's export of that branch."""
    root = lab.memory(alice)
    lab.grant(alice, root, bob, "read", "write", "create")
    hidden = lab.memory(bob, parent_id=root, restricted=True)
    secret = f"secret {tag()}"
    lab.remember(bob, hidden, content=secret)
    return root, hidden, secret, exported(lab, bob, hidden)


def test_an_unreadable_memory_answers_one_clash_whatever_the_guess(
    lab: Lab, alice: Member, bob: Member
) -> None:
    root, hidden, secret, archive = hidden_branch(lab, alice, bob)
    wrong = rewritten(archive, replacing(secret, f"secret {tag()}"))
    right_answer = refusal(restore(lab, alice, root, archive))
    wrong_answer = refusal(restore(lab, alice, root, wrong))
    assert right_answer == wrong_answer
    assert right_answer["detail"] == {"kind": "memory", "id": hidden}
    # Bob, who may read and write there, finds his own branch present: a retry stays a no-op for him.
    again = ok(restore(lab, bob, root, archive))
    assert again["present"]["memories"] == 1 and again["present"]["records"] == 1
    assert again["created"]["records"] == 0


def test_an_unreadable_record_answers_one_clash_whatever_the_guess(
    lab: Lab, alice: Member, bob: Member
) -> None:
    root, hidden, secret, archive = hidden_branch(lab, alice, bob)
    # The same record, moved (in the archive) into a memory of alice's own making.
    moved = rewritten(archive, replacing(hidden, ids.new_id(ids.MEMORY)))
    wrong = rewritten(moved, replacing(secret, f"secret {tag()}"))
    right_answer = refusal(restore(lab, alice, root, moved))
    wrong_answer = refusal(restore(lab, alice, root, wrong))
    assert right_answer == wrong_answer
    assert right_answer["detail"]["kind"] == "record"


def test_a_memory_readable_but_not_writable_is_no_place_to_restore_into(
    lab: Lab, alice: Member, admin: Admin
) -> None:
    carol = admin.member()
    root = lab.memory(alice)
    lab.grant(alice, root, carol, "read", "write", "create")
    shut = lab.memory(alice, parent_id=root, restricted=True)
    lab.grant(alice, shut, carol, "read")
    lab.remember(alice, shut, content="Only alice writes here.")
    archive = exported(lab, alice, shut)
    added = rewritten(archive, replacing("Only alice writes here.", "Carol was here."))
    assert refusal(restore(lab, carol, root, archive)) == refusal(restore(lab, carol, root, added))
    assert ok(restore(lab, alice, root, archive))["present"]["memories"] == 1


@dataclass
class Scan:
    """Bob's upload, named by a note in his restricted branch below alice's root, and his export of it."""

    root: str
    hidden: str
    record_id: str
    file_id: str
    data: bytes
    archive: bytes

    def copy(self, *, file_id: str | None = None) -> tuple[str, str, bytes]:
        """The archive with the branch and the note under fresh ids (the file's too when given)."""
        memory_id, record_id = ids.new_id(ids.MEMORY), ids.new_id(ids.RECORD)
        archive = rewritten(self.archive, replacing(self.hidden, memory_id))
        archive = rewritten(archive, replacing(self.record_id, record_id))
        if file_id is not None:
            archive = rewritten(archive, replacing(self.file_id, file_id))
        return memory_id, record_id, archive


def bobs_scan(lab: Lab, alice: Member, bob: Member) -> Scan:
    root = lab.memory(alice)
    lab.grant(alice, root, bob, "read", "write", "create")
    hidden = lab.memory(bob, parent_id=root, restricted=True)
    data = PNG + secrets.token_bytes(2000)
    file_id = upload(lab, bob, data)
    parts = [{"type": "text", "text": "Bob's scan."}, {"type": "file", "file": {"id": file_id}}]
    scan = lab.remember(bob, hidden, type="note", content=parts)
    return Scan(root, hidden, scan["id"], file_id, data, exported(lab, bob, hidden))


def test_a_record_cannot_name_a_file_the_restorer_may_not_read(lab: Lab, alice: Member, bob: Member) -> None:
    scan = bobs_scan(lab, alice, bob)
    assert scan.file_id.encode() in members(scan.archive)["files/000001.jsonl"]
    # Alice's copy: the branch and the note under fresh ids, the file's id and bytes kept.
    memory_id, record_id, copied = scan.copy()
    answer = refusal(restore(lab, alice, scan.root, copied))
    assert answer["detail"] == {"kind": "file", "id": scan.file_id}
    part = lab.client.get(f"{lab.path(memory_id, record_id)}/content/1", headers=alice.headers)
    assert part.status_code == 404 and scan.data not in part.content
    # Bob's own copy may name his file: he uploaded it.
    memory_id, record_id, his = scan.copy()
    created = ok(restore(lab, bob, scan.root, his))["created"]
    assert created["records"] == 1 and created["files"] == 0
    mine = lab.client.get(f"{lab.path(memory_id, record_id)}/content/1", headers=bob.headers)
    assert mine.status_code == 200 and mine.content == scan.data


def test_a_file_must_bring_the_bytes_its_digest_names(lab: Lab, alice: Member, bob: Member) -> None:
    """Stored bytes are shared by digest: knowing a digest must not be enough to claim the bytes."""
    scan = bobs_scan(lab, alice, bob)
    _, _, copied = scan.copy(file_id=ids.new_id(ids.FILE))
    without_bytes = rewritten(copied, lambda name, d: None if name.startswith("blobs/") else d)
    other_bytes = rewritten(copied, lambda name, d: PNG + b"guess" if name.startswith("blobs/") else d)
    for probe in (without_bytes, other_bytes):
        error = assert_error(restore(lab, alice, scan.root, probe), 422, "memory_invalid")
        assert error["param"] == "archive"
