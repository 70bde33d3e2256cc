"""Applies the schema at start-up, idempotently, and checks the vector index fits the embedder."""

from __future__ import annotations

from provider.errors import ProviderError
from provider.store.catalogue import names
from provider.store.driver import Neo4jStore


class SchemaMismatchError(ProviderError):
    """The vector index was built for another embedding dimension."""

    code = "memory_unavailable"


def schema_statements() -> list[str]:
    """Schema files in the order they are applied."""
    return sorted(n for n in names() if n.startswith("schema_0"))


FIRST_SLOT_INDEX = "schema_009_record_embedding"


async def apply_schema(store: Neo4jStore, dimensions: int) -> None:
    """Creates what is missing; a second run changes nothing.

    After a model move the database records each vector slot's model, and the move made each live
    slot's index with its model's dimension: the configured model then decides no index, and the
    first slot's index is not made again once a move retired it.
    """
    state = await store.read("vector_state_read")
    retired_first = bool(state) and state[0]["model_embedding"] is None
    for name in schema_statements():
        if not (name == FIRST_SLOT_INDEX and retired_first):
            await store.write(name, dimensions=dimensions)
    if not state:
        await check_vector_dimension(store, dimensions)


async def check_vector_dimension(store: Neo4jStore, dimensions: int) -> None:
    """Refuses to start when the stored index and the model disagree (every search would fail)."""
    for row in await store.read("schema_indexes_read"):
        if row["name"] == "record_embedding" and row["dimensions"] not in (None, dimensions):
            raise SchemaMismatchError(
                f"The vector index holds {row['dimensions']}-dimensional embeddings but the model "
                f"produces {dimensions}; re-embed or drop the index record_embedding."
            )


async def rebuild_vector_index(store: Neo4jStore, dimensions: int) -> None:
    """Drops and recreates the vector index for a model of another dimension."""
    await store.write("schema_drop_record_embedding")
    await apply_schema(store, dimensions)
