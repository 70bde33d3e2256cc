"""The file port on both of its implementations: tests/fakes/files.py against Neo4jFileStore.

The fast tier's erase rules remove file bytes through the fake; these scenarios hold it to the real
store: the owner's quota, naming and the orphan sweep's claim, "no version names it", shared digests,
and the sweep notes an erase leaves. Times are small unique instants, so the sweeps' and orphans'
reads of the whole database ("made at or before") find this test's notes and files first.
"""

from __future__ import annotations

import random
from collections.abc import AsyncIterator
from dataclasses import replace

import pytest

from provider.models import FileAdmission, FileMeta, RecordVersion
from tests.contract.records_sides import Side, first_version, new_id, sides

pytestmark = pytest.mark.anyio


@pytest.fixture(params=["fake", "neo4j"])
async def side(request: pytest.FixtureRequest) -> AsyncIterator[Side]:
    async with sides(request.param, lambda: request.getfixturevalue("neo4j_target")) as build:
        yield await build()


@pytest.fixture
def early() -> int:
    """An instant long before any real upload or erase, unique enough for one test."""
    return random.randrange(1_000, 1_000_000_000)


async def upload(
    side: Side, owner: str, now: int, size: int = 10, sha256: str | None = None, *, max_files: int = 5
) -> FileMeta | None:
    file = FileMeta(new_id("hfil"), owner, "n.txt", "text/plain", size, sha256 or fresh_digest())
    admitted = await side.files.create(file, purpose="user_data", now=now, max_files=max_files, max_bytes=100)
    if admitted.stored is None:
        return None
    side.made_files.append(file.id)
    assert (admitted.stored.id, admitted.stored.bytes, admitted.stored.created_at_ms) == (file.id, size, now)
    return file


def fresh_digest() -> str:
    """A SHA-256-shaped digest no other test uses."""
    return new_id("x")[2:] * 2


def naming(side: Side, memory_id: str, file_ids: list[str], at: int) -> RecordVersion:
    """A note whose content is file parts naming these files."""
    parts = [{"type": "file", "file": {"id": f}} for f in file_ids]
    return replace(first_version(side, memory_id, at=at, kind="note"), content=parts)


async def test_an_upload_is_kept_while_its_owner_has_room(side: Side, early: int) -> None:
    owner = "member:" + new_id("hmbr")
    kept = [await upload(side, owner, early, size=40) for _ in range(2)]
    assert all(kept)
    over_bytes = FileMeta(new_id("hfil"), owner, "n", "text/plain", 30, fresh_digest())
    refused: FileAdmission = await side.files.create(
        over_bytes, purpose="p", now=early, max_files=5, max_bytes=100
    )
    assert (refused.held_files, refused.held_bytes, refused.stored) == (2, 80, None)
    assert await upload(side, owner, early, size=1, max_files=2) is None, "the file count is full"
    assert await upload(side, "member:" + new_id("hmbr"), early, size=40) is not None, "another owner's room"
    found = await side.files.get_many([f.id for f in kept if f] + [over_bytes.id])
    assert found == {f.id: f for f in kept if f}


async def test_a_named_file_is_no_orphan_and_a_claimed_one_cannot_be_named(side: Side, early: int) -> None:
    owner = "member:" + new_id("hmbr")
    named, orphan, rescued = [await upload(side, owner, early + i) for i in range(3)]
    assert named and orphan and rescued
    assert await side.files.name([named.id], early + 10) == []
    mine = {named.id, orphan.id, rescued.id}
    assert [f for f in await side.files.orphans(early + 5, 1000) if f in mine] == [orphan.id, rescued.id]
    assert orphan.id not in await side.files.orphans(early, 1000), "uploaded after that instant"
    assert sorted(await side.files.claim([named.id, orphan.id, rescued.id], early + 20)) == sorted(
        [orphan.id, rescued.id]
    )
    assert await side.files.name([orphan.id], early + 30) == [orphan.id], "being reclaimed: refused"
    assert await side.files.name([named.id], early + 30) == [], "the claim let a named file go"
    await side.files.release([rescued.id], early + 40)
    assert [f for f in await side.files.orphans(early + 50, 1000) if f in mine] == [orphan.id]
    assert await side.files.name([rescued.id], early + 60) == []


async def test_a_file_is_unnamed_once_no_version_names_it_and_its_bytes_go_with_the_last_holder(
    side: Side, early: int
) -> None:
    owner = "member:" + new_id("hmbr")
    digest = fresh_digest()
    lone, twin, other_twin = [await upload(side, owner, early, sha256=d) for d in (None, digest, digest)]
    assert lone and twin and other_twin
    memory = await side.memory()
    record = naming(side, memory, [lone.id, twin.id], early)
    assert await side.records.create(record, "", None) is True
    both = sorted([lone.id, twin.id])
    assert await side.files.unnamed(both) == {}
    await side.records.erase(
        await side.records.erase_begin(memory, [record.record_id], [record.record_id], early),
        [record.record_id],
        early,
    )
    assert await side.files.unnamed(both) == {lone.id: lone.sha256, twin.id: digest}
    assert await side.files.unused_digests(sorted({lone.sha256, digest}), [lone.id, twin.id]) == [lone.sha256]
    assert await side.files.unused_digests([digest], [twin.id, other_twin.id]) == [digest]
    await side.files.delete([lone.id])
    assert await side.files.get_many([lone.id]) == {}


async def test_an_erase_leaves_a_note_of_the_files_its_versions_named(side: Side, early: int) -> None:
    owner = "member:" + new_id("hmbr")
    file = await upload(side, owner, early)
    assert file
    memory = await side.memory()
    plain = replace(naming(side, memory, [], early), content=[{"type": "text", "text": "no file here"}])
    with_file = naming(side, memory, [file.id], early)
    for version in (plain, with_file):
        assert await side.records.create(version, "", None) is True
    await side.records.erase(
        await side.records.erase_begin(memory, [plain.record_id], [plain.record_id], early),
        [plain.record_id],
        early,
    )
    notes = [n for n in await side.files.sweeps(early, 1000) if file.id in n.file_ids]
    assert notes == [], "an erase of versions that named no file leaves no note"
    await side.records.erase(
        await side.records.erase_begin(memory, [with_file.record_id], [with_file.record_id], early),
        [with_file.record_id],
        early,
    )
    notes = [n for n in await side.files.sweeps(early, 1000) if file.id in n.file_ids]
    assert [n.file_ids for n in notes] == [[file.id]]
    assert [n for n in await side.files.sweeps(early - 1, 1000) if file.id in n.file_ids] == []
    await side.files.sweep_done(notes[0].id)
    assert [n for n in await side.files.sweeps(early, 1000) if file.id in n.file_ids] == []
