"""The composition root: `create_app(settings)` wires store, embedder and services in the lifespan."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from functools import partial
from typing import Any

from fastapi import FastAPI
from fastapi.telemetry import TelemetryConfig

from provider import __version__, tracing
from provider import blobs as blob_stores
from provider.api import errors, explorer, middleware
from provider.api.deps import Services
from provider.api.mcp import http as mcp_http
from provider.api.routes import MOUNTED
from provider.blobs import BlobStore
from provider.config import Settings
from provider.embeddings import (
    BatchedEmbedder,
    Embedder,
    OnnxEmbedder,
    SentenceTransformerEmbedder,
    configured_embedder,
    loaded_embedder,
)
from provider.fairness import FairGate, fair_gates
from provider.model_files import ModelTokenizer, abstain_threshold
from provider.models import UsageLimits
from provider.reranker import CrossEncoder
from provider.services.archive.export import ExportService
from provider.services.archive.restore import RestoreService
from provider.services.lifecycle.consolidation import ConsolidationService
from provider.services.lifecycle.jobs import ObserveJobs
from provider.services.lifecycle.merge import EntityMerger
from provider.services.lifecycle.observe import ObserveService
from provider.services.lifecycle.operations import TypeService
from provider.services.lifecycle.prime import PrimeService
from provider.services.lifecycle.sweeper import Sweeper
from provider.services.queries.service import QueryService
from provider.services.recall.graph import GraphService
from provider.services.recall.service import RecallService
from provider.services.records.erase import EraseService
from provider.services.records.files import FileQuota, FileService
from provider.services.records.idempotency import IdempotencyService
from provider.services.records.parts import ContentService
from provider.services.records.references import ReferenceResolver
from provider.services.records.service import RecordService
from provider.services.records.snapshots import SnapshotService
from provider.services.tree.admin import AdminService
from provider.services.tree.grants import GrantService
from provider.services.tree.harnesses import HarnessService
from provider.services.tree.identity import IdentityService
from provider.services.tree.memories import TreeService
from provider.services.vectors import VectorModels
from provider.store.archive import Neo4jArchiveStore
from provider.store.consolidations import Neo4jConsolidationStore
from provider.store.driver import Neo4jStore
from provider.store.entities import Neo4jEntityStore
from provider.store.files import Neo4jFileStore
from provider.store.grants import Neo4jGrantStore
from provider.store.graph import Neo4jGraphStore
from provider.store.harnesses import Neo4jHarnessStore
from provider.store.idempotency import Neo4jIdempotencyStore
from provider.store.jobs import Neo4jJobStore
from provider.store.memories import Neo4jMemoryStore
from provider.store.principals import Neo4jPrincipalStore
from provider.store.recall import Neo4jRecallStore
from provider.store.records import Neo4jRecordStore
from provider.store.schema import apply_schema
from provider.store.usage import Neo4jUsageStore
from provider.store.vector_cache import VectorCache
from provider.store.vector_state import Neo4jVectorStateStore


def build_services(
    settings: Settings, store: Neo4jStore, embedder: Embedder, reranker: CrossEncoder | None = None
) -> Services:
    """Wires every service over one store; pure construction, no I/O.

    Without a `reranker`, one is made from the settings, loaded on the first recall that asks for it.

    The larger capabilities (files, recall, lifecycle) are built by the function named after each,
    from the collaborators it uses.
    """
    principals = Neo4jPrincipalStore(store)
    gates = fair_gates(settings)
    blobs = blob_stores.configured(settings)
    files = _files(settings, store, blobs)
    limits = usage_limits(settings)
    record_store = Neo4jRecordStore(store, limits)
    runs_store = Neo4jConsolidationStore(store)
    # Moves and deletes wait while a consolidation runs below; a delete then sweeps the files it freed.
    tree = TreeService(
        Neo4jMemoryStore(store, limits), settings.provider_id, busy=runs_store.busy_below, deleted=files.sweep
    )
    references = ReferenceResolver(tree, record_store)
    vectors = VectorModels(
        Neo4jVectorStateStore(store),
        embedder,
        settings.embedding_model,
        load=partial(loaded_embedder, settings),
        refresh_seconds=settings.vector_state_seconds,
        batching=partial(
            BatchedEmbedder, max_batch=settings.embed_batch_max, wait_ms=settings.embed_batch_wait_ms
        ),
    )
    records = RecordService(tree, record_store, vectors, files, references)
    life = _lifecycle(settings, store, tree, records, record_store, references, vectors, runs_store, gates)
    idempotency_service = IdempotencyService(Neo4jIdempotencyStore(store), lease_ms=settings.lease_ms)
    recall, graph = _recall(settings, store, tree, records, references, vectors, reranker)
    return Services(
        settings=settings,
        store=store,
        embedder=embedder,
        vectors=vectors,
        identity=IdentityService(principals, settings.admin_key.get_secret_value()),
        admin=AdminService(principals, Neo4jUsageStore(store, limits)),
        tree=tree,
        grants=GrantService(tree, Neo4jGrantStore(store)),
        harnesses=HarnessService(tree, Neo4jHarnessStore(store)),
        files=files,
        records=records,
        content=ContentService(records, files),
        snapshots=SnapshotService(tree, record_store),
        recall=recall,
        graph=graph,
        idempotency=idempotency_service,
        erase=EraseService(tree, record_store, files, references),
        observe=life.observe,
        jobs=life.jobs,
        prime=PrimeService(
            tree,
            record_store,
            ModelTokenizer(
                settings.embedding_model,
                models=settings.cache_dir / "models",
                repository=settings.model_repository,
            ),
        ),
        types=TypeService(tree, records, life.consolidation, life.merger, record_store),
        consolidation=life.consolidation,
        sweeper=Sweeper(
            idempotency=idempotency_service,
            consolidation=life.consolidation,
            files=files,
            blobs=blobs,
            jobs=life.jobs,
            records=record_store,
            lease_ms=settings.lease_ms,
            interval_seconds=settings.sweep_seconds,
        ),
        queries=QueryService.from_settings(settings, tree, store, references),
        **_archive(settings, store, tree, blobs, vectors),
        gates=gates,
    )


def _archive(
    settings: Settings, store: Neo4jStore, tree: TreeService, blobs: BlobStore, vectors: VectorModels
) -> dict[str, Any]:
    archive = Neo4jArchiveStore(store, usage_limits(settings))
    key = settings.archive_key.get_secret_value().encode() or None
    return {
        "export": ExportService(tree, archive, blobs, vectors, page=settings.export_page_records, key=key),
        "restore": RestoreService(
            tree, archive, blobs, vectors, batch=settings.restore_batch_records, key=key
        ),
    }


def cross_encoder(settings: Settings) -> CrossEncoder:
    """The recall's cross-encoder, not yet loaded (docs/MODELS.md "Reranker")."""
    return CrossEncoder(
        models=settings.cache_dir / "models",
        url=settings.reranker_url,
        max_tokens=settings.recall_rerank_max_tokens,
        threads=settings.recall_rerank_threads,
    )


def usage_limits(settings: Settings) -> UsageLimits:
    """The quotas on what a member keeps and a root memory's tree holds (docs/OPERATIONS.md "Quotas")."""
    return UsageLimits(
        records=settings.quota_records,
        content_bytes=settings.quota_content_bytes,
        memories=settings.quota_memories,
        root_records=settings.quota_root_records,
        root_content_bytes=settings.quota_root_content_bytes,
    )


def _files(settings: Settings, store: Neo4jStore, blobs: BlobStore) -> FileService:
    quota = FileQuota(
        bytes=settings.file_quota_bytes,
        files=settings.file_quota_files,
        orphan_grace_ms=settings.file_orphan_grace_seconds * 1000,
    )
    return FileService(Neo4jFileStore(store), blobs, settings.content_media, quota)


def _recall(
    settings: Settings,
    store: Neo4jStore,
    tree: TreeService,
    records: RecordService,
    references: ReferenceResolver,
    vectors: VectorModels,
    reranker: CrossEncoder | None,
) -> tuple[RecallService, GraphService]:
    cache_bytes = settings.recall_vector_cache_mb * 2**20
    recall_store = Neo4jRecallStore(
        store,
        VectorCache(store, cache_bytes, settings.recall_vector_cache_load_after) if cache_bytes else None,
    )
    recall = RecallService(
        tree,
        recall_store,
        records,
        references,
        vectors,
        subtree_cap=settings.subtree_cap,
        abstain_below=partial(abstain_threshold, settings),
        words_weight=settings.recall_words_weight,
        search_query_words=settings.recall_query_words,
        query_scan_chars=settings.recall_query_scan_chars,
        candidates=settings.recall_candidates,
        history_window=settings.recall_history_window,
        date_boost=settings.recall_date_boost,
        newer_wins=settings.recall_newer_wins,
        same_subject_cosine=settings.recall_same_subject_cosine,
        words_candidates=settings.recall_words_candidates,
        reranker=reranker or cross_encoder(settings),
        rerank=settings.recall_rerank,
        rerank_candidates=settings.recall_rerank_candidates,
        rerank_budget_ms=settings.recall_rerank_budget_ms,
        # About 4 characters a token: enough words to fill the pair, never a whole 200,000-character record.
        rerank_chars=settings.recall_rerank_max_tokens * 8,
        rerank_skip_lead=settings.recall_rerank_skip_lead,
    )
    graph = GraphService(
        tree, Neo4jGraphStore(store), recall_store, records, references, subtree_cap=settings.subtree_cap
    )
    return recall, graph


@dataclass(frozen=True)
class _Lifecycle:
    observe: ObserveService
    jobs: ObserveJobs
    merger: EntityMerger
    consolidation: ConsolidationService


def _lifecycle(
    settings: Settings,
    store: Neo4jStore,
    tree: TreeService,
    records: RecordService,
    record_store: Neo4jRecordStore,
    references: ReferenceResolver,
    vectors: VectorModels,
    runs_store: Neo4jConsolidationStore,
    gates: dict[str, FairGate],
) -> _Lifecycle:
    observe = ObserveService(tree, records, record_store, settings.provider_id)
    jobs = ObserveJobs(
        tree,
        observe,
        records,
        Neo4jJobStore(store),
        record_store=record_store,
        references=references,
        lease_ms=settings.lease_ms,
        turns=gates["writes"],
    )
    merger = EntityMerger(
        records,
        Neo4jEntityStore(store, usage_limits(settings)),
        runs_store,
        record_store=record_store,
        vectors=vectors,
        reference_cap=settings.limits().references,
    )
    consolidation = ConsolidationService(
        tree,
        runs_store,
        records,
        record_store=record_store,
        vectors=vectors,
        provider_id=settings.provider_id,
        threshold=settings.duplicate_similarity,
        default_budget=settings.consolidation_budget,
        lease_ms=settings.lease_ms,
        merger=merger,
    )
    return _Lifecycle(observe, jobs, merger, consolidation)


@contextlib.contextmanager
def traces_from_environment() -> Iterator[None]:
    """Tracing on for the app's life when OTEL_* variables ask (provider/tracing.py); flushed at the end."""
    started = tracing.configure()
    try:
        yield
    finally:
        if started:
            tracing.shutdown()


def create_app(settings: Settings, embedder: Embedder | None = None) -> FastAPI:
    """An app whose lifespan connects to Neo4j, applies the schema and loads the model."""

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        with traces_from_environment():
            async with serving(app):
                yield

    @asynccontextmanager
    async def serving(app: FastAPI) -> AsyncIterator[None]:
        model = embedder or configured_embedder(settings)
        if isinstance(model, SentenceTransformerEmbedder | OnnxEmbedder):
            await asyncio.to_thread(model.load)
        reranker = cross_encoder(settings)
        if settings.recall_rerank:
            await asyncio.to_thread(reranker.load)
        store = Neo4jStore.from_settings(settings)
        services = build_services(settings, store, model, reranker)
        app.state.services = services
        sweeping: asyncio.Task[None] | None = None
        try:
            await apply_schema(store, model.dimension)
            services.schema_applied = True
            services.queries.start()
            # At start-up and then on a schedule: what a process that died left is finished or cleared.
            if settings.sweep_seconds:
                sweeping = asyncio.create_task(services.sweeper.run())
            async with mcp_endpoint():
                yield
        finally:
            if sweeping is not None:
                sweeping.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await sweeping
            await services.jobs.close()
            await services.queries.close()
            await store.close()

    # FastAPI's own telemetry stays off whatever global provider is set: it would record url.query.
    quiet: TelemetryConfig = {"tracing": False, "metrics": False, "logs": False}
    app = FastAPI(title="uhp-memory", version=__version__, lifespan=lifespan, telemetry=quiet)
    middleware.install(app, settings)
    errors.install(app)
    for module in MOUNTED:
        app.include_router(module.router)
    mcp_endpoint = mcp_http.install(app, settings)
    explorer.install(app, settings)
    return app
