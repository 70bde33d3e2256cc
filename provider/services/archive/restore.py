"""Restore: an archive written into this deployment below a memory, ids, versions, times and writers kept.

Two passes over the archive on disk: the first checks every member against the manifest (nothing is
written from an archive that does not add up), the second writes, in the archive's order. Whatever
exists already is compared, not rewritten: the same thing is skipped (so a retry, or a run resumed
after a crash, writes nothing twice) and a different thing with the same id is a clash (409).

Something that exists counts as the same only when the caller may read it (a memory: hold there what
the restore needs on its target; a file: its own upload, or named by a record it may read). Anything
else with the archive's id is the same clash whatever it holds, so an archive cannot be used to
confirm a guess at content the caller may not read, nor to write into a memory it may not write.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import tarfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from provider import access, ids
from provider.blobs import CHUNK_BYTES, BlobStore
from provider.errors import RestoreClashError
from provider.models import ArchiveCounts, Caller, RestoreSummary
from provider.services.archive import signature
from provider.services.archive.format import (
    FORMAT_MEMBER,
    MANIFEST_MEMBER,
    Manifest,
    invalid,
    manifest_of,
)
from provider.services.archive.ports import ArchiveStorage
from provider.services.archive.writing import RecordWriter
from provider.services.tree.memories import TreeService
from provider.services.vectors import VectorModels

Progress = Callable[[ArchiveCounts], None]


def _members(path: Path) -> Iterator[tuple[tarfile.TarInfo, IO[bytes] | None]]:
    """The archive's members in order, each readable once as the tar is read front to back."""
    try:
        with tarfile.open(path, mode="r|") as archive:
            for member in archive:
                yield member, archive.extractfile(member) if member.isfile() else None
    except tarfile.TarError as e:
        raise invalid(f"The archive is not a readable tar: {e}.") from e


def verified(path: Path) -> Manifest:
    """The manifest, once every member's bytes match the sha256 it states and none is missing."""
    seen: dict[str, dict[str, Any]] = {}
    manifest: Manifest | None = None
    for member, data in _members(path):
        if data is None:
            continue
        if member.name == MANIFEST_MEMBER:
            manifest = manifest_of(data.read(64 * 1024 * 1024))
            continue
        digest = hashlib.sha256()
        for piece in iter(lambda d=data: d.read(CHUNK_BYTES), b""):  # type: ignore[misc]
            digest.update(piece)
        if member.name.startswith("blobs/") and member.name != f"blobs/{digest.hexdigest()}":
            # A blob is named by its sha256: bytes under another name could claim stored bytes it lacks.
            raise invalid(f"The bytes at {member.name} do not have that sha256.")
        seen[member.name] = {"sha256": digest.hexdigest(), "bytes": member.size}
    if manifest is None:
        raise invalid("The archive has no manifest.json.")
    if seen != manifest.members:
        wrong = sorted(
            set(seen) ^ set(manifest.members) | {n for n in seen if seen[n] != manifest.members.get(n)}
        )
        raise invalid(f"The archive does not match its manifest (first: {wrong[0]}).")
    return manifest


class RestoreService:
    """Needs create and write on the target memory (delete too, to restore grants)."""

    def __init__(
        self,
        tree: TreeService,
        store: ArchiveStorage,
        blobs: BlobStore,
        vectors: VectorModels,
        *,
        batch: int,
        key: bytes | None,
    ):
        self.tree = tree
        self.store = store
        self.blobs = blobs
        self.vectors = vectors  # an archive's vectors are kept for the live slot of their model
        self.batch = batch
        self.key = key  # only an archive signed with it keeps its vectors

    async def restore(
        self,
        caller: Caller,
        under: str,
        path: Path,
        *,
        grants: bool = False,
        embed: bool = False,
        progress: Progress | None = None,
    ) -> RestoreSummary:
        """Writes the archive at `path` below `under`; safe to run again, whole or after a crash.

        The archive's vectors are kept only when it is signed with this deployment's archive key: a
        vector ranks its record, and an archive is whatever its sender wrote. `embed` makes every
        vector here even then; nothing the caller sends makes an unsigned archive's vectors kept.
        """
        await self.tree.require(caller, under, "create")
        await self.tree.require(caller, under, "write")
        if grants:
            await self.tree.require(caller, under, "delete")
        manifest = await asyncio.to_thread(verified, path)
        summary = RestoreSummary(memory_id=under, root=manifest.root, withheld=manifest.withheld)
        summary.embed_reason = "asked" if embed else signature.distrust(manifest, self.key)
        files = _FileGuard(self.tree, self.store, caller)
        writer = RecordWriter(
            self.store,
            self.vectors,
            summary.embed_reason is None,
            summary.created,
            summary.present,
            files.refuse_unreadable,
            payer=caller.principal,
        )
        held = {name.removeprefix("blobs/") for name in manifest.members if name.startswith("blobs/")}
        run = _Run(self, caller, under, summary, writer, files, held, grants, progress)
        await run.write(path)
        if summary.embed_reason is None and writer.models_differed:
            summary.embed_reason = "model_differs"
        return summary


@dataclass
class _FileGuard:
    """Which existing files the caller may read, asked through the access module."""

    tree: TreeService
    store: ArchiveStorage
    caller: Caller

    async def readable(self, file_ids: list[str]) -> dict[str, tuple[str, bool]]:
        """Each existing file of these: its sha256 and whether the caller may read it."""
        found = await self.store.files_existing(sorted(set(file_ids)), self.caller.principal)
        naming = sorted({m for row in found.values() for m in row["memory_ids"]})
        privileges = {v.node.id: v.privileges for v in await self.tree.views(self.caller, naming)}
        return {
            file_id: (
                row["sha256"],
                access.may_read_file(
                    row["owner"],
                    self.caller.principal,
                    (privileges.get(m, access.NOTHING) for m in row["memory_ids"]),
                ),
            )
            for file_id, row in found.items()
        }

    async def refuse_unreadable(self, file_ids: list[str]) -> None:
        """A clash when a record would name a file that exists and that the caller may not read."""
        for file_id, (_, readable) in sorted((await self.readable(file_ids)).items()):
            if not readable:
                raise RestoreClashError("file", file_id)


@dataclass
class _Run:
    """One restore's second pass: each member handed to what writes its kind."""

    service: RestoreService
    caller: Caller
    under: str
    summary: RestoreSummary
    writer: RecordWriter
    files: _FileGuard
    blobs_held: set[str]  # the sha256 of every blob the archive carries
    grants: bool
    progress: Progress | None
    memories: set[str] = field(default_factory=set)

    async def write(self, path: Path) -> None:
        members = _members(path)
        while (item := await asyncio.to_thread(next, members, None)) is not None:
            member, data = item
            if data is None or member.name in (MANIFEST_MEMBER, FORMAT_MEMBER):
                continue
            kind = member.name.split("/", 1)[0]
            if kind == "blobs":
                await self._blob(member.name.removeprefix("blobs/"), member.size, data)
            else:
                await self._lines(kind, data)
            if self.progress is not None:
                self.progress(self.summary.created)
        await self.writer.flush(self.memories)
        await self._link(path)

    async def _link(self, path: Path) -> None:
        """A third pass: each record's references, now that every target the archive holds is there."""
        members = _members(path)
        while (item := await asyncio.to_thread(next, members, None)) is not None:
            member, data = item
            if data is None or not member.name.startswith("records/"):
                continue
            batch: list[dict[str, Any]] = []
            while line := await asyncio.to_thread(data.readline):
                batch.append(json.loads(line))
                if len(batch) >= self.batch_size:
                    await self.writer.link(batch)
                    batch = []
            await self.writer.link(batch)

    async def _lines(self, kind: str, data: IO[bytes]) -> None:
        while line := await asyncio.to_thread(data.readline):
            try:
                entry = json.loads(line)
            except ValueError as e:
                raise invalid(f"A line of the archive's {kind} is not JSON.") from e
            if not isinstance(entry, dict):
                raise invalid(f"A line of the archive's {kind} is not an object.")
            await self._entry(kind, entry)
        if kind == "records":
            await self.writer.flush(self.memories)

    async def _entry(self, kind: str, entry: dict[str, Any]) -> None:
        try:
            if kind == "memories":
                await self._memory(entry)
            elif kind == "records":
                await self.writer.add(entry, self.memories, self.batch_size)
            elif kind == "snapshots":
                await self._snapshot(entry)
            elif kind == "grants":
                await self._grant(entry)
            elif kind == "files":
                await self._file(entry)
        except (KeyError, TypeError, ValueError) as e:
            raise invalid(f"An entry of the archive's {kind} is malformed: {e}.") from e

    @property
    def batch_size(self) -> int:
        return self.service.batch

    async def _memory(self, entry: dict[str, Any]) -> None:
        parent = entry["parent_id"] or self.under
        if entry["parent_id"] is not None and entry["parent_id"] not in self.memories:
            raise invalid("A memory of the archive comes before its parent.")
        stated = {
            k: entry[k] for k in ("id", "name", "description", "restricted", "created_at", "updated_at")
        }
        stated["created_by"] = entry.get("created_by")
        row = await self.service.store.restore_memory(
            memory=stated,
            parent_id=parent,
            grant_id=ids.derived(ids.GRANT, entry["id"], self.caller.principal),
            restorer=self.caller.principal,
            now=ids.now_ms(),
        )
        if row is None:
            raise invalid("The memory to restore under was deleted meanwhile.")
        same = all(row[k] == stated[k] for k in ("name", "description", "restricted")) and (
            row["parent_id"] == parent
        )
        if not row["created"]:
            views = await self.service.tree.views(self.caller, [entry["id"]])
            held = views[0].privileges if views else None
            same = same and access.may_restore_into(held, grants=self.grants)
        if not same:
            raise RestoreClashError("memory", entry["id"])
        self._count("memories", row["created"])
        self.memories.add(entry["id"])

    async def _snapshot(self, entry: dict[str, Any]) -> None:
        stated = {k: entry[k] for k in ("id", "memory_id", "name", "message", "at")}
        if stated["memory_id"] not in self.memories:
            raise invalid("A snapshot of the archive names a memory it does not hold.")
        row = await self.service.store.restore_snapshot(stated)
        if row is None or any(row[k] != stated[k] for k in stated):
            raise RestoreClashError("snapshot", stated["id"])
        self._count("snapshots", row["created"])

    async def _grant(self, entry: dict[str, Any]) -> None:
        if not self.grants or entry.get("implicit") or entry["memory_id"] not in self.memories:
            return
        grant = {k: entry[k] for k in ("id", "principal", "privileges", "created_at")}
        await self.service.store.restore_grant(entry["memory_id"], grant)
        self.summary.created.grants += 1

    async def _file(self, entry: dict[str, Any]) -> None:
        stated = {
            k: entry[k] for k in ("id", "name", "media_type", "bytes", "sha256", "purpose", "created_at")
        }
        if stated["sha256"] not in self.blobs_held:
            # Each file brings its own bytes: naming a digest alone would claim bytes stored here.
            raise invalid(f"The archive's file {stated['id']} comes without its bytes.")
        row = await self.service.store.restore_file(stated, self.caller.principal, ids.now_ms())
        if not row["created"]:
            sha256, readable = (await self.files.readable([stated["id"]])).get(stated["id"], ("", False))
            if not readable or sha256 != stated["sha256"]:
                raise RestoreClashError("file", stated["id"])
        self._count("files", row["created"])

    async def _blob(self, digest: str, size: int, data: IO[bytes]) -> None:
        blobs = self.service.blobs
        if await asyncio.to_thread(blobs.exists, digest):
            self.summary.present.file_bytes += size
            return
        staged = blobs.stage()
        try:
            while piece := await asyncio.to_thread(data.read, CHUNK_BYTES):
                await asyncio.to_thread(staged.write, piece)
            if staged.digest() != digest:
                raise invalid(f"The bytes at blobs/{digest} do not have that sha256.")
            await asyncio.to_thread(staged.keep)
            self.summary.created.file_bytes += staged.size
        finally:
            staged.discard()

    def _count(self, kind: str, created: bool) -> None:
        counts = self.summary.created if created else self.summary.present
        setattr(counts, kind, getattr(counts, kind) + 1)
