"""One query sandbox: a second Neo4j server that holds a copy of one caller's readable scope, no more.

The sandbox is a separate process on loopback with its own random password (none of the main
database's credentials ever reach it), no file access for LOAD CSV, no query log, and a store
restored from a pristine template before it holds another scope. Callers' statements run in READ
transactions with a time limit; their rows leave as plain values, their errors as fixed messages.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import neo4j
from neo4j import READ_ACCESS, AsyncDriver, AsyncGraphDatabase
from neo4j.exceptions import DriverError, Neo4jError

from provider.errors import MemoryInvalidError, UnavailableError
from provider.store import local_server, sandbox_copy, sandbox_template
from provider.store.catalogue import statement
from provider.store.driver import Neo4jStore
from provider.store.projection import Projection
from provider.store.sandbox_values import is_timeout, plain, record_id, sandbox_error

DATABASE = "neo4j"
log = logging.getLogger("provider.sandbox")
HELD_RECORDS = 50_000
CLEAR_BATCH = 10_000
# How long past its own time limit a statement may keep the client waiting before the sandbox is
# judged stuck (an expression Neo4j cannot interrupt, such as a reduce() over a huge range).
GRACE_SECONDS = 3.0
# After a reset the JVM's code is compiled already; the new server only has to plan the statements.
WARM_UP_PLAN_RECORDS = 200


class SandboxStuckError(Exception):
    """A statement outlived its time limit and the server did not stop it: the process must go."""


@dataclass(frozen=True)
class Plan:
    """What EXPLAIN says of a statement: its type ('r' reads only) and its operators."""

    query_type: str
    operators: list[tuple[str, str]]


@dataclass
class SandboxResult:
    """A statement's answer: plain rows, whether every value was a Record node, and what was cut."""

    columns: list[str]
    rows: list[list[Any]] = field(default_factory=list)
    record_ids: list[str] | None = None
    timed_out: bool = False
    capped: bool = False


def _operators(plan: Mapping[str, Any] | None) -> list[tuple[str, str]]:
    """The plan's operators, depth first, as (name without the @database suffix, details)."""
    if not plan:
        return []
    name = str(plan.get("operatorType", "")).split("@")[0]
    details = str((plan.get("args") or {}).get("Details", ""))
    found = [(name, details)]
    for child in plan.get("children") or []:
        found += _operators(child)
    return found


def _records_of(rows: list[list[Any]]) -> list[str] | None:
    """Record ids when every value of every row is a Record node, in row order, else None."""
    ids = [record_id(v) for row in rows for v in row]
    if not ids or any(i is None for i in ids):
        return None
    return [i for i in ids if i is not None]


class SandboxServer:
    """A sandbox process in its own home; started from the template, reset to it on demand."""

    def __init__(
        self,
        home: Path,
        template: Path,
        *,
        heap: str,
        pagecache: str,
        runner: local_server.Host | None = None,
    ):
        self.home = home
        self.template = template
        self.runner = runner
        self.heap = heap
        self.pagecache = pagecache
        self.driver: AsyncDriver | None = None
        self.held: Projection | None = None

    async def start(self, *, reset: bool = True) -> None:
        """Puts the sandbox on a pristine copy of the template: in its running JVM when it can.

        A host (UhpSandboxHost) restarts Neo4j inside its JVM in about a second, with the code the
        JVM compiled kept; without one, or with `reset` False (a broken sandbox), the process restarts.
        """
        self.held = None
        running = self.driver is not None
        await self._disconnect()
        server = await self._reset() if reset and running else None
        if server is None:
            server = await self._launch()
        self._connect(server)
        await self._store().read("sandbox_collector_stop")
        await self._warm_up()

    async def stop(self) -> None:
        """Stops the process (killed when it does not stop within seconds), then drops the driver."""
        # The process first: a connection held by a stuck statement would not close politely.
        await asyncio.to_thread(local_server.stop, self.home, 5)
        await self._disconnect()

    async def _launch(self) -> local_server.LocalServer:
        """A new process on the template; under a host, warmed with committed writes, then reset."""
        await self.stop()
        try:
            server = await asyncio.to_thread(
                sandbox_template.start_pristine,
                self.home,
                self.template,
                heap=self.heap,
                pagecache=self.pagecache,
                runner=self.runner,
            )
        except local_server.LocalNeo4jError as e:
            log.error("query sandbox in %s did not start: %s", self.home, e)
            raise UnavailableError("The query sandbox could not be started.") from e
        if self.runner is None:
            return server
        # A rolled-back warm-up leaves the commit path cold; here the writes commit, and the reset
        # that follows puts the template back, so nothing of them stays but compiled code.
        self._connect(server)
        await sandbox_copy.write_copy(self._writer(), sandbox_copy.warm_up_projection())
        await self._disconnect()
        again = await self._reset()
        if again is None:
            raise UnavailableError("The query sandbox could not be started.")
        return again

    async def _reset(self) -> local_server.LocalServer | None:
        """The template put back under the running host, or None when that is not possible."""
        if self.runner is None:
            return None
        try:
            return await asyncio.to_thread(sandbox_template.reset, self.home, self.template)
        except local_server.LocalNeo4jError as e:
            log.warning("query sandbox in %s did not reset in place (%s); restarting it", self.home, e)
            return None

    def _connect(self, server: local_server.LocalServer) -> None:
        self.driver = AsyncGraphDatabase.driver(
            server.uri,
            auth=(server.user, server.password),
            notifications_min_severity="OFF",
            max_connection_pool_size=4,
            connection_timeout=5.0,
            connection_acquisition_timeout=10.0,
        )

    async def _disconnect(self) -> None:
        if self.driver is not None:
            driver, self.driver = self.driver, None
            await driver.close()

    def _store(self) -> Neo4jStore:
        if self.driver is None:
            raise UnavailableError("The query sandbox is not running.")
        return Neo4jStore(self.driver, DATABASE)

    async def clear(self) -> None:
        """Deletes everything, batch by batch (another copy is about to be loaded)."""
        self.held = None
        store = self._store()
        while (await store.write("sandbox_clear", batch=CLEAR_BATCH))[0]["deleted"]:
            pass

    async def load(self, projection: Projection) -> None:
        """Writes a whole copy into the empty sandbox, in the fixed order of sandbox_copy."""
        self.held = None
        await sandbox_copy.write_copy(self._writer(), projection)
        await self._store().read("sandbox_words_refresh")
        self._hold(projection)

    async def refresh(self, projection: Projection) -> None:
        """Brings the held copy of a scope up to a newer copy of it: by difference when it can."""
        held, self.held = self.held, None  # unknown until the difference is written
        diff = sandbox_copy.difference(held, projection) if held is not None else None
        if diff is None:
            await self.clear()
            await self.load(projection)
            return
        await sandbox_copy.write_difference(self._writer(), diff, projection)
        await self._store().read("sandbox_words_refresh")
        self._hold(projection)

    def _hold(self, projection: Projection) -> None:
        # Kept for the next difference; a very large copy is reloaded instead of held in memory.
        self.held = projection if len(projection.records) <= HELD_RECORDS else None

    def _writer(self) -> sandbox_copy.Write:
        store = self._store()

        async def write(name: str, params: dict[str, Any]) -> None:
            await store.write(name, **params)

        return write

    async def _warm_up(self) -> None:
        """Runs the load and a few reads once on synthetic data in a transaction that is rolled back.

        A new server plans slowly, and a fresh JVM compiles slowly too; this moves that cost to the
        start. Under a host the JVM has compiled the load already, so a few records plan it. The
        rollback leaves the store as the template made it (internal ids are not consumed); the only
        trace is the fixed set of token names every copy uses anyway, the same in every sandbox.
        """
        if self.driver is None:
            return
        records = sandbox_copy.WARM_UP_RECORDS if self.runner is None else WARM_UP_PLAN_RECORDS
        async with self.driver.session(database=DATABASE) as session:
            tx = await session.begin_transaction()
            try:

                async def write(name: str, params: dict[str, Any]) -> None:
                    await (await tx.run(statement(name), params)).consume()

                await sandbox_copy.write_copy(write, sandbox_copy.warm_up_projection(records))
                for text in sandbox_copy.WARM_UP_READS:
                    await (await tx.run("EXPLAIN " + text, {"value": 1})).consume()
                    await (await tx.run(text, {"value": 1})).consume()
            finally:
                await tx.rollback()

    async def explain(self, text: str, params: Mapping[str, Any], timeout_ms: int) -> Plan:
        """Neo4j's own parse and plan of the statement, in the sandbox, executing nothing."""

        async def work(session: neo4j.AsyncSession) -> Plan:
            tx = await session.begin_transaction(timeout=timeout_ms / 1000)
            try:
                summary = await (await tx.run("EXPLAIN " + text, dict(params))).consume()
            finally:
                await tx.close()
            return Plan(query_type=str(summary.query_type or ""), operators=_operators(summary.plan))

        try:
            plan: Plan = await self._guarded(work, timeout_ms)
        except _TimedOut as e:
            raise MemoryInvalidError(
                "The statement took too long to plan.", param="statement", detail={"cause": "plan"}
            ) from e
        return plan

    async def run(
        self, text: str, params: Mapping[str, Any], *, timeout_ms: int, row_cap: int
    ) -> SandboxResult:
        """The caller's statement in a READ transaction with a time limit; at most `row_cap` rows kept."""

        async def work(session: neo4j.AsyncSession) -> SandboxResult:
            tx = await session.begin_transaction(timeout=timeout_ms / 1000)
            try:
                # The caller's own text, on purpose: confinement is the sandbox, not the statement.
                result = await tx.run(text, dict(params))
                answer = SandboxResult(columns=list(result.keys()))
                raw: list[list[Any]] = []
                async for record in result:
                    if len(raw) == row_cap:
                        answer.capped = True
                        break
                    raw.append(list(record.values()))
            finally:
                await tx.close()
            answer.record_ids = _records_of(raw)
            answer.rows = [[plain(v) for v in row] for row in raw]
            return answer

        try:
            answer: SandboxResult = await self._guarded(work, timeout_ms)
        except _TimedOut:
            return SandboxResult(columns=[], timed_out=True)
        return answer

    async def _guarded(self, work: Any, timeout_ms: int) -> Any:
        """Runs `work` in a READ session; Neo4j errors become fixed errors, a stuck server an exception."""
        if self.driver is None:
            raise UnavailableError("The query sandbox is not running.")
        driver = self.driver

        async def in_session() -> Any:
            async with driver.session(database=DATABASE, default_access_mode=READ_ACCESS) as session:
                return await work(session)

        try:
            # The deadline covers closing the session too: a busy server would not answer its rollback.
            return await asyncio.wait_for(in_session(), timeout_ms / 1000 + GRACE_SECONDS)
        except TimeoutError as e:
            raise SandboxStuckError from e
        except Neo4jError as e:
            if is_timeout(e.code):
                raise _TimedOut from e
            raise sandbox_error(e.code, e.gql_status) from e
        except DriverError as e:
            raise UnavailableError("The query sandbox cannot be reached right now.") from e


class _TimedOut(Exception):
    """The server cut the transaction at its time limit."""
