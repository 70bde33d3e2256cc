"""Named and free Cypher queries, run in a query sandbox that holds only what the caller may read.

Authorize (read on the memory), decide the readable scope exactly as recall does, gate the
statement, lease a sandbox holding the scope's copy at its current data version, EXPLAIN and run
there, then answer in recall's shape when the rows are records and as plain rows otherwise.
"""

from __future__ import annotations

import json
import logging
import re
import time
from collections import OrderedDict
from typing import Any

from provider import access, ids, metrics
from provider.config import QuerySettings
from provider.errors import MemoryInvalidError, MemoryUnsupportedError
from provider.models import (
    LANGUAGE,
    Caller,
    DataVersion,
    FreeQuery,
    NamedQuery,
    Place,
    QueryRows,
    RecallAnswer,
    RecallHit,
    ScopeVersion,
    Writer,
)
from provider.sandbox import load as sandbox_load
from provider.sandbox.client import SandboxResult
from provider.sandbox.pool import SandboxPool
from provider.services.queries.fence import written_by
from provider.services.queries.gate import StatementRefused, check_plan, check_statement
from provider.services.queries.named import (
    NamedQueryNotFoundError,
    QueryDefinition,
    check_language,
    definition_of,
)
from provider.services.queries.ports import NamedQueryStorage, ProjectionStorage, RecordReads
from provider.services.records.references import ReferenceResolver
from provider.services.schemas import params as params_schema
from provider.services.tree.memories import TreeService

log = logging.getLogger("provider.queries")
VETTED = 1024  # statement texts whose EXPLAIN passed the plan check, most recent kept


class QueryService:
    """Owns the sandbox pool; without one (`pool=None`) every query route answers memory_unsupported."""

    def __init__(
        self,
        tree: TreeService,
        stores: tuple[ProjectionStorage, NamedQueryStorage, RecordReads],
        references: ReferenceResolver,
        pool: SandboxPool | None,
        *,
        limits: QuerySettings,
        subtree_cap: int,
        gate: bool,
        prestart: bool,
    ):
        self.tree = tree
        self.projections, self.named, self.recall = stores
        self.references = references
        self.pool = pool
        self.limits = limits
        self.subtree_cap = subtree_cap
        # Off only in tests that show the sandbox alone confines a statement; never a setting.
        self.gate = gate
        self.prestart = prestart  # warm the sandbox at start rather than on the first query
        self._vetted: OrderedDict[str, None] = OrderedDict()

    def capabilities(self) -> dict[str, Any]:
        """Named queries and free Cypher need the sandbox; without it neither is declared."""
        if self.pool is None:
            return {"queries": {"named": False}}
        return {"queries": {"named": True, "free": {"languages": [LANGUAGE], "write": False}}}

    def start(self) -> None:
        """On prestart, warms the sandbox and the schema checks."""
        if self.pool is not None and self.prestart:
            self.pool.warm_in_background()
            params_schema.warm()

    async def trouble(self) -> str | None:
        """Why queries cannot run now (readiness); None when they can or are not offered at all."""
        return None if self.pool is None else await self.pool.trouble()

    async def close(self) -> None:
        """Forgets this service's copies in the sandbox."""
        if self.pool is not None:
            await self.pool.close()

    async def free(self, caller: Caller, memory_id: str, request: FreeQuery) -> RecallAnswer | QueryRows:
        """`POST /v1/memories/{id}/query`: read on the memory; runs within what the caller may read."""
        check_language(request.language)
        if request.write:
            raise MemoryUnsupportedError(
                "Free queries only read on this provider (queries.free.write is false).", param="write"
            )
        reach = await self.tree.readable_scope(caller, memory_id, request.depth)
        reach.require("read")
        return await self._run(
            caller, reach, request.statement, request.params, request.depth, request.max_staleness_ms
        )

    async def list_named(self, caller: Caller, memory_id: str) -> list[NamedQuery]:
        """The memory's named queries; needs read."""
        await self.tree.require(caller, memory_id, "read")
        self._require_sandbox()
        return await self.named.list(memory_id)

    async def define_named(
        self, caller: Caller, memory_id: str, name: str, asked: QueryDefinition
    ) -> NamedQuery:
        """Defines or replaces a named query; needs write; read-only Cypher, a params schema kept safe."""
        await self.tree.require(caller, memory_id, "write")
        self._require_sandbox()
        query = definition_of(memory_id, name, asked)
        await params_schema.checked_definition(query.params)
        stored = await self.named.put(
            memory_id=memory_id,
            name=name,
            description=query.description,
            body=query.body,
            params_json=json.dumps(query.params),
            written_by=caller.principal,
            now=ids.now_ms(),
        )
        if stored is None:
            await self.tree.require(caller, memory_id, "write")  # the memory vanished: 404 now
            raise NamedQueryNotFoundError("The memory is gone.", param="memory_id")
        return stored

    async def run_named(
        self, caller: Caller, memory_id: str, name: str, params: dict[str, Any]
    ) -> RecallAnswer | QueryRows:
        """Runs a named query with params checked against its schema, within what the caller may read."""
        reach = await self.tree.readable_scope(caller, memory_id, None)
        reach.require("read")
        self._require_sandbox()
        query = await self.named.get(memory_id, name)
        if query is None:
            raise NamedQueryNotFoundError("No named query with that name on this memory.", param="name")
        if query.requires != "read":
            raise MemoryUnsupportedError("A named query that needs write is not supported.", param="name")
        await params_schema.checked_params(query.params, params)
        return await self._run(caller, reach, query.body, params, None)

    async def _run(
        self,
        caller: Caller,
        reach: access.Reach,
        statement: str,
        params: dict[str, Any],
        depth: int | None,
        max_staleness_ms: int = 0,
    ) -> RecallAnswer | QueryRows:
        self._require_sandbox()
        plan_only, statement = plan_asked(statement)
        self._gate(statement)
        scope, degraded = self._scope(reach, depth)
        # Read after the question arrived: the copy answers with every write acknowledged before it,
        # unless the caller accepted `max_staleness_ms` (an erase or a narrower scope never waits on it:
        # either is a new key, so a new copy).
        version = await self.projections.version(scope)
        if version.records > self.limits.max_records:
            raise MemoryUnsupportedError(
                f"The scope holds more than {self.limits.max_records} records, more than a sandbox takes "
                "(UHP_QUERY_MAX_RECORDS).",
                detail={"records": version.records, "max_records": self.limits.max_records},
            )
        with metrics.SANDBOX_QUERIES.track_inprogress():
            result, writers, data = await self._in_sandbox(
                scope, version, statement, params, max_staleness_ms, plan_only
            )
        degraded += self._cuts(result)
        if result.record_ids:
            answer = await self._as_records(caller, scope, result.record_ids, degraded)
            answer.data = data
            return answer
        if writers is None:
            degraded.append("query:written_by_unknown")
        return QueryRows(result.columns, result.rows, writers or [[] for _ in result.rows], degraded, data)

    def _require_sandbox(self) -> None:
        if self.pool is None:
            raise MemoryUnsupportedError("This provider runs without a query sandbox, so it runs no queries.")

    def _gate(self, statement: str) -> None:
        if not self.gate:
            return
        try:
            check_statement(statement)
        except StatementRefused as e:
            raise _refusal(e) from e

    def _scope(self, reach: access.Reach, depth: int | None) -> tuple[list[str], list[str]]:
        """The scope recall would search, sorted: the copy's key does not depend on the tree's order."""
        scoped = access.scope_for(reach, depth, self.subtree_cap)
        return sorted(scoped.memory_ids), list(scoped.degraded)

    async def _in_sandbox(
        self,
        scope: list[str],
        version: ScopeVersion,
        statement: str,
        params: dict[str, Any],
        max_staleness_ms: int,
        plan_only: bool = False,
    ) -> tuple[SandboxResult, list[list[Writer]] | None, DataVersion]:
        """The statement's result, for rows who wrote their records (None: that timed out), the data.

        With `plan_only` (the caller asked `EXPLAIN`), the result is Neo4j's plan, one operator a row.
        """
        assert self.pool is not None
        limits = self.limits
        leased_at = time.perf_counter()
        lease = self.pool.lease(
            tuple(scope),
            version,
            lambda: sandbox_load.streamed(self.projections, scope, version.records),
            self.projections.changed,
            max_staleness_ms,
        )
        async with lease as sandbox:
            metrics.SANDBOX_SECONDS.labels(phase="lease").observe(time.perf_counter() - leased_at)
            if plan_only:
                plan = await sandbox.explain(statement, params, limits.timeout_ms)
                if self.gate:
                    try:
                        check_plan(plan)
                    except StatementRefused as e:
                        raise _refusal(e) from e
                rows: list[list[Any]] = [[name, details] for name, details in plan.operators]
                return SandboxResult(columns=list(PLAN_COLUMNS), rows=rows), [[] for _ in rows], sandbox.data
            if self.gate and statement not in self._vetted:
                try:
                    check_plan(await sandbox.explain(statement, params, limits.timeout_ms))
                except StatementRefused as e:
                    raise _refusal(e) from e
                self._vet(statement)
            with metrics.timed(metrics.SANDBOX_SECONDS, phase="run"):
                result = await sandbox.run(
                    statement,
                    params,
                    timeout_ms=limits.timeout_ms,
                    row_cap=limits.row_cap,
                    answer_bytes=limits.answer_bytes,
                )
            if result.record_ids or result.timed_out:
                return result, [], sandbox.data
            # Within the same lease: the writers come from the very copy the rows came from.
            return result, await written_by(sandbox, result.rows, limits.timeout_ms), sandbox.data

    def _vet(self, statement: str) -> None:
        """Remembers a text whose plan passed the check.

        What the check reads (the query type, the operators it refuses, the procedures called)
        follows from the text alone, not from the data or the params, so it need not plan again.
        """
        self._vetted[statement] = None
        self._vetted.move_to_end(statement)
        while len(self._vetted) > VETTED:
            self._vetted.popitem(last=False)

    def _cuts(self, result: SandboxResult) -> list[str]:
        cuts = [f"query:timeout_{self.limits.timeout_ms}ms"] if result.timed_out else []
        cuts += [f"query:rows_capped_at_{self.limits.row_cap}"] if result.capped else []
        if result.cut == "answer_bytes":
            cuts.append(f"query:answer_capped_at_{self.limits.answer_bytes}_bytes")
        elif result.cut is not None:
            cuts.append(f"query:{result.cut}_capped")
        return cuts

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
        results = [
            RecallHit(
                read, Place(read.version.memory_id, names.get(read.version.memory_id, "")), None, ["query"]
            )
            for read in reads
        ]
        return RecallAnswer(results=results, parent=None, children=[], degraded=degraded, abstain=False)


PLAN_COLUMNS = ("operator", "details")
_PLAN_PREFIX = re.compile(r"\A\s*(EXPLAIN|PROFILE)\b", re.IGNORECASE)


def plan_asked(statement: str) -> tuple[bool, str]:
    """Whether the statement asks `EXPLAIN` (its plan, run on nothing), and the statement behind it.

    `PROFILE` would run the statement and report what each operator cost, outside what the sandbox
    accounts for a statement's answer: it is refused, and `EXPLAIN` named instead.
    """
    found = _PLAN_PREFIX.match(statement)
    if found is None:
        return False, statement
    if found.group(1).upper() == "PROFILE":
        raise MemoryInvalidError(
            "PROFILE is not offered: ask EXPLAIN for the plan, and run the statement for its answer.",
            param="statement",
            detail={"cause": "profile"},
        )
    return True, statement[found.end() :]


def _refusal(refused: StatementRefused) -> MemoryInvalidError:
    return MemoryInvalidError(
        f"The statement is refused: queries may not use {refused.construct}.",
        param="statement",
        detail={"cause": "gate"},
    )
