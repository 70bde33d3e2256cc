"""The runtime: what a process opens to serve, and closes when it stops, in one place.

The app's lifespan, every CLI command and the benches that build services run inside `running`, so
start-up is written once: the model loaded, the cross-encoder loaded when recall reranks by default,
the driver opened, every service built (composition.py), the schema applied when asked; and on the
way out, whatever happens, the observe jobs and the query sandbox stopped, the driver closed and the
cross-encoder's workers ended.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass

from provider.composition import Services, build_services, cross_encoder, open_store
from provider.config import Settings
from provider.embeddings import Embedder, OnnxEmbedder, SentenceTransformerEmbedder, configured_embedder
from provider.reranker import CrossEncoder
from provider.store.driver import Neo4jStore
from provider.store.schema import apply_schema


@dataclass(frozen=True)
class Runtime:
    """One process's open parts: the settings, the driver, the models and the services over them."""

    settings: Settings
    store: Neo4jStore
    embedder: Embedder
    reranker: CrossEncoder
    services: Services


@asynccontextmanager
async def running(
    settings: Settings, *, embedder: Embedder | None = None, schema: bool = True, serve: bool = False
) -> AsyncIterator[Runtime]:
    """Opens what `settings` name, yields it, and closes it all on the way out.

    `embedder` replaces the configured model (tests and benches share one); `schema` applies the
    database schema first (a command that must not touch it says False); `serve` loads the
    cross-encoder when recall reranks by default and starts the query sandbox, as the app does.
    """
    model = embedder or configured_embedder(settings)
    if isinstance(model, SentenceTransformerEmbedder | OnnxEmbedder):
        await asyncio.to_thread(model.load)
    reranker = cross_encoder(settings)
    if serve and settings.recall.rerank:
        await asyncio.to_thread(reranker.load)
    store = open_store(settings)
    services = build_services(settings, store, model, reranker)
    try:
        if schema:
            await apply_schema(store, model.dimension)
            services.schema_applied = True
        if serve:
            services.queries.start()
        yield Runtime(settings, store, model, reranker, services)
    finally:
        await services.jobs.close()
        await services.queries.close()
        await store.close()
        await asyncio.to_thread(reranker.close)
