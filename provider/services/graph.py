"""The graph: records as nodes and their references as edges, as one reader may see them."""

from __future__ import annotations

from typing import Any

from provider.errors import MemoryInvalidError, RecordNotFoundError
from provider.models import Caller
from provider.services.records import RecordService
from provider.services.tree import TreeService
from provider.store.graph import Neo4jGraphStore
from provider.store.recall import Neo4jRecallStore

DEFAULT_LIMIT = 100
MAX_LIMIT = 1000


def _request(body: dict[str, Any]) -> tuple[str | None, int, list[str] | None, int]:
    around, hops, types, limit = (
        body.get("around"),
        body.get("hops", 1),
        body.get("types"),
        body.get("limit", DEFAULT_LIMIT),
    )
    if around is not None and not isinstance(around, str):
        raise MemoryInvalidError("around is a record id.", param="around")
    if isinstance(hops, bool) or not isinstance(hops, int) or not 0 <= hops <= 3:
        raise MemoryInvalidError("hops is an integer from 0 to 3.", param="hops")
    if types is not None and not (isinstance(types, list) and all(isinstance(t, str) for t in types)):
        raise MemoryInvalidError("types is a list of type names.", param="types")
    if isinstance(limit, bool) or not isinstance(limit, int) or not 1 <= limit <= MAX_LIMIT:
        raise MemoryInvalidError(f"limit is an integer from 1 to {MAX_LIMIT}.", param="limit")
    return around, hops, types, limit


class GraphService:
    """Nodes only from the readable subtree; an edge into an unreadable memory says only the record id."""

    def __init__(
        self, tree: TreeService, graph: Neo4jGraphStore, recall: Neo4jRecallStore, records: RecordService
    ):
        self.tree = tree
        self.graph = graph
        self.recall = recall
        self.records = records

    def capabilities(self) -> dict[str, Any]:
        """Entities are records the writer states; the graph is the references between records."""
        return {"graph": {"entities": "stated", "hops": 3}}

    async def read(self, caller: Caller, memory_id: str, body: dict[str, Any]) -> dict[str, Any]:
        """`MemoryGraph` as plain data (records already in wire shape are built by the API)."""
        around, hops, types, limit = _request(body)
        reach = await self.tree.readable_scope(caller, memory_id, None)
        reach.require("read")
        scope = reach.readable_scope()
        rows = await self.graph.nodes(scope, around, hops, types, limit + 1)
        if around is not None and not rows:
            raise RecordNotFoundError("No record with that id is in this memory or below it.", param="around")
        truncated = len(rows) > limit
        rows = rows[:limit]
        ids = [r["id"] for r in rows]
        versions = await self.recall.current(ids)
        reads = await self.records.references.for_reads(caller, [versions[i] for i in ids if i in versions])
        names = {
            v.node.id: v.node.name
            for v in await self.tree.views(caller, sorted({r["memory_id"] for r in rows}))
        }
        edges = await self._edges(caller, ids)
        return {
            "nodes": [
                (read, {"id": read.version.memory_id, "name": names.get(read.version.memory_id, "")})
                for read in reads
            ],
            "edges": edges,
            "truncated": truncated,
            "degraded": [],
        }

    async def _edges(self, caller: Caller, ids: list[str]) -> list[dict[str, Any]]:
        rows = await self.graph.edges(ids)
        readable = await self.records.references.readable(caller, {r["to_memory"] for r in rows})
        edges = []
        for row in rows:
            source = {"record_id": row["from_id"], "memory_id": row["from_memory"]}
            if row["to_memory"] in readable:
                edges.append(
                    {
                        "from": source,
                        "to": {"record_id": row["to_id"], "memory_id": row["to_memory"]},
                        "rel": row["rel"],
                        "available": True,
                    }
                )
            else:
                edges.append({"from": source, "to": {"record_id": row["to_id"]}, "available": False})
        return edges
