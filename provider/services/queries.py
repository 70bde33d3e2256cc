"""Named and free Cypher queries, run in a query sandbox that holds only what the caller may read.

Authorize (read on the memory), decide the readable scope exactly as recall does, gate the
statement, lease a sandbox holding the scope's copy at its current data version, EXPLAIN and run
there, then answer in recall's shape when the rows are records and as plain rows otherwise.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from provider import access, ids
from provider.errors import MemoryInvalidError, MemoryUnsupportedError
from provider.models import Caller, ReadRecord, RecallAnswer
from provider.services.named_queries import (
    LANGUAGE,
    NamedQuery,
    NamedQueryNotFoundError,
    check_params,
    from_row,
    parse_definition,
)
from provider.services.query_gate import StatementRefused, check_plan, check_statement
from provider.services.references import ReferenceResolver
from provider.services.sandbox_pool import SandboxPool
from provider.services.tree import TreeService
from provider.store.named_queries import Neo4jNamedQueryStore
from provider.store.projection import Neo4jProjectionStore
from provider.store.recall import Neo4jRecallStore
from provider.store.sandbox import SandboxResult, SandboxStuckError


@dataclass
class QueryRows:
    """An answer that is not records: the columns and rows as the statement returned them."""

    columns: list[str]
    rows: list[list[Any]]
    degraded: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class QueryLimits:
    """Bounds on one statement and on the copy a sandbox takes."""

    timeout_ms: int = 2000
    row_cap: int = 1000
    subtree_cap: int = 5000
    max_records: int = 200_000


@dataclass(frozen=True)
class FreeQuery:
    """A checked `MemoryFreeQuery` body."""

    statement: str
    params: dict[str, Any]
    depth: int | None


def parse_free(body: dict[str, Any]) -> FreeQuery:
    """language cypher (the default), a statement, params an object, depth ≥ 0; `write` is refused."""
    language = body.get("language", LANGUAGE)
    if not isinstance(language, str) or language.lower() != LANGUAGE:
        raise MemoryInvalidError("This provider runs queries in cypher only.", param="language")
    if body.get("write") not in (None, False):
        raise MemoryUnsupportedError("Free queries only read on this provider (queries.free.write is false).", param="write")
    statement, params, depth = body.get("statement"), body.get("params") or {}, body.get("depth")
    if not isinstance(statement, str) or not statement.strip():
        raise MemoryInvalidError("statement is the Cypher to run.", param="statement")
    if not isinstance(params, dict):
        raise MemoryInvalidError("params is an object.", param="params")
    if depth is not None and (isinstance(depth, bool) or not isinstance(depth, int) or depth < 0):
        raise MemoryInvalidError("depth is an integer of 0 or more.", param="depth")
    return FreeQuery(statement, params, depth)


class QueryService:
    """Owns the sandbox pool; without one (`pool=None`) it defines and lists but runs nothing."""

    def __init__(
        self,
        tree: TreeService,
        stores: tuple[Neo4jProjectionStore, Neo4jNamedQueryStore, Neo4jRecallStore],
        references: ReferenceResolver,
        pool: SandboxPool | None,
        *,
        limits: QueryLimits | None = None,
        gate: bool = True,
    ):
        self.tree = tree
        self.projections, self.named, self.recall = stores
        self.references = references
        self.pool = pool
        self.limits = limits or QueryLimits()
        # Off only in tests that show the sandbox alone confines a statement; never a setting.
        self.gate = gate

    def capabilities(self) -> dict[str, Any]:
        """Named queries and free Cypher need the sandbox; without it neither is declared."""
        if self.pool is None:
            return {"queries": {"named": False}}
        return {"queries": {"named": True, "free": {"languages": [LANGUAGE], "write": False}}}

    def start(self) -> None:
        """Warms the pool in the background."""
        if self.pool is not None:
            self.pool.warm_in_background()

    async def close(self) -> None:
        """Stops the sandboxes."""
        if self.pool is not None:
            await self.pool.close()

    async def free(self, caller: Caller, memory_id: str, body: dict[str, Any]) -> RecallAnswer | QueryRows:
        """`POST /v1/memories/{id}/query`: read on the memory; runs within what the caller may read."""
        request = parse_free(body)
        reach = await self.tree.readable_scope(caller, memory_id, request.depth)
        reach.require("read")
        return await self._run(caller, reach, request.statement, request.params, request.depth)

    async def list_named(self, caller: Caller, memory_id: str) -> list[NamedQuery]:
        """The memory's named queries; needs read."""
        await self.tree.require(caller, memory_id, "read")
        return [from_row(row) for row in await self.named.list(memory_id)]

    async def define_named(self, caller: Caller, memory_id: str, name: str, body: dict[str, Any]) -> NamedQuery:
        """Defines or replaces a named query; needs write; read-only Cypher only."""
        await self.tree.require(caller, memory_id, "write")
        query = parse_definition(memory_id, name, body)
        row = await self.named.put(
            memory_id=memory_id,
            name=name,
            description=query.description,
            body=query.body,
            params_json=json.dumps(query.params),
            written_by=caller.principal,
            now=ids.now_ms(),
        )
        if row is None:
            await self.tree.require(caller, memory_id, "write")  # the memory vanished: 404 now
            raise NamedQueryNotFoundError("The memory is gone.", param="memory_id")
        return from_row(row)

    async def run_named(
        self, caller: Caller, memory_id: str, name: str, body: dict[str, Any]
    ) -> RecallAnswer | QueryRows:
        """Runs a named query with params checked against its schema, within what the caller may read."""
        reach = await self.tree.readable_scope(caller, memory_id, None)
        reach.require("read")
        row = await self.named.get(memory_id, name)
        if row is None:
            raise NamedQueryNotFoundError("No named query with that name on this memory.", param="name")
        query = from_row(row)
        if query.requires != "read":
            raise MemoryUnsupportedError("A named query that needs write is not supported.", param="name")
        params = check_params(query, body.get("params"))
        return await self._run(caller, reach, query.body, params, None)

    async def _run(
        self, caller: Caller, reach: access.Reach, statement: str, params: dict[str, Any], depth: int | None
    ) -> RecallAnswer | QueryRows:
        if self.pool is None:
            raise MemoryUnsupportedError("This provider runs without a query sandbox, so queries are not run.")
        self._gate(statement)
        scope, degraded = self._scope(reach, depth)
        version = await self.projections.fingerprint(scope)
        if version[2] > self.limits.max_records:
            raise MemoryUnsupportedError(
                f"The scope holds more than {self.limits.max_records} records, more than a query sandbox takes."
            )
        result = await self._in_sandbox(scope, version, statement, params)
        degraded += self._cuts(result)
        if result.record_ids:
            return await self._as_records(caller, scope, result.record_ids, degraded)
        return QueryRows(columns=result.columns, rows=result.rows, degraded=degraded)

    def _gate(self, statement: str) -> None:
        if not self.gate:
            return
        try:
            check_statement(statement)
        except StatementRefused as e:
            raise _refusal(e) from e

    def _scope(self, reach: access.Reach, depth: int | None) -> tuple[list[str], list[str]]:
        scope = sorted(reach.readable_scope()) if depth != 0 else [reach.memory_id]
        cap = self.limits.subtree_cap
        if len(scope) <= cap:
            return scope, []
        return scope[:cap], [f"subtree:capped_at_{cap}_memories"]

    async def _in_sandbox(
        self, scope: list[str], version: tuple[int, ...], statement: str, params: dict[str, Any]
    ) -> SandboxResult:
        assert self.pool is not None
        limits = self.limits
        try:
            async with self.pool.lease(tuple(scope), version, lambda: self.projections.read(scope)) as sandbox:
                if self.gate:
                    try:
                        check_plan(await sandbox.explain(statement, params, limits.timeout_ms))
                    except StatementRefused as e:
                        raise _refusal(e) from e
                return await sandbox.run(statement, params, timeout_ms=limits.timeout_ms, row_cap=limits.row_cap)
        except SandboxStuckError:
            return SandboxResult(columns=[], timed_out=True)

    def _cuts(self, result: SandboxResult) -> list[str]:
        cuts = [f"query:timeout_{self.limits.timeout_ms}ms"] if result.timed_out else []
        return cuts + ([f"query:rows_capped_at_{self.limits.row_cap}"] if result.capped else [])

    async def _as_records(
        self, caller: Caller, scope: list[str], record_ids: list[str], degraded: list[str]
    ) -> RecallAnswer:
        """Record nodes mapped back by id to the full current records, as the caller may read them."""
        wanted = list(dict.fromkeys(record_ids))
        versions = await self.recall.current(wanted)
        inside = set(scope)
        kept = [versions[i] for i in wanted if i in versions and versions[i].memory_id in inside]
        if len(kept) < len(wanted):
            degraded.append("query:records_changed")
        reads = await self.references.for_reads(caller, kept)
        views = await self.tree.views(caller, sorted({v.memory_id for v in kept}))
        names = {v.node.id: v.node.name for v in views}
        results: list[tuple[ReadRecord, dict[str, str], float | None, list[str]]] = [
            (read, {"id": read.version.memory_id, "name": names.get(read.version.memory_id, "")}, None, ["query"])
            for read in reads
        ]
        return RecallAnswer(results=results, parent=None, children=[], degraded=degraded, abstain=False)


def _refusal(refused: StatementRefused) -> MemoryInvalidError:
    return MemoryInvalidError(
        f"The statement is refused: {refused.construct} is not allowed in a query.",
        param="statement",
        detail={"cause": "gate"},
    )
