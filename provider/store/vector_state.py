"""The vector slots in Neo4j: which one recall reads, which model fills each, and the move between them."""

from __future__ import annotations

from provider.ids import now_ms
from provider.models import IndexState, SlotFill, SlotGap, VectorState
from provider.store.driver import Neo4jStore
from provider.store.schema import FIRST_SLOT_INDEX


class Neo4jVectorStateStore:
    """Reads and writes the one `VectorState` node, and pages through what a move still has to fill."""

    def __init__(self, store: Neo4jStore):
        self.store = store

    async def read(self) -> VectorState | None:
        """The recorded slots; None on a database no move has touched."""
        rows = await self.store.read("vector_state_read")
        if not rows:
            return None
        row = rows[0]
        models = {
            slot: str(row[f"model_{slot}"])
            for slot in ("embedding", "embedding_b")
            if row[f"model_{slot}"] is not None
        }
        return VectorState(str(row["active"]), models, row["filling"], recorded=True)

    async def write(self, state: VectorState) -> None:
        await self.store.write(
            "vector_state_write",
            active=state.active,
            model_embedding=state.models.get("embedding"),
            model_embedding_b=state.models.get("embedding_b"),
            filling=state.filling,
            now=now_ms(),
        )

    async def fill_page(self, source: str, target: str, after: str, limit: int) -> list[SlotGap]:
        """A page of records by id, each with its versions that hold `source` but not `target`."""
        rows = await self.store.read(
            "vector_fill_page", source=source, target=target, after=after, limit=limit
        )
        return [
            SlotGap(
                record_id=str(r["id"]),
                words={int(v["version"]): v["words"] or "" for v in r["versions"]},
                record_missing=bool(r["record_missing"]),
            )
            for r in rows
        ]

    async def fill(self, source: str, target: str, fills: list[SlotFill]) -> int:
        """Writes target vectors on versions, and each record's current one on the record."""
        rows = [
            {"id": f.record_id, "vectors": [{"version": n, "vector": v} for n, v in f.vectors.items()]}
            for f in fills
        ]
        result = await self.store.write("vector_fill_set", source=source, target=target, rows=rows)
        return int(result[0]["filled"]) if result else 0

    async def missing(self, source: str, target: str) -> int:
        """Records and versions that still lack the target slot."""
        return int((await self.store.read("vector_fill_missing", source=source, target=target))[0]["missing"])

    async def clear(self, slot: str, limit: int) -> int:
        """Removes one batch of a slot's vectors; 0 once the slot is empty."""
        return int((await self.store.write("vector_slot_clear", slot=slot, limit=limit))[0]["cleared"])

    async def create_index(self, slot: str, dimensions: int) -> None:
        await self.store.write(
            FIRST_SLOT_INDEX if slot == "embedding" else "vector_index_create_b",
            dimensions=dimensions,
        )

    async def drop_index(self, slot: str) -> None:
        await self.store.write(
            "schema_drop_record_embedding" if slot == "embedding" else "vector_index_drop_b"
        )

    async def index_states(self) -> dict[str, IndexState]:
        """Each vector index's state (ONLINE, POPULATING) and dimension, by index name."""
        rows = await self.store.read("schema_indexes_read")
        return {str(r["name"]): IndexState(str(r["state"]), r["dimensions"]) for r in rows}
