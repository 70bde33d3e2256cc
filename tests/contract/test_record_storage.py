"""The records port on both of its implementations: each scenario runs on the fake and on Neo4j.

The fast tier tests the records rules on tests/fakes/records.py; these scenarios pin that fake to what
Neo4jRecordStore and its Cypher do, so the two cannot drift apart. Each test makes its own memories
and records (unique ids) and the Neo4j side deletes its memories afterwards.
"""

from __future__ import annotations

import itertools
from collections.abc import AsyncIterator
from dataclasses import replace
from typing import Any

import pytest

from provider.errors import QuotaExhaustedError
from provider.models import EmbeddedRow, RecordVersion, Snapshot, UsageLimits
from tests.contract.records_sides import T0, Side, SideMaker, first_version, new_id, sides

pytestmark = pytest.mark.anyio


@pytest.fixture(params=["fake", "neo4j"])
async def open_side(request: pytest.FixtureRequest) -> AsyncIterator[SideMaker]:
    """Builds the side this run is about, with the quotas a test asks for."""
    async with sides(request.param, lambda: request.getfixturevalue("neo4j_target")) as build:
        yield build


@pytest.fixture
async def side(open_side: SideMaker) -> Side:
    return await open_side()


def revision(current: RecordVersion, *, at: int, text: str) -> RecordVersion:
    """The next version as RecordService builds it: on the current one, naming it as superseded."""
    return replace(
        current,
        content=[{"type": "text", "text": text}],
        version=current.version + 1,
        status="active",
        supersedes=current.version,
        written_at=at,
        invalidated_at=None,
        superseded_at=None,
        forgotten_at=None,
    )


def derived(references: list[str], rel: str = "derived_from") -> list[dict[str, Any]]:
    return [{"rel": rel, "memory_id": None, "record_id": r} for r in references]


async def remember(side: Side, version: RecordVersion) -> RecordVersion:
    assert await side.records.create(version, version.content[0]["text"], None) is True
    return version


# -- create and read ---------------------------------------------------------------------------------


async def test_a_created_record_reads_back_as_written(side: Side) -> None:
    memory = await side.memory()
    written = first_version(side, memory, at=T0, references=derived(["hrec_nowhere"], "about"))
    assert await side.records.create(written, "words", {"embedding": [0.1, 0.2]}) is True
    stored = await side.records.read(written.record_id)
    assert stored is not None
    assert (stored.id, stored.memory_id, stored.current) == (written.record_id, memory, 1)
    assert stored.versions == [written]
    assert stored.latest() == written
    assert await side.records.read(new_id("hrec")) is None


async def test_an_id_that_exists_is_left_as_it_is_in_any_memory(side: Side) -> None:
    memory, other = await side.memory(), await side.memory()
    first = await remember(side, first_version(side, memory, at=T0, text="first words"))
    again = first_version(side, other, at=T0 + 5, text="other words", record_id=first.record_id)
    assert await side.records.create(again, "other words", None) is False
    stored = await side.records.read(first.record_id)
    assert stored is not None and stored.memory_id == memory and stored.versions == [first]


async def test_a_record_in_a_memory_that_does_not_exist_is_not_written(side: Side) -> None:
    lost = first_version(side, new_id("hmem"), at=T0)
    assert await side.records.create(lost, "words", None) is None
    assert await side.records.read(lost.record_id) is None
    assert await side.records.create_many([EmbeddedRow(lost, "words", None)]) == 0


async def test_a_batch_writes_what_is_new_and_counts_it(side: Side) -> None:
    memory = await side.memory()
    kept = await remember(side, first_version(side, memory, at=T0, text="already here"))
    batch = [first_version(side, memory, at=T0 + i, text=f"batch {i}") for i in range(1, 4)]
    clash = first_version(side, memory, at=T0 + 9, text="a replay", record_id=kept.record_id)
    rows = [EmbeddedRow(v, str(v.content[0]["text"]), None) for v in [*batch, clash]]
    assert await side.records.create_many(rows) == 3
    assert await side.records.create_many(rows) == 0
    located = await side.records.locate([v.record_id for v in batch])
    assert located == {v.record_id: memory for v in batch}
    stored = await side.records.read(kept.record_id)
    assert stored is not None and stored.versions == [kept]


async def test_locate_names_the_memory_of_each_record_that_exists(side: Side) -> None:
    a, b = await side.memory(), await side.memory()
    in_a = await remember(side, first_version(side, a, at=T0))
    in_b = await remember(side, first_version(side, b, at=T0))
    unknown = new_id("hrec")
    assert await side.records.locate([in_a.record_id, unknown, in_b.record_id]) == {
        in_a.record_id: a,
        in_b.record_id: b,
    }
    assert await side.records.locate([]) == {}


# -- revise and forget -------------------------------------------------------------------------------


async def test_a_revision_supersedes_the_version_it_names(side: Side) -> None:
    memory = await side.memory()
    first = await remember(side, first_version(side, memory, at=T0, text="every March"))
    second = revision(first, at=T0 + 100, text="every April")
    assert await side.records.revise(second, "every April", None, T0) is True
    stored = await side.records.read(first.record_id)
    assert stored is not None and stored.current == 2
    closed = replace(first, status="superseded", superseded_at=T0 + 100, invalidated_at=T0 + 100)
    assert stored.versions == [closed, second]
    assert stored.at(T0 + 50) == replace(closed, status="active", invalidated_at=None), "as it stood then"
    assert stored.at(T0 + 100) == second


async def test_a_stale_revision_is_refused_and_changes_nothing(side: Side) -> None:
    memory = await side.memory()
    first = await remember(side, first_version(side, memory, at=T0))
    second = revision(first, at=T0 + 100, text="the winner")
    assert await side.records.revise(second, "the winner", None, T0) is True
    late = revision(first, at=T0 + 200, text="built on version 1")  # names 1, the record is at 2
    before = await side.records.read(first.record_id)
    assert await side.records.revise(late, "built on version 1", None, T0) is False
    assert await side.records.read(first.record_id) == before
    elsewhere = replace(revision(second, at=T0 + 300, text="x"), memory_id=await side.memory())
    assert await side.records.revise(elsewhere, "x", None, T0) is False, "the record is not in that memory"
    assert await side.records.read(first.record_id) == before


async def test_forget_closes_the_current_version_once(side: Side) -> None:
    memory = await side.memory()
    first = await remember(side, first_version(side, memory, at=T0))
    await side.records.forget(await side.memory(), first.record_id, T0 + 50)  # another memory: nothing
    unchanged = await side.records.read(first.record_id)
    assert unchanged is not None and unchanged.versions == [first]
    await side.records.forget(memory, first.record_id, T0 + 100)
    await side.records.forget(memory, first.record_id, T0 + 200)
    stored = await side.records.read(first.record_id)
    assert stored is not None and stored.current == 1
    gone = replace(first, status="forgotten", forgotten_at=T0 + 100, invalidated_at=T0 + 100)
    assert stored.versions == [gone]


async def test_a_forgotten_version_stays_forgotten_when_a_revision_lands_on_it(side: Side) -> None:
    memory = await side.memory()
    first = await remember(side, first_version(side, memory, at=T0))
    await side.records.forget(memory, first.record_id, T0 + 100)
    back = revision(first, at=T0 + 200, text="brought back")  # as a consolidation revert does
    assert await side.records.revise(back, "brought back", None, T0) is True
    stored = await side.records.read(first.record_id)
    assert stored is not None
    old = replace(
        first, status="forgotten", forgotten_at=T0 + 100, invalidated_at=T0 + 100, superseded_at=T0 + 200
    )
    assert stored.versions == [old, back]
    listed = await side.records.page(memory, kind=None, as_of=None, include_all=False, skip=0, limit=10)
    assert listed == [back]


# -- pages -------------------------------------------------------------------------------------------


async def test_a_page_holds_the_live_version_of_each_record_in_creation_order(side: Side) -> None:
    memory = await side.memory()
    ids = sorted(new_id("hrec") for _ in range(2))
    a = await remember(side, first_version(side, memory, at=T0 + 10, record_id=ids[1], text="a"))
    b = await remember(side, first_version(side, memory, at=T0 + 10, record_id=ids[0], text="b", kind="note"))
    c = await remember(side, first_version(side, memory, at=T0, text="c"))
    a2 = revision(a, at=T0 + 100, text="a, revised")
    assert await side.records.revise(a2, "a, revised", None, a.written_at)
    await side.records.forget(memory, c.record_id, T0 + 200)

    async def page(**ask: Any) -> list[tuple[str, int, str]]:
        asked: dict[str, Any] = {"kind": None, "as_of": None, "include_all": False, "skip": 0, "limit": 10}
        found = await side.records.page(memory, **(asked | ask))
        return [(v.record_id, v.version, v.status) for v in found]

    assert await page() == [(b.record_id, 1, "active"), (a.record_id, 2, "active")]
    everything = [(c.record_id, 1, "forgotten"), (b.record_id, 1, "active"), (a.record_id, 2, "active")]
    assert await page(include_all=True) == everything
    assert await page(include_all=True, skip=1, limit=1) == [(b.record_id, 1, "active")]
    assert await page(as_of=T0 + 50) == [
        (c.record_id, 1, "forgotten"),
        (b.record_id, 1, "active"),
        (a.record_id, 1, "superseded"),
    ], "the versions live then, as stored now; the service puts them as they stood"
    assert await page(as_of=T0 + 5) == [(c.record_id, 1, "forgotten")]
    assert await page(as_of=T0 - 1) == []
    assert await page(kind="note", include_all=True) == [(b.record_id, 1, "active")]
    assert (
        await side.records.page(new_id("hmem"), kind=None, as_of=None, include_all=True, skip=0, limit=5)
        == []
    )


async def test_the_words_to_embed_are_those_of_active_records_by_id(side: Side) -> None:
    memory = await side.memory()
    made = [await remember(side, first_version(side, memory, at=T0 + i, text=f"words {i}")) for i in range(3)]
    await side.records.forget(memory, made[1].record_id, T0 + 10)
    active = sorted((made[0], made[2]), key=lambda v: v.record_id)
    page = await side.records.embedding_page(memory, "", 10)
    assert [(w.record_id, w.words) for w in page] == [(v.record_id, v.content[0]["text"]) for v in active]
    assert [w.record_id for w in await side.records.embedding_page(memory, "", 1)] == [active[0].record_id]
    after = await side.records.embedding_page(memory, active[0].record_id, 10)
    assert [w.record_id for w in after] == [active[1].record_id]
    await side.records.set_embeddings("embedding", {v.record_id: [0.5, 0.5] for v in active})
    again = await side.records.embedding_page(memory, "", 10)
    assert [(w.record_id, w.words) for w in again] == [(w.record_id, w.words) for w in page]


# -- erase -------------------------------------------------------------------------------------------


async def test_the_erase_reach_walks_derived_from_to_any_depth_with_every_source(side: Side) -> None:
    """The store reports what it reached and each derived record's sources; the service judges."""
    memory, elsewhere = await side.memory(), await side.memory()
    target = await remember(side, first_version(side, memory, at=T0))
    source = await remember(side, first_version(side, memory, at=T0 + 1))
    chain = [target]
    for step in range(7):
        chain.append(
            await remember(
                side, first_version(side, memory, at=T0 + 2 + step, references=derived([chain[-1].record_id]))
            )
        )
    both = derived([target.record_id, source.record_id])
    also = await remember(side, first_version(side, memory, at=T0 + 20, references=both))
    cited = [{"rel": "about", "memory_id": memory, "record_id": target.record_id}]
    about = await remember(side, first_version(side, memory, at=T0 + 21, references=cited))
    copied = await remember(
        side, first_version(side, elsewhere, at=T0 + 22, references=derived([target.record_id]))
    )
    unknown = new_id("hrec")
    reach = await side.records.erase_reach(memory, sorted([target.record_id, unknown]))
    assert reach.missing == [unknown]
    assert reach.memory_of == {
        **{r.record_id: memory for r in chain},
        also.record_id: memory,
        copied.record_id: elsewhere,
    }
    assert about.record_id not in reach.memory_of, "only derived_from is followed"
    assert reach.sources == {
        **{later.record_id: frozenset({earlier.record_id}) for earlier, later in itertools.pairwise(chain)},
        also.record_id: frozenset({target.record_id, source.record_id}),
        copied.record_id: frozenset({target.record_id}),
    }
    elsewhere_reach = await side.records.erase_reach(memory, [copied.record_id])
    assert elsewhere_reach.missing == [copied.record_id] and elsewhere_reach.memory_of == {}


async def test_the_erase_reach_ends_on_a_cycle(side: Side) -> None:
    memory = await side.memory()
    first_id, second_id = new_id("hrec"), new_id("hrec")
    await remember(
        side, first_version(side, memory, at=T0, record_id=first_id, references=derived([second_id]))
    )
    await remember(
        side, first_version(side, memory, at=T0 + 1, record_id=second_id, references=derived([first_id]))
    )
    reach = await side.records.erase_reach(memory, [first_id])
    assert reach.memory_of == {first_id: memory, second_id: memory}
    assert reach.sources == {first_id: frozenset({second_id}), second_id: frozenset({first_id})}


async def test_a_reference_becomes_an_edge_when_its_target_arrives(side: Side) -> None:
    memory = await side.memory()
    later_id, batch_later, batch_early = new_id("hrec"), new_id("hrec"), new_id("hrec")
    early = await remember(side, first_version(side, memory, at=T0, references=derived([later_id])))
    later = await remember(side, first_version(side, memory, at=T0 + 1, record_id=later_id))
    reach = await side.records.erase_reach(memory, [later.record_id])
    assert reach.sources == {early.record_id: frozenset({later.record_id})}, "the arrival drew the edge"
    again = revision(early, at=T0 + 2, text="restated")
    assert await side.records.revise(again, "restated", None, T0)
    reach = await side.records.erase_reach(memory, [later.record_id])
    assert set(reach.memory_of) == {later.record_id, early.record_id}, "a revision draws the edges anew"
    dropped = replace(revision(again, at=T0 + 3, text="alone"), references=[])
    assert await side.records.revise(dropped, "alone", None, T0)
    assert (await side.records.erase_reach(memory, [later.record_id])).sources == {}
    imported = [
        first_version(side, memory, at=T0 + 4, record_id=batch_early, references=derived([batch_later])),
        first_version(side, memory, at=T0 + 5, record_id=batch_later),
    ]
    assert await side.records.create_many([EmbeddedRow(v, "w", None) for v in imported]) == 2
    reach = await side.records.erase_reach(memory, [batch_later])
    assert reach.sources == {batch_early: frozenset({batch_later})}, "an import in any order"


async def test_an_erase_removes_its_batches_and_keeps_its_note_until_done(side: Side) -> None:
    memory = await side.memory()
    target = await remember(side, first_version(side, memory, at=T0))
    source = await remember(side, first_version(side, memory, at=T0 + 1))
    derived_one = await remember(
        side, first_version(side, memory, at=T0 + 2, references=derived([target.record_id]))
    )
    also = await remember(
        side, first_version(side, memory, at=T0 + 3, references=derived([target.record_id, source.record_id]))
    )
    revised = revision(target, at=T0 + 10, text="twice")
    assert await side.records.revise(revised, "twice", None, T0)
    doomed = sorted([target.record_id, derived_one.record_id])
    erasure = await side.records.erase_begin(memory, [target.record_id], doomed, T0 + 20)
    assert [(u.id, u.pending) for u in await side.records.unfinished_erasures(memory)] == [(erasure, doomed)]
    await side.records.erase(erasure, [derived_one.record_id], T0 + 21)
    assert [u.pending for u in await side.records.unfinished_erasures(memory)] == [[target.record_id]]
    assert await side.records.read(derived_one.record_id) is None
    await side.records.erase(erasure, [target.record_id], T0 + 22)
    assert await side.records.unfinished_erasures(memory) == []
    assert await side.records.read(target.record_id) is None
    assert await side.records.locate([target.record_id, source.record_id]) == {source.record_id: memory}
    listed = await side.records.page(memory, kind=None, as_of=T0 + 5, include_all=True, skip=0, limit=10)
    assert [v.record_id for v in listed] == [source.record_id, also.record_id]
    retry = await side.records.erase_reach(memory, [target.record_id])
    assert (retry.missing, retry.memory_of) == ([], {}), "a retry finds it done, not unknown"
    other = await side.memory()
    assert (await side.records.erase_reach(other, [target.record_id])).missing == [target.record_id]
    reach = await side.records.erase_reach(memory, [source.record_id])
    assert reach.sources == {also.record_id: frozenset({source.record_id})}, "the erased source's edge went"
    restored = first_version(side, memory, at=T0 + 30, record_id=target.record_id)
    assert await side.records.create(restored, "back", None) is True
    reach = await side.records.erase_reach(memory, [target.record_id])
    assert reach.sources == {also.record_id: frozenset({target.record_id, source.record_id})}, (
        "a referrer whose target was erased has its edge again when the target comes back"
    )


# -- snapshots ---------------------------------------------------------------------------------------


async def test_snapshots_are_kept_per_memory_oldest_first(side: Side) -> None:
    memory, other = await side.memory(), await side.memory()
    ids = sorted(new_id("hsnp") for _ in range(3))
    late = Snapshot(ids[0], memory, "late", "", T0 + 100)
    tied = [Snapshot(ids[2], memory, "b", "second of the tie", T0), Snapshot(ids[1], memory, "a", "", T0)]
    for snapshot in [late, *tied]:
        assert await side.records.create_snapshot(snapshot) == snapshot
    assert await side.records.create_snapshot(Snapshot(new_id("hsnp"), other, "x", "", T0)) is not None
    assert await side.records.snapshots(memory) == [tied[1], tied[0], late]
    assert await side.records.snapshot(late.id) == late
    assert await side.records.snapshot(new_id("hsnp")) is None
    nowhere = Snapshot(new_id("hsnp"), new_id("hmem"), "lost", "", T0)
    assert await side.records.create_snapshot(nowhere) is None
    assert await side.records.snapshot(nowhere.id) is None


# -- quotas ------------------------------------------------------------------------------------------


def quota_refusal(error: pytest.ExceptionInfo[QuotaExhaustedError]) -> tuple[str, str, dict[str, Any] | None]:
    return error.value.code, error.value.message, error.value.detail


async def test_a_record_past_the_records_quota_is_refused_and_nothing_is_kept(open_side: SideMaker) -> None:
    side = await open_side(UsageLimits(records=2))
    memory = await side.memory()
    for i in range(2):
        await remember(side, first_version(side, memory, at=T0 + i, text="x" * 10))
    held = await side.usage()
    assert held[0] == 2
    third = first_version(side, memory, at=T0 + 5)
    with pytest.raises(QuotaExhaustedError) as refused:
        await side.records.create(third, "words", None)
    code, message, detail = quota_refusal(refused)
    assert code == "quota_exhausted" and "UHP_QUOTA_RECORDS" in message
    assert detail == {"limit": "records", "setting": "UHP_QUOTA_RECORDS", "quota": 2, "held": 2, "adding": 1}
    assert await side.records.read(third.record_id) is None
    assert await side.usage() == held
    with pytest.raises(QuotaExhaustedError):
        await side.records.create_many([EmbeddedRow(third, "words", None)])
    assert await side.records.read(third.record_id) is None


async def test_a_revision_past_the_bytes_quota_is_refused_and_the_record_stays(open_side: SideMaker) -> None:
    side = await open_side(UsageLimits(content_bytes=400))
    memory = await side.memory()
    first = await remember(side, first_version(side, memory, at=T0, text="y" * 100))
    held = await side.usage()
    assert held == (
        1,
        len('[{"type": "text", "text": ""}]') + 100 + len('{"account": "harlow", "tier": {"level": 2}}'),
    )
    big = revision(first, at=T0 + 10, text="z" * 300)
    with pytest.raises(QuotaExhaustedError) as refused:
        await side.records.revise(big, "z", None, T0)
    assert refused.value.detail is not None and refused.value.detail["limit"] == "content_bytes"
    stored = await side.records.read(first.record_id)
    assert stored is not None and stored.versions == [first]
    assert await side.usage() == held
    small = revision(first, at=T0 + 20, text="z" * 10)
    assert await side.records.revise(small, "z", None, T0) is True
    assert (await side.usage())[1] > held[1], "a version's bytes count, its record does not again"
    assert (await side.usage())[0] == 1


async def test_a_tree_quota_counts_every_writer_in_the_tree(open_side: SideMaker) -> None:
    side = await open_side(UsageLimits(root_records=2))
    root = await side.memory()
    child = await side.memory(root)
    await remember(side, first_version(side, root, at=T0))
    other_writer = replace(side, member=new_id("hmbr"))
    await remember(other_writer, first_version(other_writer, child, at=T0 + 1))
    with pytest.raises(QuotaExhaustedError) as refused:
        await side.records.create(first_version(other_writer, child, at=T0 + 2), "words", None)
    detail = refused.value.detail
    assert detail is not None and (detail["limit"], detail["root_id"], detail["held"]) == (
        "root_records",
        root,
        2,
    )
    assert root in refused.value.message
    fresh_root = await side.memory()
    assert await side.records.create(first_version(side, fresh_root, at=T0 + 3), "words", None) is True


async def test_an_erase_gives_back_what_its_versions_were_charged(open_side: SideMaker) -> None:
    side = await open_side(UsageLimits(records=2))
    memory = await side.memory()
    first = await remember(side, first_version(side, memory, at=T0))
    assert await side.records.revise(revision(first, at=T0 + 1, text="again"), "again", None, T0)
    await remember(side, first_version(side, memory, at=T0 + 2))
    full = await side.usage()
    with pytest.raises(QuotaExhaustedError):
        await side.records.create(first_version(side, memory, at=T0 + 3), "words", None)
    await side.records.erase(
        await side.records.erase_begin(memory, [first.record_id], [first.record_id], T0 + 4),
        [first.record_id],
        T0 + 4,
    )
    after = await side.usage()
    assert after[0] == 1 and 0 < after[1] < full[1]
    assert await side.records.create(first_version(side, memory, at=T0 + 5), "words", None) is True
