"""Re-embedding a memory's records after a model change, in batches, with progress."""

from __future__ import annotations

import sys
import time
from typing import TextIO

from provider.embeddings import Embedder
from provider.models import Caller
from provider.services.tree.memories import TreeService
from provider.store.records import Neo4jRecordStore


class Reembedder:
    """Pages through active records by id and writes new vectors; safe to stop and run again."""

    def __init__(
        self,
        tree: TreeService,
        records: Neo4jRecordStore,
        embedder: Embedder,
        *,
        batch_size: int = 256,
        progress: TextIO = sys.stderr,
    ):
        self.tree = tree
        self.records = records
        self.embedder = embedder
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
            texts = [row["words"] or "" for row in page]
            vectors = await self.embedder.embed(texts)
            await self.records.set_embeddings(
                [
                    {"id": row["id"], "embedding": vector}
                    for row, vector in zip(page, vectors, strict=True)
                    if (row["words"] or "").strip()
                ]
            )
            done += len(page)
            after = page[-1]["id"]
            rate = done / max(time.monotonic() - started, 1e-6)
            self.progress.write(f"\rre-embedded {done} records ({rate:,.0f}/s)")
            self.progress.flush()
        self.progress.write("\n")
        return done
