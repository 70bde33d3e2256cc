"""Commands that run in-process against Neo4j: bulk import, migration, re-embedding, with progress."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import sys
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO

from provider.cli_import import BulkImporter
from provider.composition import Services, model_move, reembedder
from provider.config import Settings
from provider.embeddings import Embedder
from provider.errors import MemberNotFoundError, ProviderError
from provider.migrate.graphiti import GraphitiMigration
from provider.migrate.mem0 import Mem0Migration
from provider.migrate.writer import MigrationSummary, MigrationWriter
from provider.models import ArchiveCounts, Caller
from provider.protocol.answers.archive import RestoredOut
from provider.protocol.wire import use_limits
from provider.runtime import running
from provider.store.driver import Neo4jStore
from provider.store.graphiti_source import GraphitiSource
from provider.store.schema import apply_schema, rebuild_vector_index

Work = Callable[[Services, Neo4jStore, Embedder], Awaitable[int]]


async def _with_services(settings: Settings, work: Work) -> int:
    """Runs a command's work in the runtime; each command applies the schema where it needs it."""
    try:
        async with running(settings, schema=False) as runtime:
            with use_limits(settings.limits):
                result: int = await work(runtime.services, runtime.store, runtime.embedder)
            return result
    except ProviderError as e:
        print(f"error: {e.code}: {e.message}", file=sys.stderr)
        return 1


async def _caller(services: Services, principal: str) -> Caller:
    kind, _, member_id = principal.partition(":")
    member = await services.admin.principals.get_member(member_id) if kind == "member" else None
    if member is None:
        raise MemberNotFoundError("--as must name a known member as member:<id>.")
    return Caller(member_id=member.id, member_type=member.type)


def yield_cpu(niceness: int) -> None:
    """Lowers this process's CPU priority (where the platform has one) for a bulk command.

    A bulk command runs beside the service, outside its fair queues: at a lower priority, the
    service's requests (and Neo4j) go first when both want a core. It cannot be raised back.
    """
    if niceness and hasattr(os, "nice"):
        with contextlib.suppress(OSError):
            os.nice(niceness)


def import_records(
    settings: Settings, memory_id: str, principal: str, path: Path, *, resume: bool, batch_size: int
) -> int:
    """`python -m provider import`: JSON Lines into a memory, acting as a member who may write it."""

    async def work(services: Services, store: Neo4jStore, embedder: Embedder) -> int:
        await apply_schema(store, embedder.dimension)
        caller = await _caller(services, principal)
        summary = await BulkImporter(services.records, batch_size=batch_size).run(
            caller, memory_id, path, resume=resume
        )
        print(
            json.dumps(
                {
                    "created": summary.created,
                    "skipped_existing": summary.skipped_existing,
                    "rejected": len(summary.rejected),
                    "seconds": summary.seconds,
                    "state": str(BulkImporter(services.records).state_path(path, memory_id)),
                }
            )
        )
        return 0 if not summary.rejected else 3

    return asyncio.run(_with_services(settings, work))


@dataclass(frozen=True)
class GraphitiAt:
    """Where the Graphiti graph lives, and which of its groups to move (all when none)."""

    uri: str
    user: str
    password: str
    database: str | None = None
    groups: tuple[str, ...] = ()


async def _migrated(services: Any, principal: str, into: str, source: str) -> MigrationWriter:
    caller = await _caller(services, principal)
    await services.tree.require(caller, into, "create")
    summary = MigrationSummary(source=source, into=into)
    return MigrationWriter(services.records, services.tree, caller, summary)


def _finished(summary: MigrationSummary) -> int:
    print(json.dumps(summary.wire(), ensure_ascii=False))
    return 0 if not summary.refused else 3


def migrate_graphiti(settings: Settings, at: GraphitiAt, into: str, principal: str) -> int:
    """`python -m provider migrate graphiti`: a Graphiti graph, read where it lives, below a memory."""

    async def work(services: Services, store: Neo4jStore, embedder: Embedder) -> int:
        await apply_schema(store, embedder.dimension)
        writer = await _migrated(services, principal, into, "graphiti")
        source = GraphitiSource(at.uri, at.user, at.password, database=at.database)
        try:
            return _finished(await GraphitiMigration(source, writer).run(list(at.groups)))
        finally:
            await source.close()

    return asyncio.run(_with_services(settings, work))


def migrate_mem0(settings: Settings, path: Path, into: str, principal: str) -> int:
    """`python -m provider migrate mem0`: a mem0 export file below a memory."""

    async def work(services: Services, store: Neo4jStore, embedder: Embedder) -> int:
        await apply_schema(store, embedder.dimension)
        writer = await _migrated(services, principal, into, "mem0")
        return _finished(await Mem0Migration(writer).run(path))

    return asyncio.run(_with_services(settings, work))


def reembed(settings: Settings, memory_id: str, principal: str, *, rebuild_index: bool) -> int:
    """`python -m provider reembed --memory`: new vectors, in the slot recall reads, for one memory."""

    async def work(services: Services, store: Neo4jStore, embedder: Embedder) -> int:
        if rebuild_index:
            await rebuild_vector_index(store, embedder.dimension)
        caller = await _caller(services, principal)
        done = await reembedder(settings, services).run(caller, memory_id)
        print(json.dumps({"reembedded": done}))
        return 0

    return asyncio.run(_with_services(settings, work))


def move_model(settings: Settings, model: str, *, retire: bool) -> int:
    """`python -m provider reembed --to <model>`: the whole database to another model, readers unaware."""

    async def work(services: Services, store: Neo4jStore, embedder: Embedder) -> int:
        await apply_schema(store, embedder.dimension)
        move = model_move(settings, store, services)
        outcome = await move.move(model, retire=retire)
        print(json.dumps(vars(outcome)))
        return 0

    return asyncio.run(_with_services(settings, work))


def _progress(verb: str) -> Callable[[ArchiveCounts], None]:
    """A progress line on stderr, at most twice a second, so a long run shows it is moving."""
    started = time.monotonic()
    shown = [0.0]

    def show(counts: ArchiveCounts) -> None:
        now = time.monotonic()
        if now - shown[0] < 0.5:
            return
        shown[0] = now
        rate = counts.records / (now - started) if now > started else 0.0
        sys.stderr.write(
            f"\r{verb}: {counts.memories} memories, {counts.records} records ({counts.versions} versions), "
            f"{counts.files} files, {counts.file_bytes} bytes, {rate:,.0f} records/s"
        )
        sys.stderr.flush()

    return show


def export_tree(settings: Settings, memory_id: str, principal: str, out: Path | None) -> int:
    """`python -m provider export`: the readable subtree as a tar, to a file or stdout."""

    async def work(services: Services, store: Neo4jStore, embedder: Embedder) -> int:
        caller = await _caller(services, principal)
        show = _progress("export")
        plan = await services.export.plan(caller, memory_id, progress=show)
        target: BinaryIO = out.open("wb") if out is not None else sys.stdout.buffer
        try:
            async for piece in plan.stream():
                target.write(piece)
        finally:
            if out is not None:
                target.close()
        show_final = plan.counts
        sys.stderr.write("\n")
        summary = {"counts": vars(show_final), "withheld": plan.withheld, "signed": plan.key is not None}
        print(json.dumps(summary), file=sys.stderr)
        return 0

    return asyncio.run(_with_services(settings, work))


def restore_archive(
    settings: Settings, path: Path, memory_id: str, principal: str, *, grants: bool, embed: bool = False
) -> int:
    """`python -m provider restore`: an archive written below a memory; run it again to resume."""

    async def work(services: Services, store: Neo4jStore, embedder: Embedder) -> int:
        await apply_schema(store, embedder.dimension)
        caller = await _caller(services, principal)
        summary = await services.restore.restore(
            caller, memory_id, path, grants=grants, embed=embed, progress=_progress("restore")
        )
        sys.stderr.write("\n")
        print(json.dumps(RestoredOut.from_domain(summary).wire()))
        return 0

    return asyncio.run(_with_services(settings, work))
