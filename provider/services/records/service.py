"""Records: remember, read, list, revise, forget and history; nothing is ever overwritten."""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from provider import access, ids
from provider.errors import (
    MemoryInvalidError,
    MemoryUnsupportedError,
    ProviderError,
    RecordNotFoundError,
    UnavailableError,
)
from provider.models import (
    Caller,
    EmbeddedRow,
    ReadRecord,
    RecordChanges,
    RecordDraft,
    RecordVersion,
    StoredRecord,
    Vectors,
    Writer,
)
from provider.services.records import attributes as kinds
from provider.services.records.files import FileService
from provider.services.records.ports import RecordStorage
from provider.services.records.references import ReferenceResolver
from provider.services.records.snapshots import instant_of
from provider.services.tree.memories import TreeService, decode_cursor, encode_cursor
from provider.services.vectors import VectorModels

REVISE_ATTEMPTS = 5


def writer_of(caller: Caller) -> Writer:
    """Stamped from the authenticated caller; whatever a client sends as written_by is ignored."""
    return Writer(kind="member", id=caller.member_id, type=caller.member_type)


def next_version(current: RecordVersion, wanted: RecordVersion, writer: Writer, now: int) -> RecordVersion:
    """`wanted` numbered after `current`, naming it as superseded, written now by `writer`.

    A version that closes the record (status `forgotten`) is forgotten and invalid from now on.
    """
    forgotten = wanted.status == "forgotten"
    return replace(
        wanted,
        version=current.version + 1,
        supersedes=current.version,
        written_at=now,
        invalidated_at=now if forgotten else None,
        superseded_at=None,
        forgotten_at=now if forgotten else None,
        writer=writer,
    )


@dataclass
class PreparedBatch:
    """A validated, embedded batch waiting to be written, and the refusal of each id that failed."""

    rows: list[EmbeddedRow]
    refused: dict[str, ProviderError] = field(default_factory=dict)


class RecordService:
    """Authorize on the memory, validate, embed, store."""

    def __init__(
        self,
        tree: TreeService,
        records: RecordStorage,
        vectors: VectorModels,
        files: FileService,
        references: ReferenceResolver,
    ):
        self.tree = tree
        self.records = records
        self.vectors = vectors
        self.files = files
        self.references = references

    async def remember(
        self, caller: Caller, memory_id: str, draft: RecordDraft, *, record_id: str | None = None
    ) -> ReadRecord:
        """Writes one record as stated; needs write.

        The access check and the validation and embedding run side by side (the model is the slow part):
        nothing is written before the check passes, and its refusal outranks the errors found in the
        store (files, references), so a caller without write learns nothing from them. A `record_id`
        given (derived from an Idempotency-Key) that exists already answers with what is there: the
        first attempt's write.
        """
        checked, prepared = await asyncio.gather(
            self.tree.require(caller, memory_id, "write"),
            self._prepared_one(caller, memory_id, draft, record_id or ids.new_id(ids.RECORD)),
            return_exceptions=True,
        )
        if isinstance(checked, BaseException):
            raise checked
        if isinstance(prepared, BaseException):
            raise prepared
        shown = access.shows_content(checked.privileges)
        version, words, embedding = prepared
        created = await self.records.create(version, words, embedding)
        if created is None:
            raise RecordNotFoundError("The memory was deleted while the record was written.")
        if not created:
            stored, _ = await self._stored(caller, memory_id, version.record_id, "write")
            return await self._as_read(caller, stored.latest(), shown=shown)
        return await self._as_read(caller, version, shown=shown)

    async def _prepared_one(
        self, caller: Caller, memory_id: str, draft: RecordDraft, record_id: str
    ) -> EmbeddedRow:
        version = await self.stated_version(caller, memory_id, draft, record_id)
        return (await self._embedded([version]))[0]

    async def prepare_many(
        self, caller: Caller, memory_id: str, drafts: list[tuple[str, RecordDraft]]
    ) -> PreparedBatch:
        """Checks, validates and embeds a batch without writing it (the importer overlaps the steps)."""
        await self.tree.require(caller, memory_id, "write")
        versions: list[RecordVersion] = []
        refused: dict[str, ProviderError] = {}
        # A replayed batch: what exists already is neither validated nor embedded again.
        present = await self.records.locate([record_id for record_id, _ in drafts])
        known = await self.references.locate_all([draft for _, draft in drafts])
        for record_id, draft in drafts:
            if record_id in present:
                continue
            try:
                versions.append(await self.stated_version(caller, memory_id, draft, record_id, known=known))
            except (MemoryInvalidError, MemoryUnsupportedError) as e:
                refused[record_id] = e
        return PreparedBatch(rows=await self._embedded(versions), refused=refused)

    async def store_prepared(self, prepared: PreparedBatch) -> int:
        """Writes a prepared batch in one transaction; returns how many records were new."""
        return await self.records.create_many(prepared.rows)

    async def remember_stamped(
        self, caller: Caller, memory_id: str, drafts: list[tuple[str, RecordDraft]], writer: Writer
    ) -> list[RecordVersion]:
        """Records the provider writes itself (observe, consolidation): completed, then stamped `writer`."""
        known = await self.references.locate_all([draft for _, draft in drafts])
        versions = [
            replace(
                await self.stated_version(caller, memory_id, draft, record_id, known=known), writer=writer
            )
            for record_id, draft in drafts
        ]
        await self.records.create_many(await self._embedded(versions))
        return versions

    async def _embedded(self, versions: list[RecordVersion]) -> list[EmbeddedRow]:
        """Each version with its words and their vector (None when it has no words), one batch."""
        words = [kinds.words_of(v) for v in versions]
        embeddable = [w for w in words if w.strip()]
        made = iter(await self.vectors.for_writes(embeddable))
        embeddings = [next(made) if w.strip() else None for w in words]
        return [EmbeddedRow(*row) for row in zip(versions, words, embeddings, strict=True)]

    async def stated_version(
        self,
        caller: Caller,
        memory_id: str,
        draft: RecordDraft,
        record_id: str,
        *,
        known: Mapping[str, str] | None = None,
    ) -> RecordVersion:
        """The first version of a record as the writer states it, its files completed, stamped."""
        if draft.follows is not None and not caller.via_server:
            raise MemoryInvalidError("Only the server marks a record as following a source.", param="follows")
        await kinds.checked(draft.type, draft.attributes)
        return RecordVersion(
            record_id=record_id,
            memory_id=memory_id,
            type=draft.type,
            title=draft.title,
            content=await self.files.complete(caller, draft.content),
            attributes=draft.attributes,
            references=await self.references.for_write(draft.references, known),
            version=1,
            status="active",
            supersedes=None,
            valid_from=draft.valid_from,
            valid_to=draft.valid_to,
            written_at=ids.now_ms(),
            invalidated_at=None,
            superseded_at=None,
            forgotten_at=None,
            writer=writer_of(caller),
            follows=draft.follows,
        )

    async def _embedding(self, words: str) -> Vectors | None:
        return await self.vectors.one_for_write(words)

    async def _stored(
        self, caller: Caller, memory_id: str, record_id: str, privilege: str
    ) -> tuple[StoredRecord, bool]:
        """The record once the caller holds `privilege`, and whether its answer may show content."""
        view = await self.tree.require(caller, memory_id, privilege)
        stored = await self.records.read(record_id)
        if stored is None or stored.memory_id != memory_id:
            raise RecordNotFoundError("No record with that id is in this memory.", param="record_id")
        return stored, access.shows_content(view.privileges)

    async def get(self, caller: Caller, memory_id: str, record_id: str, as_of: str | None) -> ReadRecord:
        """One record now, or as it stood at an instant or snapshot."""
        stored, _ = await self._stored(caller, memory_id, record_id, "read")
        version = stored.at(await instant_of(self.tree, self.records, caller, as_of))
        if version is None:
            raise RecordNotFoundError("The record did not exist at that instant.", param="as_of")
        return await self._as_read(caller, version)

    async def history(self, caller: Caller, memory_id: str, record_id: str) -> list[ReadRecord]:
        """Every version, oldest first, each with its writer and time."""
        stored, _ = await self._stored(caller, memory_id, record_id, "read")
        return [await self._as_read(caller, v) for v in stored.versions]

    async def page(
        self,
        caller: Caller,
        memory_id: str,
        *,
        kind: str | None,
        include: str,
        as_of: str | None,
        cursor: str | None,
        limit: int,
    ) -> tuple[list[ReadRecord], str | None]:
        """One page of the memory's records; forgotten ones only with include=all."""
        await self.tree.require(caller, memory_id, "read")
        start = decode_cursor(cursor)
        instant = await instant_of(self.tree, self.records, caller, as_of)
        page = await self.records.page(
            memory_id, kind=kind, as_of=instant, include_all=include == "all", skip=start, limit=limit + 1
        )
        versions = [v.state_at(instant) for v in page[:limit]]
        reads = await self.references.for_reads(caller, versions)
        return reads, encode_cursor(start + limit) if len(page) > limit else None

    async def revise(
        self, caller: Caller, memory_id: str, record_id: str, changes: RecordChanges
    ) -> ReadRecord:
        """A new version built on the current one; retried when another revision lands first."""
        for _ in range(REVISE_ATTEMPTS):
            stored, shown = await self._stored(caller, memory_id, record_id, "write")
            current = stored.latest()
            self._check_revisable(current)
            version = await self.append(
                stored, await self._revised(caller, current, changes), writer_of(caller)
            )
            if version is not None:
                return await self._as_read(caller, version, shown=shown)
        raise UnavailableError("The record is being revised by others; try again.")

    @staticmethod
    def _check_revisable(current: RecordVersion) -> None:
        if current.follows:
            raise MemoryUnsupportedError(_follows_message(current.follows), param="record_id")
        if current.type == "episode":
            raise MemoryInvalidError("Episodes are append-only and cannot be revised.", param="record_id")
        if current.status == "forgotten":
            raise MemoryInvalidError("A forgotten record cannot be revised.", param="record_id")

    async def append(
        self, stored: StoredRecord, wanted: RecordVersion, writer: Writer
    ) -> RecordVersion | None:
        """Writes `wanted` as the record's next version (next_version), embedded unless it is forgotten.

        The one way a record gains a version: revise, consolidation and merge all append through it.
        None when another version landed first: the caller retries or gives up.
        """
        version = next_version(stored.latest(), wanted, writer, ids.now_ms())
        words = kinds.words_of(version)
        vectors = None if version.status == "forgotten" else await self._embedding(words)
        if await self.records.revise(version, words, vectors, stored.versions[0].written_at):
            return version
        return None

    async def _revised(self, caller: Caller, current: RecordVersion, changes: RecordChanges) -> RecordVersion:
        """The current version with the changes asked for, checked; append numbers and stamps it."""
        given = changes.given
        title = changes.title if "title" in given else current.title
        content = current.content
        if "content" in given:
            held = frozenset(p["file"]["id"] for p in current.content if p.get("type") == "file")
            content = await self.files.complete(caller, changes.content, kept=held)
        if not title and all(p.get("type") == "text" and not p["text"].strip() for p in content):
            raise MemoryInvalidError("A record needs content or a title.", param="content")
        timed = "time" in given
        valid_from = changes.valid_from if timed else current.valid_from
        valid_to = changes.valid_to if timed else current.valid_to
        attributes = {
            **(changes.attributes if "attributes" in given else current.attributes),
            **changes.noted,
        }
        await kinds.checked(current.type, attributes)
        references = current.references
        if "references" in given:
            asked = await self.references.for_write(changes.references)
            references = await self.references.keep_unseen(caller, current.references, asked)
        return replace(
            current,
            title=title,
            content=content,
            attributes=attributes,
            references=references,
            status="active",
            valid_from=valid_from,
            valid_to=valid_to,
        )

    async def forget(self, caller: Caller, memory_id: str, record_id: str) -> ReadRecord:
        """Closes the record; its chain stays for history."""
        stored, shown = await self._stored(caller, memory_id, record_id, "write")
        if stored.latest().follows:
            raise MemoryUnsupportedError(_follows_message(stored.latest().follows or {}), param="record_id")
        await self.records.forget(memory_id, record_id, ids.now_ms())
        # Read back under write, not read: a writer without read still gets its (withheld) answer.
        forgotten, _ = await self._stored(caller, memory_id, record_id, "write")
        return await self._as_read(caller, forgotten.latest(), shown=shown)

    def capabilities(self) -> dict[str, object]:
        """What records do here: every version kept, revise and forget native, files kept."""
        return {
            "history": {"content": "versions", "structure": "versions"},
            "revise": "native",
            "forget": "native",
            "content": {"media": list(self.files.media), "bytes": "kept", "describes": []},
        }

    async def answered(
        self, caller: Caller, versions: list[RecordVersion], *, shown: bool
    ) -> list[ReadRecord]:
        """A write's records as its answer carries them: read, or withheld when the caller may not read."""
        if not shown:
            return [ReadRecord(version=v, references=[], withheld=True) for v in versions]
        return await self.references.for_reads(caller, versions)

    async def _as_read(self, caller: Caller, version: RecordVersion, *, shown: bool = True) -> ReadRecord:
        return (await self.answered(caller, [version], shown=shown))[0]


def _follows_message(follows: dict[str, Any]) -> str:
    where = follows.get("name") or follows.get("id") or "its source"
    return (
        f"This record follows the {follows.get('kind', 'source')} '{where}'; change it there, "
        "and the record follows."
    )
