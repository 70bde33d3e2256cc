"""The records rules through the real RecordService, ReferenceResolver and EraseService, on the fakes.

Versions, references, erase and quotas, in seconds: the stores are tests/fakes (records, files, tree),
which tests/contract holds to the Neo4j stores; the embedder is the real model. The same rules are
tested end to end over HTTP in tests/api (test_record_versions.py, test_record_references.py,
test_erase.py, test_quotas.py); these say why each rule holds, fast.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import pytest

from provider import ids
from provider.blobs.directory import DirectoryBlobStore
from provider.embeddings import OnnxEmbedder
from provider.errors import (
    MemoryForbiddenError,
    MemoryInvalidError,
    QuotaExhaustedError,
    RecordNotFoundError,
    UnavailableError,
)
from provider.models import (
    Caller,
    ReadRecord,
    RecordChanges,
    RecordDraft,
    RecordVersion,
    UsageLimits,
    Vectors,
)
from provider.services.records import EraseService, FileQuota, FileService, RecordService, ReferenceResolver
from provider.services.records.erase import UNREACHABLE
from provider.services.records.service import REVISE_ATTEMPTS
from provider.services.tree import AdminService, GrantService, TreeService
from provider.services.tree.memories import MemoryDraft
from provider.services.vectors import VectorModels
from tests.fakes.files import FakeFileStore
from tests.fakes.records import FakeRecordStore, FakeVectorState
from tests.fakes.tree import FakeTree, fake_tree
from tests.fakes.usage import RootOf, UsageLedger

pytestmark = pytest.mark.anyio

MODEL = "all-MiniLM-L6-v2"


def roots_of(stores: FakeTree) -> RootOf:
    """The root of a memory's tree in the fake tree, None when there is no such memory."""

    def root(memory_id: str) -> str | None:
        return stores.data.chain(memory_id)[0].id if memory_id in stores.data.memories else None

    return root


@dataclass
class Rules:
    """The records services over one set of fake stores, and the members who play the parts."""

    tree: TreeService
    grants: GrantService
    store: FakeRecordStore
    files: FileService
    records: RecordService
    erasing: EraseService
    blobs: DirectoryBlobStore
    alice: Caller
    bob: Caller

    async def memory(self, who: Caller, parent: str | None = None) -> str:
        return (await self.tree.create(who, MemoryDraft(name="m", parent_id=parent))).node.id

    async def grant(self, owner: Caller, memory_id: str, to: Caller, *privileges: str) -> None:
        await self.grants.create(owner, memory_id, f"member:{to.member_id}", list(privileges))

    async def remember(self, who: Caller, memory_id: str, text: str, **draft: Any) -> ReadRecord:
        content = [{"type": "text", "text": text}]
        return await self.records.remember(who, memory_id, RecordDraft(content=content, **draft))

    async def revise(self, who: Caller, memory_id: str, record_id: str, **changed: Any) -> ReadRecord:
        if "text" in changed:
            changed["content"] = [{"type": "text", "text": changed.pop("text")}]
        return await self.records.revise(
            who, memory_id, record_id, RecordChanges(frozenset(changed), **changed)
        )

    async def listed(self, who: Caller, memory_id: str, include: str = "active") -> list[str]:
        page, _ = await self.records.page(
            who, memory_id, kind=None, include=include, as_of=None, cursor=None, limit=100
        )
        return [r.version.record_id for r in page]


async def _rules(
    embedder: OnnxEmbedder,
    blob_dir: Path,
    limits: UsageLimits | None = None,
    store_kind: type[FakeRecordStore] = FakeRecordStore,
) -> Rules:
    stores = fake_tree(limits)
    tree = TreeService(stores.memories, "neo4j")
    admin = AdminService(stores.principals, stores.usage)
    alice, bob = [
        Caller(member_id=(await admin.create_member("human", name)).id, member_type="human")
        for name in ("alice", "bob")
    ]
    store = store_kind(roots_of(stores), UsageLedger(limits or UsageLimits()))
    blobs = DirectoryBlobStore(blob_dir)
    files = FileService(FakeFileStore(store), blobs, ["text/*"], FileQuota(10_000, 10, orphan_grace_ms=0))
    vectors = VectorModels(FakeVectorState(), embedder, MODEL, refresh_seconds=60.0)
    references = ReferenceResolver(tree, store)
    return Rules(
        tree=tree,
        grants=GrantService(tree, stores.grants),
        store=store,
        files=files,
        records=RecordService(tree, store, vectors, files, references),
        erasing=EraseService(tree, store, files, references, batch_records=2),
        blobs=blobs,
        alice=alice,
        bob=bob,
    )


@pytest.fixture
async def rules(embedder: OnnxEmbedder, tmp_path: Path) -> Rules:
    return await _rules(embedder, tmp_path)


def texts_of(version: RecordVersion) -> list[str]:
    return [p["text"] for p in version.content]


def texts(read: ReadRecord) -> list[str]:
    return texts_of(read.version)


def shown(rel: str, memory_id: str, record_id: str) -> dict[str, Any]:
    """A reference as a reader who may read its target sees it."""
    return {"rel": rel, "memory_id": memory_id, "record_id": record_id, "available": True}


def hidden(record_id: str) -> dict[str, Any]:
    """A reference as a reader who may not read its target, or to no record at all, sees it."""
    return {"record_id": record_id, "available": False}


# -- versions ----------------------------------------------------------------------------------------


async def test_a_revision_names_the_version_it_supersedes_and_every_version_is_kept(rules: Rules) -> None:
    memory = await rules.memory(rules.alice)
    await rules.grant(rules.alice, memory, rules.bob, "read", "write")
    first = await rules.remember(rules.alice, memory, "renews every March", attributes={"a": 1})
    rid = first.version.record_id
    second = await rules.revise(rules.bob, memory, rid, text="renews every April")
    v2 = second.version
    assert (v2.record_id, v2.version, v2.supersedes, v2.status) == (rid, 2, 1, "active")
    assert v2.attributes == {"a": 1}, "what a revision does not name stays"
    assert v2.writer.id == rules.bob.member_id and v2.written_at >= first.version.written_at
    history = await rules.records.history(rules.alice, memory, rid)
    assert [(h.version.version, h.version.status, texts(h)) for h in history] == [
        (1, "superseded", ["renews every March"]),
        (2, "active", ["renews every April"]),
    ]
    assert history[0].version.invalidated_at == v2.written_at
    now = await rules.records.get(rules.alice, memory, rid, None)
    assert (now.version.version, texts(now)) == (2, ["renews every April"]), "a read sees the current one"
    then = await rules.records.get(rules.alice, memory, rid, ids.iso(first.version.written_at))
    assert (then.version.version, then.version.status, then.version.invalidated_at) == (1, "active", None)


class RivalStore(FakeRecordStore):
    """A record store where another writer's revision lands just before each of ours, `rounds` times."""

    rounds = 0

    async def revise(
        self, version: RecordVersion, words: str, vectors: Vectors | None, created_at: int
    ) -> bool:
        if self.rounds > 0:
            self.rounds -= 1
            stored = await self.read(version.record_id)
            assert stored is not None
            current = stored.latest()
            rival = replace(
                current,
                title=f"rival {current.version + 1}",
                version=current.version + 1,
                supersedes=current.version,
                written_at=ids.now_ms(),
                status="active",
                invalidated_at=None,
                superseded_at=None,
                forgotten_at=None,
            )
            assert await super().revise(rival, "rival", None, created_at)
        return await super().revise(version, words, vectors, created_at)


async def _raced(embedder: OnnxEmbedder, tmp_path: Path) -> tuple[Rules, RivalStore]:
    rules = await _rules(embedder, tmp_path, store_kind=RivalStore)
    assert isinstance(rules.store, RivalStore)
    return rules, rules.store


async def test_a_stale_revision_is_refused_and_the_retry_builds_on_the_version_that_landed(
    embedder: OnnxEmbedder, tmp_path: Path
) -> None:
    rules, rival = await _raced(embedder, tmp_path)
    memory = await rules.memory(rules.alice)
    rid = (await rules.remember(rules.alice, memory, "net thirty", title="Terms")).version.record_id
    rival.rounds = 1
    ours = await rules.revise(rules.alice, memory, rid, text="net sixty")
    assert (ours.version.version, ours.version.supersedes) == (3, 2)
    assert ours.version.title == "rival 2", "the retry kept what the rival wrote and it did not name"
    stored = await rival.read(rid)
    assert stored is not None
    assert [(v.version, v.supersedes, v.status) for v in stored.versions] == [
        (1, None, "superseded"),
        (2, 1, "superseded"),
        (3, 2, "active"),
    ]
    late = replace(stored.versions[0], version=4, supersedes=2, written_at=ids.now_ms())
    assert not await rival.revise(late, "late", None, stored.versions[0].written_at), "2 is no longer current"


async def test_a_revision_that_keeps_losing_the_race_gives_up_unavailable(
    embedder: OnnxEmbedder, tmp_path: Path
) -> None:
    rules, rival = await _raced(embedder, tmp_path)
    memory = await rules.memory(rules.alice)
    rid = (await rules.remember(rules.alice, memory, "contested")).version.record_id
    rival.rounds = REVISE_ATTEMPTS
    with pytest.raises(UnavailableError) as refused:
        await rules.revise(rules.alice, memory, rid, text="never lands")
    assert refused.value.code == "memory_unavailable"
    stored = await rival.read(rid)
    assert stored is not None and len(stored.versions) == 1 + REVISE_ATTEMPTS
    assert all(texts_of(v) == ["contested"] for v in stored.versions), "none of ours was written"


async def test_forget_closes_a_record_and_keeps_its_history(rules: Rules) -> None:
    memory = await rules.memory(rules.alice)
    kept = (await rules.remember(rules.alice, memory, "stays")).version.record_id
    rid = (await rules.remember(rules.alice, memory, "Harlow Mills pays net sixty.")).version.record_id
    forgotten = await rules.records.forget(rules.alice, memory, rid)
    assert (forgotten.version.status, forgotten.version.version) == ("forgotten", 1)
    assert forgotten.version.forgotten_at is not None
    assert (await rules.records.get(rules.alice, memory, rid, None)).version.status == "forgotten"
    assert await rules.listed(rules.alice, memory) == [kept]
    assert await rules.listed(rules.alice, memory, include="all") == [kept, rid]
    with pytest.raises(MemoryInvalidError, match="forgotten record cannot be revised"):
        await rules.revise(rules.alice, memory, rid, text="again")
    assert len(await rules.records.history(rules.alice, memory, rid)) == 1


# -- references --------------------------------------------------------------------------------------


async def test_a_reference_the_reader_cannot_follow_looks_like_one_to_no_record(rules: Rules) -> None:
    secret = await rules.memory(rules.alice)
    target = (await rules.remember(rules.alice, secret, "Quillon Freight", type="entity")).version.record_id
    notes = await rules.memory(rules.bob)
    nowhere = ids.new_id(ids.RECORD)
    refs = [{"rel": "about", "record_id": target}, {"rel": "about", "record_id": nowhere}]
    written = await rules.remember(rules.bob, notes, "x", references=refs)
    assert written.references == [hidden(target), hidden(nowhere)], "no oracle of which ids exist elsewhere"
    rid = written.version.record_id
    assert (await rules.records.get(rules.bob, notes, rid, None)).references == [
        hidden(target),
        hidden(nowhere),
    ]
    stored = await rules.store.read(rid)
    assert stored is not None
    assert [r["memory_id"] for r in stored.latest().references] == [secret, None], "the store knows"
    await rules.grant(rules.bob, notes, rules.alice, "read")
    as_alice = await rules.records.get(rules.alice, notes, rid, None)
    assert as_alice.references == [shown("about", secret, target), hidden(nowhere)]


async def test_a_reviser_cannot_drop_or_restate_a_reference_it_was_not_shown(rules: Rules) -> None:
    shared, secret = await rules.memory(rules.alice), await rules.memory(rules.alice)
    await rules.grant(rules.alice, shared, rules.bob, "read", "write")
    unseen = (await rules.remember(rules.alice, secret, "Ines Varga", type="entity")).version.record_id
    seen = (await rules.remember(rules.alice, shared, "Harlow Mills", type="entity")).version.record_id
    rid = (
        await rules.remember(rules.alice, shared, "x", references=[{"rel": "subject", "record_id": unseen}])
    ).version.record_id
    revised = await rules.revise(
        rules.bob,
        shared,
        rid,
        references=[{"rel": "object", "record_id": seen}, {"rel": "x", "record_id": unseen}],
    )
    assert revised.references == [shown("object", shared, seen), hidden(unseen)], "an echo adds nothing"
    emptied = await rules.revise(rules.bob, shared, rid, references=[])
    assert emptied.references == [hidden(unseen)]
    with pytest.raises(MemoryInvalidError, match="at most one subject"):
        await rules.revise(rules.bob, shared, rid, references=[{"rel": "subject", "record_id": seen}])
    as_alice = await rules.records.get(rules.alice, shared, rid, None)
    assert as_alice.references == [shown("subject", secret, unseen)]


# -- erase -------------------------------------------------------------------------------------------


async def test_erase_removes_the_content_and_says_what_it_cannot_reach(rules: Rules) -> None:
    memory = await rules.memory(rules.alice)
    await rules.grant(rules.alice, memory, rules.bob, "read")
    marker = f"erasable{ids.new_id('x')}"
    target = (await rules.remember(rules.alice, memory, f"Ines told us {marker}.")).version.record_id
    await rules.revise(rules.alice, memory, target, text=f"Ines told us {marker} twice.")
    source = (await rules.remember(rules.alice, memory, "Harlow pays net sixty.")).version.record_id

    def derived(*record_ids: str) -> list[dict[str, Any]]:
        return [{"rel": "derived_from", "record_id": r} for r in record_ids]

    only = (
        await rules.remember(rules.alice, memory, "a summary", references=derived(target))
    ).version.record_id
    also = (
        await rules.remember(rules.alice, memory, "two statements", references=derived(target, source))
    ).version.record_id
    elsewhere = await rules.memory(rules.bob)
    copied = (
        await rules.remember(rules.bob, elsewhere, f"a copy of {marker}", references=derived(target))
    ).version.record_id
    erasure = await rules.erasing.erase(rules.alice, memory, [target])
    assert erasure.erased == [target, only], "bob's copy is erased but not named to alice, who cannot read it"
    assert erasure.unreachable == UNREACHABLE and erasure.unreachable
    for gone in (target, only, copied):
        assert await rules.store.read(gone) is None
    with pytest.raises(RecordNotFoundError):
        await rules.records.get(rules.bob, memory, target, None)
    assert not rules.store.content_naming(marker), "no version anywhere keeps the erased words"
    assert (await rules.records.get(rules.alice, memory, also, None)).version.status == "active"
    assert (await rules.erasing.erase(rules.alice, memory, [target])).erased == [target], (
        "a retry finds it done"
    )


async def test_erase_is_all_or_nothing_and_needs_delete(rules: Rules) -> None:
    memory, other = await rules.memory(rules.alice), await rules.memory(rules.alice)
    rid = (await rules.remember(rules.alice, memory, "stays")).version.record_id
    elsewhere = (await rules.remember(rules.alice, other, "stays too")).version.record_id
    for named in ([ids.new_id(ids.RECORD)], [rid, ids.new_id(ids.RECORD)], [elsewhere], [rid, elsewhere]):
        with pytest.raises(RecordNotFoundError):
            await rules.erasing.erase(rules.alice, memory, named)
    assert await rules.store.locate([rid, elsewhere]) == {rid: memory, elsewhere: other}
    await rules.grant(rules.alice, memory, rules.bob, "read", "write", "create")
    with pytest.raises(MemoryForbiddenError):
        await rules.erasing.erase(rules.bob, memory, [rid])
    assert (await rules.erasing.erase(rules.alice, memory, [rid, rid])).erased == [rid]


async def test_erase_removes_the_bytes_of_a_file_only_the_erased_record_named(rules: Rules) -> None:
    memory = await rules.memory(rules.alice)

    async def upload(data: bytes) -> str:
        staged = rules.files.stage()
        staged.write(data)
        kept = await rules.files.upload(
            rules.alice, name="n.txt", media_type="text/plain", staged=staged, purpose=""
        )
        return kept.id

    lone, shared = await upload(b"only here"), await upload(b"named twice")

    def parts(*file_ids: str) -> list[dict[str, Any]]:
        return [{"type": "file", "file": {"id": f}} for f in file_ids]

    draft = RecordDraft(title="files", content=parts(lone, shared))
    target = (await rules.records.remember(rules.alice, memory, draft)).version.record_id
    await rules.records.remember(rules.alice, memory, RecordDraft(title="keeps one", content=parts(shared)))
    digests = {f: meta.sha256 for f, meta in (await rules.files.files.get_many([lone, shared])).items()}
    await rules.erasing.erase(rules.alice, memory, [target])
    assert not rules.blobs.exists(digests[lone]) and rules.blobs.exists(digests[shared])
    assert set(await rules.files.files.get_many([lone, shared])) == {shared}


# -- quotas ------------------------------------------------------------------------------------------


async def test_a_record_past_the_quota_is_refused_writes_nothing_and_an_erase_makes_room(
    embedder: OnnxEmbedder, tmp_path: Path
) -> None:
    rules = await _rules(embedder, tmp_path, UsageLimits(records=2))
    memory = await rules.memory(rules.alice)
    written = [(await rules.remember(rules.alice, memory, f"note {i}")).version.record_id for i in range(2)]
    with pytest.raises(QuotaExhaustedError) as refused:
        await rules.remember(rules.alice, memory, "one too many")
    assert refused.value.code == "quota_exhausted" and "UHP_QUOTA_RECORDS" in refused.value.message
    assert refused.value.detail == {
        "limit": "records",
        "setting": "UHP_QUOTA_RECORDS",
        "quota": 2,
        "held": 2,
        "adding": 1,
    }
    assert await rules.listed(rules.alice, memory, include="all") == written
    await rules.revise(rules.alice, memory, written[0], text="a revision adds no record")
    await rules.erasing.erase(rules.alice, memory, written[:1])
    assert (await rules.remember(rules.alice, memory, "room again")).version.version == 1


async def test_a_tree_quota_refuses_whoever_writes_into_a_full_tree(
    embedder: OnnxEmbedder, tmp_path: Path
) -> None:
    rules = await _rules(embedder, tmp_path, UsageLimits(root_records=2))
    root = await rules.memory(rules.alice)
    child = await rules.memory(rules.alice, root)
    await rules.grant(rules.alice, root, rules.bob, "read", "write")
    await rules.remember(rules.alice, root, "alice's")
    await rules.remember(rules.bob, child, "bob's")
    with pytest.raises(QuotaExhaustedError) as refused:
        await rules.remember(rules.bob, child, "bob's second")
    assert refused.value.detail is not None and refused.value.detail["root_id"] == root
    own = await rules.memory(rules.bob)
    assert (await rules.remember(rules.bob, own, "another tree has room")).version.version == 1


async def test_erase_follows_the_rule_at_any_depth_and_keeps_what_a_survivor_feeds(rules: Rules) -> None:
    memory = await rules.memory(rules.alice)

    async def note(text: str, *sources: str) -> str:
        references = [{"rel": "derived_from", "record_id": s} for s in sources]
        return (await rules.remember(rules.alice, memory, text, references=references)).version.record_id

    statement, observation = await note("Ines said so."), await note("We saw it.")
    summary = await note("Both agree.", statement, observation)
    drawn = await note("From the summary.", summary)
    chain = [await note("Erased first.")]
    for step in range(8):
        chain.append(await note(f"step {step}", chain[-1]))
    erasure = await rules.erasing.erase(rules.alice, memory, [statement, chain[0]])
    assert set(erasure.erased) == {statement, *chain}
    for kept in (observation, summary, drawn):
        assert await rules.store.read(kept) is not None, "a record with a surviving source stays"
    assert not rules.store.erasures[-1].pending, "every batch was struck off the note"


async def test_an_erase_cut_off_part_way_is_finished_by_the_next_erase(rules: Rules) -> None:
    memory = await rules.memory(rules.alice)
    first = (await rules.remember(rules.alice, memory, "first")).version.record_id
    refs = [{"rel": "derived_from", "record_id": first}]
    copies = [
        (await rules.remember(rules.alice, memory, f"c{i}", references=refs)).version.record_id
        for i in range(3)
    ]
    other = (await rules.remember(rules.alice, memory, "other")).version.record_id
    plan = await rules.erasing.plan(memory, [first])
    note = await rules.store.erase_begin(memory, [first], sorted(plan.doomed), 0)
    await rules.store.erase(note, [copies[0]], 0)  # then the process died
    assert await rules.store.read(first) is not None
    await rules.erasing.erase(rules.alice, memory, [other])
    for gone in (first, *copies, other):
        assert await rules.store.read(gone) is None
    assert (await rules.erasing.erase(rules.alice, memory, [first])).erased == [first], "done, not unknown"
