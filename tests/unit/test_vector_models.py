"""Which model embeds what (provider/services/vectors.py): the parts that need no database."""

from __future__ import annotations

import asyncio

import pytest
from neo4j import AsyncGraphDatabase

from provider.embeddings import Embedder, OnnxEmbedder
from provider.errors import UnavailableError
from provider.model_files import ModelFetchError
from provider.services.vectors import VectorModels
from provider.store.driver import Neo4jStore
from provider.store.vector_state import Neo4jVectorStateStore


def refused(name: str) -> Embedder:
    raise ModelFetchError(f"{name}: the repository refused the download")


@pytest.mark.anyio
async def test_a_model_that_cannot_be_loaded_is_a_clear_503_not_a_crash(embedder: OnnxEmbedder) -> None:
    # Wiring only: a driver that is never asked anything connects nowhere.
    driver = AsyncGraphDatabase.driver("bolt://127.0.0.1:9", auth=("neo4j", "unused"))
    try:
        state = Neo4jVectorStateStore(Neo4jStore(driver, "neo4j"))
        vectors = VectorModels(state, embedder, "all-MiniLM-L6-v2", load=refused, refresh_seconds=2.0)
        assert await vectors.embedder("all-MiniLM-L6-v2") is embedder
        with pytest.raises(UnavailableError, match="fetch-model") as failed:
            await vectors.embedder("bge-small-en-v1.5")
        assert failed.value.code == "memory_unavailable"
        loading = VectorModels(state, embedder, "all-MiniLM-L6-v2", refresh_seconds=2.0)
        with pytest.raises(UnavailableError, match="cannot load"):
            await asyncio.wait_for(loading.embedder("bge-small-en-v1.5"), 5)
    finally:
        await driver.close()
