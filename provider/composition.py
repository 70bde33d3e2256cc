"""The composition root: the one place that builds the stores, the services and their settings.

The app's lifespan, the CLI, the MCP server over stdio and the benches all build through here, so a
setting is read in one place and every default lives in provider/config.py. Services take ports
(the `Protocol`s in each capability's `ports.py`); here the Neo4j stores are passed in for them.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from functools import partial
from typing import Any

from provider import blobs as blob_stores
from provider.blobs import BlobStore
from provider.config import Settings
from provider.embeddings import (
    BatchedEmbedder,
    Embedder,
    loaded_embedder,
)
from provider.fairness import FairGate, fair_gates
from provider.model_files import ModelTokenizer, abstain_threshold
from provider.models import UsageLimits
from provider.reranker import CrossEncoder
from provider.sandbox.pool import SandboxPool
from provider.services.archive.export import ExportService
from provider.services.archive.restore import RestoreService
from provider.services.capabilities import Capable
from provider.services.lifecycle.consolidation import ConsolidationService
from provider.services.lifecycle.jobs import ObserveJobs
from provider.services.lifecycle.merge import EntityMerger
from provider.services.lifecycle.observe import ObserveService
from provider.services.lifecycle.prime import PrimeService
from provider.services.lifecycle.sweeper import Sweeper
from provider.services.lifecycle.type_operations import TypeService
from provider.services.queries.service import QueryService
from provider.services.recall.graph import GraphService
from provider.services.recall.service import RecallService
from provider.services.records.content import ContentService
from provider.services.records.erase import EraseService
from provider.services.records.files import FileQuota, FileService
from provider.services.records.idempotency import IdempotencyService
from provider.services.records.model_move import ModelMove
from provider.services.records.reembed import Reembedder
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
from provider.store.named_queries import Neo4jNamedQueryStore
from provider.store.principals import Neo4jPrincipalStore
from provider.store.projection import Neo4jProjectionStore
from provider.store.recall import Neo4jRecallStore
from provider.store.records import Neo4jRecordStore
from provider.store.usage import Neo4jUsageStore
from provider.store.vector_cache import VectorCache
from provider.store.vector_state import Neo4jVectorStateStore

log = logging.getLogger("provider.composition")


@dataclass
class Services:
    """Everything a route may call, built once in the lifespan."""

    settings: Settings
    store: Neo4jStore
    embedder: Embedder
    vectors: VectorModels
    identity: IdentityService
    admin: AdminService
    tree: TreeService
    grants: GrantService
    harnesses: HarnessService
    files: FileService
    records: RecordService
    content: ContentService
    snapshots: SnapshotService
    recall: RecallService
    graph: GraphService
    idempotency: IdempotencyService
    erase: EraseService
    observe: ObserveService
    jobs: ObserveJobs
    prime: PrimeService
    types: TypeService
    consolidation: ConsolidationService
    queries: QueryService
    sweeper: Sweeper
    export: ExportService
    restore: RestoreService
    gates: dict[str, FairGate]  # the fair queues in front of reads, writes and queries (fairness.py)
    schema_applied: bool = False

    def capable(self) -> list[Capable]:
        """The services that contribute to the capability document."""
        return [s for s in vars(self).values() if hasattr(s, "capabilities")]


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
    limits = UsageLimits(**settings.quota.model_dump())  # the domain's value, field for field
    usage = Neo4jUsageStore(store, limits)
    record_store = Neo4jRecordStore(store, usage)
    runs_store = Neo4jConsolidationStore(store)
    # Moves and deletes wait while a consolidation runs below; a delete then sweeps the files it freed.
    tree = TreeService(
        Neo4jMemoryStore(store, usage), settings.provider_id, busy=runs_store.busy_below, deleted=files.sweep
    )
    references = ReferenceResolver(tree, record_store)
    vectors = VectorModels(
        Neo4jVectorStateStore(store),
        embedder,
        settings.embedding.model,
        load=partial(loaded_embedder, settings),
        refresh_seconds=settings.vector_state_seconds,
        batching=partial(
            BatchedEmbedder, max_batch=settings.embed_batch_max, wait_ms=settings.embed_batch_wait_ms
        ),
    )
    records = RecordService(tree, record_store, vectors, files, references)
    life = _lifecycle(
        settings, store, usage, tree, records, record_store, references, vectors, runs_store, gates
    )
    idempotency_service = IdempotencyService(
        Neo4jIdempotencyStore(store),
        lease_ms=settings.lease_ms,
        wait_seconds=settings.idempotency_wait_seconds,
    )
    snapshots = SnapshotService(tree, record_store)
    recall, graph = _recall(settings, store, tree, snapshots, references, vectors, reranker)
    return Services(
        settings=settings,
        store=store,
        embedder=embedder,
        vectors=vectors,
        identity=IdentityService(principals, settings.admin_key.get_secret_value()),
        admin=AdminService(principals, usage),
        tree=tree,
        grants=GrantService(tree, Neo4jGrantStore(store)),
        harnesses=HarnessService(tree, Neo4jHarnessStore(store)),
        files=files,
        records=records,
        content=ContentService(records, files),
        snapshots=snapshots,
        recall=recall,
        graph=graph,
        idempotency=idempotency_service,
        erase=EraseService(tree, record_store, files, references, batch_records=settings.erase_batch_records),
        observe=life.observe,
        jobs=life.jobs,
        prime=PrimeService(
            tree,
            record_store,
            ModelTokenizer(
                settings.embedding.model,
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
        queries=query_service(settings, tree, store, references),
        **_archive(settings, store, usage, tree, blobs, vectors),
        gates=gates,
    )


def _archive(
    settings: Settings,
    store: Neo4jStore,
    usage: Neo4jUsageStore,
    tree: TreeService,
    blobs: BlobStore,
    vectors: VectorModels,
) -> dict[str, Any]:
    archive = Neo4jArchiveStore(store, usage)
    key = settings.archive_key.get_secret_value().encode() or None
    return {
        "export": ExportService(tree, archive, blobs, vectors, page=settings.export_page_records, key=key),
        "restore": RestoreService(
            tree, archive, blobs, vectors, batch=settings.restore_batch_records, key=key
        ),
    }


def open_store(settings: Settings) -> Neo4jStore:
    """The Neo4j driver the settings name; connects lazily, on the first statement."""
    return Neo4jStore.from_settings(settings)


def model_move(settings: Settings, store: Neo4jStore, services: Services) -> ModelMove:
    """The whole database's move to another model (`python -m provider reembed --to`)."""
    return ModelMove(
        Neo4jVectorStateStore(store),
        services.vectors,
        settle_seconds=settings.model_move_settle_seconds,
        batch_size=settings.reembed_batch_records,
        index_wait_seconds=settings.model_move_index_wait_seconds,
    )


def reembedder(settings: Settings, services: Services) -> Reembedder:
    """New vectors for one memory's records (`python -m provider reembed --memory`)."""
    return Reembedder(
        services.tree, services.records.records, services.vectors, batch_size=settings.reembed_batch_records
    )


def cross_encoder(settings: Settings) -> CrossEncoder:
    """The recall's cross-encoder, not yet loaded (docs/MODELS.md "Reranker")."""
    return CrossEncoder(
        models=settings.cache_dir / "models",
        url=settings.reranker_url,
        max_tokens=settings.recall.rerank_max_tokens,
        threads=settings.recall.rerank_threads,
        cache_pairs=settings.recall.rerank_cache_pairs,
    )


def _files(settings: Settings, store: Neo4jStore, blobs: BlobStore) -> FileService:
    quota = FileQuota(
        bytes=settings.file.quota_bytes,
        files=settings.file.quota_files,
        orphan_grace_ms=settings.file.orphan_grace_seconds * 1000,
    )
    return FileService(Neo4jFileStore(store), blobs, settings.content_media, quota)


def _recall(
    settings: Settings,
    store: Neo4jStore,
    tree: TreeService,
    snapshots: SnapshotService,
    references: ReferenceResolver,
    vectors: VectorModels,
    reranker: CrossEncoder | None,
) -> tuple[RecallService, GraphService]:
    cache_bytes = settings.recall.vector_cache_mb * 2**20
    recall_store = Neo4jRecallStore(
        store,
        VectorCache(store, cache_bytes, settings.recall.vector_cache_load_after) if cache_bytes else None,
    )
    recall = RecallService(
        tree,
        recall_store,
        snapshots,
        references,
        vectors,
        tuning=settings.recall,
        subtree_cap=settings.subtree_cap,
        abstain_below=partial(abstain_threshold, settings),
        reranker=reranker or cross_encoder(settings),
    )
    graph = GraphService(
        tree, Neo4jGraphStore(store), recall_store, references, subtree_cap=settings.subtree_cap
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
    usage: Neo4jUsageStore,
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
        concurrent=settings.observe_jobs_concurrent,
        turns=gates["writes"],
    )
    merger = EntityMerger(
        records,
        Neo4jEntityStore(store, usage),
        runs_store,
        record_store=record_store,
        reference_cap=settings.limits.references,
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


def query_service(
    settings: Settings, tree: TreeService, store: Neo4jStore, references: ReferenceResolver
) -> QueryService:
    """The service as the settings describe it; no I/O (sandboxes start on `start` or first use)."""
    pool = None
    # The sandbox is a service of its own (compose, scripts/serve, or UHP_QUERY_SANDBOX_URL): with
    # no URL, queries are declared off; nothing here starts a JVM.
    if settings.query.sandbox and settings.query.sandbox_url is None:
        log.warning("no UHP_QUERY_SANDBOX_URL: named and free queries are off")
    if settings.query.sandbox and settings.query.sandbox_url is not None:
        pool = SandboxPool(settings.query.sandbox_url, settings.query.sandbox_token.get_secret_value())
    stores = (Neo4jProjectionStore(store), Neo4jNamedQueryStore(store), Neo4jRecallStore(store))
    prestart = settings.query.sandbox_prestart
    if prestart is None:
        prestart = settings.environment == "production"
    return QueryService(
        tree,
        stores,
        references,
        pool,
        limits=settings.query,
        subtree_cap=settings.subtree_cap,
        gate=True,
        prestart=prestart,
    )
