"""What a merge of two people or companies reads and writes in Neo4j beyond plain record versions."""

from __future__ import annotations

import json
from typing import Any

from provider.models import EntityReferrer, Repoint, Writer
from provider.store.driver import Neo4jStore
from provider.store.usage import Charge, Neo4jUsageStore


def writer_properties(writer: Writer) -> dict[str, Any]:
    """A version's writer stamps, as `version_properties` keeps them."""
    return {
        "writer_kind": writer.kind,
        "writer_id": writer.id,
        "writer_type": writer.type,
        "writer_on_behalf_of": writer.on_behalf_of,
        "writer_consolidation_id": writer.consolidation_id,
    }


class Neo4jEntityStore:
    """The records that refer to an entity, and re-pointing them in batches logged to a run."""

    def __init__(self, store: Neo4jStore, usage: Neo4jUsageStore):
        """`usage` holds the quota counters its writes charge in the same transaction."""
        self.store = store
        self.usage = usage

    async def referrers(self, record_id: str) -> list[EntityReferrer]:
        """Active records referring to one, with their current version's references."""
        rows = await self.store.read("entity_referrers", id=record_id)
        return [
            EntityReferrer(row["id"], row["memory_id"], row["version"], json.loads(row["references_json"]))
            for row in rows
        ]

    async def repoint(self, run_id: str, rows: list[Repoint], writer: Writer, now: int) -> list[str]:
        """Appends to each row's record a version with the row's references; the ids of those written.

        Each new version copies its content, so its bytes are charged again, to the writer.
        """
        batch = [
            {
                "id": row.id,
                "expected": row.expected,
                "seq": row.seq,
                "references_json": json.dumps(row.references),
                "references": [
                    {"rel": ref["rel"], "record_id": ref["record_id"], "position": i}
                    for i, ref in enumerate(row.references)
                ],
            }
            for row in rows
        ]
        params = {"run_id": run_id, "rows": batch, "writer": writer_properties(writer), "payer": writer.payer}
        written = await self.usage.charged(
            "record_repoint",
            {**params, "now": now},
            lambda done: Charge.of_records(writer.payer, [(r["memory_id"], 0, r["bytes"]) for r in done]),
        )
        return [row["id"] for row in written]
