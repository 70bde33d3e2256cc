"""Which model embeds what: the question in the model of the slot recall reads, a write in every live one.

A move to another model (`python -m provider reembed --to`) fills a second vector slot while recall
keeps reading the first, then switches. Every process learns the slots from the database, at most
`refresh_seconds` late, so each recall embeds its question with the model of the slot it reads (its
cosines never mix two models), and each write fills every live slot (nothing written during a move
is missing after it). docs/MODELS.md tells the whole move.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Sequence
from typing import Protocol

from provider.embeddings import Embedder
from provider.errors import UnavailableError
from provider.models import Vectors, VectorState

Loader = Callable[[str], Embedder]
"""Builds and loads the embedder of a model by name (blocking: it runs in a worker thread)."""
Batching = Callable[[Embedder], Embedder]
"""Puts an embedder behind the batcher that shares its model calls (embeddings.BatchedEmbedder)."""


class VectorStateReads(Protocol):
    """The port: the deployment's recorded vector state (provider/store/vector_state.py)."""

    async def read(self) -> VectorState | None: ...


class VectorModels:
    """The configured embedder, any other model the database's slots name, and the slots themselves."""

    def __init__(
        self,
        state: VectorStateReads,
        configured: Embedder,
        configured_name: str,
        load: Loader | None = None,
        *,
        refresh_seconds: float,
        batching: Batching | None = None,
    ):
        self.state_store = state
        self.configured_name = configured_name
        self.load = load
        self.refresh_seconds = refresh_seconds
        self.batching: Batching = batching or (lambda embedder: embedder)
        self.embedders: dict[str, Embedder] = {configured_name: self.batching(configured)}
        self.unmoved = VectorState("embedding", {"embedding": configured_name})  # no move recorded
        self._state = self.unmoved
        self._read_at = float("-inf")
        self._loading = asyncio.Lock()

    async def state(self, *, fresh: bool = False) -> VectorState:
        """The slots as the database records them, read again once `refresh_seconds` have passed.

        `fresh` reads them now (the model-move command, which must not act on a stale view).
        """
        if fresh or time.monotonic() - self._read_at >= self.refresh_seconds:
            recorded = await self.state_store.read()
            self._state = recorded or self.unmoved
            self._read_at = time.monotonic()
        return self._state

    def forget_state(self) -> None:
        """The next call reads the slots again (after this process changed them)."""
        self._read_at = float("-inf")

    async def embedder(self, model: str) -> Embedder:
        """The embedder of `model`, loaded once, off the event loop."""
        if model in self.embedders:
            return self.embedders[model]
        async with self._loading:
            if model not in self.embedders:
                if self.load is None:
                    raise UnavailableError(f"This process cannot load the embedding model {model}.")
                try:
                    self.embedders[model] = self.batching(await asyncio.to_thread(self.load, model))
                except (OSError, ValueError, RuntimeError) as e:  # a fetch refused, a file missing
                    raise UnavailableError(
                        f"The database's embedding model {model} cannot be loaded here: {e}. "
                        f"Fetch it first: UHP_EMBEDDING_MODEL={model} python -m provider fetch-model."
                    ) from e
        return self.embedders[model]

    async def questions(self, texts: Sequence[str]) -> tuple[str, list[list[float]]]:
        """The slot recall reads, and the questions embedded with that slot's model."""
        state = await self.state()
        embedder = await self.embedder(state.active_model)
        return state.active, await embedder.embed_questions(texts)

    async def reading(self) -> str:
        """The slot recall reads."""
        return (await self.state()).active

    async def for_writes(self, texts: Sequence[str]) -> list[Vectors]:
        """Each text's vectors in every live slot (one while no move runs, two during and after one)."""
        state = await self.state()
        vectors: list[Vectors] = [{} for _ in texts]
        if not texts:
            return vectors
        for slot, model in state.models.items():
            embedder = await self.embedder(model)
            for text_vectors, vector in zip(vectors, await embedder.embed(texts), strict=True):
                text_vectors[slot] = vector
        return vectors

    async def one_for_write(self, text: str) -> Vectors | None:
        """One text's vectors; None when it has no words to embed."""
        return (await self.for_writes([text]))[0] if text.strip() else None
