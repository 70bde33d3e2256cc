"""Export: everything below a memory the caller may read, streamed as one tar (docs/EXPORT.md).

The readable subtree is decided by access.py (the caller's reach, judged memory by memory); a branch
the caller cannot read, or one it reaches only through such a branch, stays out and the manifest says
`withheld`. Records are read a page at a time and leave as one member per page, so memory stays
bounded by the page size (and file bytes by one read of the blob store), whatever the tree's size.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from typing import Any

from provider import access, ids
from provider.blobs import CHUNK_BYTES, BlobStore
from provider.errors import FileNotFoundInStoreError, MemoryNotFoundError
from provider.models import ArchiveCounts, Caller
from provider.services.archive import signature
from provider.services.archive.format import (
    END_OF_ARCHIVE,
    FORMAT,
    FORMAT_MEMBER,
    FORMAT_VERSION,
    MANIFEST_MEMBER,
    Manifest,
    header,
    jsonl,
    packed,
    padding,
    version_entry,
)
from provider.services.archive.ports import ArchiveStorage
from provider.services.tree.memories import TreeService
from provider.services.vectors import VectorModels

Progress = Callable[[ArchiveCounts], None]


def exported_tree(reach: access.Reach) -> tuple[list[tuple[str, str | None]], bool]:
    """The memories an export carries, each with its parent, parents first; and whether any was left out.

    A memory is carried when it is readable and so is every memory between it and the root.
    """
    children: dict[str, list[str]] = {}
    for memory_id, parent in reach.parents.items():
        if parent is not None:
            children.setdefault(parent, []).append(memory_id)
    readable = set(reach.readable_scope())
    tree: list[tuple[str, str | None]] = [(reach.memory_id, None)]
    for memory_id, _ in tree:  # grows while walked: breadth first
        tree += [(c, memory_id) for c in sorted(children.get(memory_id, [])) if c in readable]
    return tree, len(tree) < len(reach.below) + 1


@dataclass
class ExportPlan:
    """An export the caller may make, ready to stream."""

    caller: Caller
    reach: access.Reach
    tree: list[tuple[str, str | None]]
    withheld: bool
    store: ArchiveStorage
    blobs: BlobStore
    page: int
    model: str  # the model that made the vectors of `slot`, named beside them in the archive
    slot: str
    key: bytes | None  # the deployment's archive key, which signs the manifest; None: unsigned
    progress: Progress | None = None
    counts: ArchiveCounts = field(default_factory=ArchiveCounts)

    async def stream(self) -> AsyncIterator[bytes]:
        """The tar, member by member; the manifest goes last, with every member's checksum."""
        now = ids.now_ms()
        manifest = Manifest(root=self.reach.memory_id, exported_at=now, exported_by=self.caller.principal)
        manifest.counts = self.counts
        manifest.withheld = self.withheld
        opening = {"format": FORMAT, "format_version": FORMAT_VERSION, "root": self.reach.memory_id}
        yield self._member(manifest, FORMAT_MEMBER, jsonl([opening]), now)
        file_ids: dict[str, None] = {}
        async for name, data in self._entries(file_ids, manifest):
            yield self._member(manifest, name, data, now)
        async for piece in self._files(sorted(file_ids), manifest, now):
            yield piece
        if self.key is not None:
            manifest.signature = signature.seal(manifest, self.key)
        yield self._member(Manifest("", 0, ""), MANIFEST_MEMBER, manifest.as_json(), now)
        yield END_OF_ARCHIVE

    def _member(self, manifest: Manifest, name: str, data: bytes, mtime: int) -> bytes:
        manifest.add(name, data)
        if self.progress is not None:
            self.progress(self.counts)
        return header(name, len(data), mtime // 1000) + data + padding(len(data))

    async def _entries(
        self, file_ids: dict[str, None], manifest: Manifest
    ) -> AsyncIterator[tuple[str, bytes]]:
        """The JSON Lines members: memories, records (a page each), snapshots, grants."""
        yield "memories/000001.jsonl", jsonl(await self._memories())
        number = 0
        for memory_id, _ in self.tree:
            async for entries in self._records(memory_id, file_ids):
                number += 1
                yield f"records/{number:06d}.jsonl", jsonl(entries)
        snapshots = [s for m, _ in self.tree for s in await self.store.snapshots(m)]
        self.counts.snapshots = len(snapshots)
        yield "snapshots/000001.jsonl", jsonl([dict(s) for s in snapshots])
        grants = await self._grants()
        manifest.grants_included = bool(grants)
        yield "grants/000001.jsonl", jsonl(grants)

    async def _memories(self) -> list[dict[str, Any]]:
        found = await self.store.memories([m for m, _ in self.tree])
        entries = [{**found[m], "parent_id": parent} for m, parent in self.tree if m in found]
        self.counts.memories = len(entries)
        return entries

    async def _records(
        self, memory_id: str, file_ids: dict[str, None]
    ) -> AsyncIterator[list[dict[str, Any]]]:
        after = ""
        while True:
            page = await self.store.records_page(memory_id, after, self.page, self.slot)
            if not page:
                return
            entries = []
            for stored, created_at, vectors in page:
                versions = [version_entry(v) for v in stored.versions]
                for v in stored.versions:
                    file_ids.update((p["file"]["id"], None) for p in v.content if p.get("type") == "file")
                entries.append(
                    {
                        "id": stored.id,
                        "memory_id": memory_id,
                        "current": stored.current,
                        "created_at": created_at,
                        "versions": versions,
                        "vectors": {"model": self.model, "float32": [packed(v) for v in vectors]},
                    }
                )
                self.counts.versions += len(versions)
            self.counts.records += len(entries)
            yield entries
            after = page[-1][0].id

    async def _grants(self) -> list[dict[str, Any]]:
        """Grants on each exported memory where the caller holds delete; none elsewhere."""
        privileges = {self.reach.memory_id: self.reach.privileges, **self.reach.below}
        grants = [
            {**g, "memory_id": m}
            for m, _ in self.tree
            if "delete" in privileges.get(m, access.NOTHING)
            for g in await self.store.grants(m)
        ]
        self.counts.grants = len(grants)
        return grants

    async def _files(self, file_ids: list[str], manifest: Manifest, mtime: int) -> AsyncIterator[bytes]:
        """File metadata, a page a member, then each distinct blob's bytes as they are read."""
        digests: dict[str, int] = {}
        for start in range(0, len(file_ids), self.page):
            found = await self.store.files(file_ids[start : start + self.page])
            entries = [dict(found[f]) for f in file_ids[start : start + self.page] if f in found]
            digests.update((e["sha256"], int(e["bytes"])) for e in entries)
            self.counts.files += len(entries)
            yield self._member(manifest, f"files/{start // self.page + 1:06d}.jsonl", jsonl(entries), mtime)
        for digest, size in digests.items():
            async for piece in self._blob(digest, size, manifest, mtime):
                yield piece

    async def _blob(self, digest: str, size: int, manifest: Manifest, mtime: int) -> AsyncIterator[bytes]:
        try:
            reader = await asyncio.to_thread(self.blobs.open, digest)
        except FileNotFoundError as e:
            raise FileNotFoundInStoreError(f"The bytes of a file ({digest}) are no longer kept.") from e
        name = f"blobs/{digest}"
        yield header(name, size, mtime // 1000)
        sent = 0
        try:
            while sent < size:
                piece = await asyncio.to_thread(reader.read, min(CHUNK_BYTES, size - sent))
                if not piece:
                    raise FileNotFoundInStoreError(f"The bytes of a file ({digest}) are shorter than kept.")
                sent += len(piece)
                yield piece
        finally:
            await asyncio.to_thread(reader.close)
        manifest.members[name] = {"sha256": digest, "bytes": size}
        self.counts.file_bytes += size
        yield padding(size)


class ExportService:
    """Judges the export up front (404 before any byte), then hands a plan to stream."""

    def __init__(
        self,
        tree: TreeService,
        store: ArchiveStorage,
        blobs: BlobStore,
        vectors: VectorModels,
        *,
        page: int,
        key: bytes | None,
    ):
        self.tree = tree
        self.store = store
        self.blobs = blobs
        self.page = page
        self.key = key
        self.vectors = vectors  # the archive carries the vectors recall reads, and names their model

    async def plan(self, caller: Caller, memory_id: str, progress: Progress | None = None) -> ExportPlan:
        """Needs read on the memory: without it, the memory is unknown (404), as it is to a stranger."""
        reach = await self.tree.readable_scope(caller, memory_id, depth=None)
        if "read" not in reach.privileges:
            raise MemoryNotFoundError("No memory with that id exists.", param="memory_id")
        tree, withheld = exported_tree(reach)
        state = await self.vectors.state()
        return ExportPlan(
            caller,
            reach,
            tree,
            withheld,
            self.store,
            self.blobs,
            self.page,
            state.active_model,
            state.active,
            self.key,
            progress,
        )
