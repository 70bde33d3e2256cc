"""The graph: records as nodes and their references as edges, as one reader may see them."""

from __future__ import annotations

from typing import Any

from provider import access
from provider.errors import RecordNotFoundError
from provider.models import Caller, GraphAnswer, GraphAsk, GraphEdge, GraphNode, Place, RecordRef
from provider.services.recall.ports import GraphStorage, RecallStorage
from provider.services.records.references import ReferenceResolver
from provider.services.tree.memories import TreeService


class GraphService:
    """Nodes only from the readable subtree; an edge into an unreadable memory says only the record id."""

    def __init__(
        self,
        tree: TreeService,
        graph: GraphStorage,
        recall: RecallStorage,
        references: ReferenceResolver,
        *,
        subtree_cap: int,
    ):
        self.references = references
        self.subtree_cap = subtree_cap
        self.tree = tree
        self.graph = graph
        self.recall = recall

    def capabilities(self) -> dict[str, Any]:
        """Entities are records the writer states; the graph is the references between records."""
        return {"graph": {"entities": "stated", "hops": 3}}

    async def read(self, caller: Caller, memory_id: str, ask: GraphAsk) -> GraphAnswer:
        """Nodes from the readable subtree, around a record or for all of it, and their references."""
        around, hops, types, limit = ask.around, ask.hops, ask.types, ask.limit
        reach = await self.tree.readable_scope(caller, memory_id, None)
        reach.require("read")
        scoped = access.scope_for(reach, None, self.subtree_cap)
        scope, degraded = scoped.memory_ids, scoped.degraded
        rows = await self.graph.nodes(scope, around, hops, types, limit + 1)
        if around is not None and not rows:
            raise RecordNotFoundError("No record with that id is in this memory or below it.", param="around")
        truncated = len(rows) > limit
        rows = rows[:limit]
        ids = [r.record_id for r in rows]
        versions = await self.recall.current(ids)
        reads = await self.references.for_reads(
            caller, [versions[i] for i in ids if i in versions], frozenset(reach.readable_scope())
        )
        names = {
            v.node.id: v.node.name for v in await self.tree.views(caller, sorted({r.memory_id for r in rows}))
        }
        edges = await self._edges(caller, ids)
        nodes = [
            GraphNode(read, Place(read.version.memory_id, names.get(read.version.memory_id, "")))
            for read in reads
        ]
        return GraphAnswer(nodes, edges, truncated, degraded)

    async def _edges(self, caller: Caller, ids: list[str]) -> list[GraphEdge]:
        held = await self.graph.edges(ids)
        readable = await self.references.readable(caller, {r.target_memory for r in held})
        return [
            GraphEdge(RecordRef(r.source, r.source_memory), RecordRef(r.target, r.target_memory), r.rel, True)
            if r.target_memory in readable
            else GraphEdge(RecordRef(r.source, r.source_memory), RecordRef(r.target), None, False)
            for r in held
        ]
