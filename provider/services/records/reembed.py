"""Re-embedding one memory's records in the slot recall reads, in batches, with progress.

For a repair (records written without vectors, or by an older build); moving the whole deployment to
another model is `ModelMove` (provider/services/model_move.py), which readers never notice.
"""

from __future__ import annotations

import sys
import time
from typing import TextIO

from provider.models import Caller
from provider.services.records.ports import RecordStorage
from provider.services.tree.memories import TreeService
from provider.services.vectors import VectorModels


class Reembedder:
    """Pages through active records by id and writes new vectors; safe to stop and run again."""

    def __init__(
        self,
        tree: TreeService,
        records: RecordStorage,
        vectors: VectorModels,
        *,
        batch_size: int,
        progress: TextIO = sys.stderr,
    ):
        self.tree = tree
        self.records = records
        self.vectors = vectors
        self.batch_size = batch_size
        self.progress = progress

    async def run(self, caller: Caller, memory_id: str) -> int:
        """Needs write on the memory; returns how many records got new vectors."""
        await self.tree.require(caller, memory_id, "write")
        after, done, started = "", 0, time.monotonic()
        while True:
            page = await self.records.embedding_page(memory_id, after, self.batch_size)
            if not page:
                break
            state = await self.vectors.state()
            embedder = await self.vectors.embedder(state.active_model)
            worded = [row for row in page if row.words.strip()]
            vectors = await embedder.embed([row.words for row in worded]) if worded else []
            await self.records.set_embeddings(
                state.active,
                {row.record_id: vector for row, vector in zip(worded, vectors, strict=True)},
            )
            done += len(page)
            after = page[-1].record_id
            rate = done / max(time.monotonic() - started, 1e-6)
            self.progress.write(f"\rre-embedded {done} records ({rate:,.0f}/s)")
            self.progress.flush()
        self.progress.write("\n")
        return done
