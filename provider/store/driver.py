"""One long-lived async driver and managed transactions that retry; driver errors become ours.

Every transaction carries a timeout, so a slow statement ends with an answer instead of holding a
request (and its locks) open: Neo4j stops it server-side, whatever the client does. Every wait on the
client side is bounded too (`Patience`), so while Neo4j is away a request answers 503 within a known
time, and the pool reconnects by itself when Neo4j is back.
"""

from __future__ import annotations

import asyncio
import random
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from contextlib import asynccontextmanager
from dataclasses import dataclass, replace
from typing import Any, TypeVar
from urllib.parse import urlsplit

import neo4j
from neo4j import AsyncDriver, AsyncGraphDatabase, AsyncManagedTransaction, Bookmarks
from neo4j.exceptions import (
    ClientError,
    DatabaseUnavailable,
    DriverError,
    Neo4jError,
    NotALeader,
    ServiceUnavailable,
    SessionExpired,
)

from provider import causality, metrics, tracing
from provider.config import Neo4jSettings, Settings
from provider.errors import InvalidInputError, InvalidRequestError, UnavailableError
from provider.store.catalogue import statement

Row = dict[str, Any]
R = TypeVar("R")
Work = Callable[[AsyncManagedTransaction], Awaitable[R]]

DEFAULT_TIMEOUT_MS = 10_000
DEFAULT_BULK_TIMEOUT_MS = 120_000

# Statements whose work grows with a whole memory or scope rather than with one request: batched
# deletes, bulk imports and re-embedding, erase, a scope's copy for the query sandbox, schema changes
# (the grant slot fill walks every grant once, the usage fill every version).
BULK_STATEMENTS = frozenset(
    {
        "memory_delete",
        "memory_delete_batch",
        "record_create_many",
        "archive_records_page",
        "restore_records",
        "restore_existing",
        "restore_references",
        "record_embedding_page",
        "record_embedding_set",
        "record_erase",
        "record_erase_named",
        "record_erase_derived",
        "projection_version",
        "projection_changed",
        "projection_memories",
        "projection_records_page",
        "projection_records_at",
        "schema_023_grant_slot_fill",
        "schema_029_usage_fill",
        "vector_fill_page",
        "vector_fill_set",
        "vector_fill_missing",
        "vector_slot_clear",
    }
)

# Neo4j's codes for a transaction it stopped at its timeout (a lock wait ends as LockClientStopped).
TIMED_OUT = (
    "Neo.ClientError.Transaction.TransactionTimedOut",
    "Neo.ClientError.Transaction.LockClientStopped",
)
# A node this transaction read was deleted by one that committed meanwhile: run again on what is there.
RACED = "Neo.ClientError.Statement.EntityNotFound"
# A bookmark the database cannot read (a client's UHP-Bookmark header made up, or from another DBMS).
INVALID_BOOKMARK = "Neo.ClientError.Transaction.InvalidBookmark"
CONSTRAINT = "Neo.ClientError.Schema.ConstraintValidationFailed"

# Waits between attempts: doubling from FIRST_DELAY_S to MAX_DELAY_S, each shaken by +-20 %, so
# transactions that deadlocked on each other do not collide again in step.
FIRST_DELAY_S = 0.05
MAX_DELAY_S = 1.0
# Past its transaction timeout and a connection's acquisition, an attempt gets this long for Neo4j's
# timeout monitor (it looks every 2 s) and the network, before the client gives up on it.
ATTEMPT_GRACE_S = 3.0


@dataclass(frozen=True)
class Patience:
    """How long the store waits on Neo4j; the settings of docs/OPERATIONS.md "When Neo4j is away".

    Two retry budgets, because the two failures want opposite things: while Neo4j cannot be reached a
    quick 503 serves the caller better than a long wait, while a deadlock or a write racing another one
    clears in milliseconds and is worth retrying for longer.
    """

    connection_timeout_s: float
    acquisition_timeout_s: float
    liveness_check_s: float
    unreachable_retry_s: float
    transient_retry_s: float

    @classmethod
    def of(cls, neo4j: Neo4jSettings) -> Patience:
        """The UHP_NEO4J_* waits, in seconds."""
        return cls(
            connection_timeout_s=neo4j.connection_timeout_ms / 1000,
            acquisition_timeout_s=neo4j.acquisition_timeout_ms / 1000,
            liveness_check_s=neo4j.liveness_check_ms / 1000,
            unreachable_retry_s=neo4j.unreachable_retry_ms / 1000,
            transient_retry_s=neo4j.transient_retry_ms / 1000,
        )

    def budget_for(self, error: Exception) -> float | None:
        """How long a transaction that failed so may be retried; None: not at all."""
        if isinstance(error, ClientError):
            return self.transient_retry_s if error.code == RACED else None
        if not isinstance(error, DriverError | Neo4jError) or not error.is_retryable():
            return None  # IncompleteCommit among them: the write may have happened
        if isinstance(error, ServiceUnavailable | SessionExpired | DatabaseUnavailable | NotALeader):
            return self.unreachable_retry_s
        return self.transient_retry_s

    def attempt_bound_s(self, timeout_s: float | None) -> float | None:
        """The most one attempt may take on the client side (None when its transaction is unbounded)."""
        return None if timeout_s is None else timeout_s + self.acquisition_timeout_s + ATTEMPT_GRACE_S

    def once(self) -> Patience:
        """The same bounds without a retry."""
        return replace(self, unreachable_retry_s=0, transient_retry_s=0)


# The defaults of the settings (no variable read): a store connected without settings waits as one with.
PATIENT = Patience.of(Neo4jSettings.model_construct())


def server_of(uri: str) -> tuple[str, int] | None:
    """The host and port a bolt or neo4j URI names (7687 when it names none), for spans."""
    parts = urlsplit(uri)
    return None if parts.hostname is None else (parts.hostname, parts.port or 7687)


class ConflictingWriteError(UnavailableError):
    """A write broke a uniqueness constraint, so another one got there first; the store may run it again."""


class BoundedSession:
    """A session whose every transaction has a timeout: the work's own, else the bulk bound.

    Work that names no timeout comes from outside `Neo4jStore.read/write` (a store reading a whole
    scope through `_session`), so it gets the longer bound rather than none. The driver tries each
    transaction once (the session's own retry time is 0); this class retries it within the budget
    `Patience` gives the failure, and gives up on an attempt Neo4j stopped answering.
    """

    def __init__(self, session: neo4j.AsyncSession, fallback_s: float | None, patience: Patience = PATIENT):
        self.session = session
        self.fallback_s = fallback_s
        self.patience = patience
        self.wrote = False

    def _bounded(self, work: Work[R]) -> Work[R]:
        if getattr(work, "timeout", None) is not None or self.fallback_s is None:
            return work

        @neo4j.unit_of_work(timeout=self.fallback_s, metadata=getattr(work, "metadata", None))
        async def bounded(tx: AsyncManagedTransaction) -> R:
            return await work(tx)

        return bounded

    async def execute_read(self, work: Work[R]) -> R:
        """A read transaction, retried on transient errors, bounded in time."""
        return await self._retrying(self.session.execute_read, work)

    async def execute_write(self, work: Work[R]) -> R:
        """A write transaction, retried on transient errors, bounded in time."""
        answer = await self._retrying(self.session.execute_write, work)
        self.wrote = True
        return answer

    async def _retrying(self, execute: Callable[[Work[R]], Awaitable[R]], work: Work[R]) -> R:
        bounded = self._bounded(work)
        bound = self.patience.attempt_bound_s(getattr(bounded, "timeout", None))
        started, delay = time.monotonic(), FIRST_DELAY_S
        while True:
            try:
                async with asyncio.timeout(bound):
                    return await execute(bounded)
            except TimeoutError as e:
                # Cancelled, the driver drops the connection; the write may or may not have committed,
                # so it is not run again: the caller hears 503 and may retry (with an Idempotency-Key).
                raise UnavailableError(
                    "The memory store stopped answering; try again.", detail={"waited_s": bound}
                ) from e
            except (DriverError, Neo4jError) as e:
                budget = self.patience.budget_for(e)
                left = -1.0 if budget is None else started + budget - time.monotonic()
                if left <= 0:
                    raise
            await asyncio.sleep(min(left, delay * random.uniform(0.8, 1.2)))
            delay = min(delay * 2, MAX_DELAY_S)


Followed = tuple[Callable[[list[Row]], tuple[str, Mapping[str, Any]] | None], Callable[[list[Row]], None]]
"""A statement made of a write's rows, run in the same transaction, and the judge of its rows."""


class Neo4jStore:
    """Runs named statements in managed transactions; transaction metadata names the file.

    `timeout_ms` bounds each transaction, `bulk_timeout_ms` those running a BULK_STATEMENTS one;
    None leaves them unbounded (the query sandbox's own store, which bounds its calls itself).

    `causal` (the main database): every session shares one bookmark manager, so a read anywhere in the
    process starts after every write the process committed (on a cluster, a follower waits until it
    has them), and also after the bookmarks the request came with (`provider.causality`); after a
    write the request is told the bookmarks to give its client. The sandboxes' stores are not causal:
    a bookmark of the main database means nothing to them.
    """

    def __init__(
        self,
        driver: AsyncDriver,
        database: str,
        *,
        timeout_ms: int | None = None,
        bulk_timeout_ms: int | None = None,
        patience: Patience = PATIENT,
        causal: bool = False,
        server: tuple[str, int] | None = None,
    ):
        self.driver = driver
        self.database = database
        # What every statement's span says of where it ran: never a statement's text or parameters.
        self.span_attributes: dict[str, str | int] = {"db.system.name": "neo4j", "db.namespace": database}
        if server is not None:
            self.span_attributes.update({"server.address": server[0], "server.port": server[1]})
        self.timeout_ms = timeout_ms
        self.bulk_timeout_ms = bulk_timeout_ms if bulk_timeout_ms is not None else timeout_ms
        self.patience = patience
        self.bookmarks = AsyncGraphDatabase.bookmark_manager() if causal else None

    @classmethod
    def connect(
        cls,
        uri: str,
        user: str,
        password: str,
        database: str,
        *,
        timeout_ms: int = DEFAULT_TIMEOUT_MS,
        bulk_timeout_ms: int = DEFAULT_BULK_TIMEOUT_MS,
        patience: Patience = PATIENT,
    ) -> Neo4jStore:
        """Builds the driver; nothing is sent until the first query.

        The driver's own retry time is 0 (BoundedSession retries, with a budget per kind of failure);
        an idle pooled connection is probed before use, so one Neo4j dropped while away is replaced
        instead of failing a transaction.
        """
        driver = AsyncGraphDatabase.driver(
            uri,
            auth=(user, password),
            max_connection_pool_size=50,
            notifications_min_severity="OFF",
            connection_timeout=patience.connection_timeout_s,
            connection_acquisition_timeout=patience.acquisition_timeout_s,
            liveness_check_timeout=patience.liveness_check_s,
            max_transaction_retry_time=0,
        )
        return cls(
            driver,
            database,
            timeout_ms=timeout_ms,
            bulk_timeout_ms=bulk_timeout_ms,
            patience=patience,
            causal=True,
            server=server_of(uri),
        )

    @classmethod
    def from_settings(cls, settings: Settings) -> Neo4jStore:
        """The main database, bounded by UHP_STATEMENT_TIMEOUT_MS and UHP_BULK_STATEMENT_TIMEOUT_MS."""
        return cls.connect(
            settings.neo4j.uri,
            settings.neo4j.user,
            settings.neo4j.password.get_secret_value(),
            settings.neo4j.database,
            timeout_ms=settings.statement_timeout_ms,
            bulk_timeout_ms=settings.bulk_statement_timeout_ms,
            patience=Patience.of(settings.neo4j),
        )

    async def close(self) -> None:
        """Closes the pool on shutdown."""
        await self.driver.close()

    def timeout_s(self, statement_name: str) -> float | None:
        """The bound on a transaction running this statement, in seconds (None: unbounded)."""
        bound = self.bulk_timeout_ms if statement_name in BULK_STATEMENTS else self.timeout_ms
        return None if bound is None else bound / 1000

    async def read(self, statement_name: str, /, **params: Any) -> list[Row]:
        """Runs one named statement in a read transaction."""
        return await self._run(statement_name, params, write=False)

    async def read_once(self, statement_name: str, /, **params: Any) -> list[Row]:
        """A read tried once, never retried: for probes that must answer now."""
        return await self._run(statement_name, params, write=False, patience=self.patience.once())

    async def write(self, statement_name: str, /, **params: Any) -> list[Row]:
        """Runs one named statement in a write transaction."""
        return await self._run(statement_name, params, write=True)

    async def read_values(self, statement_name: str, /, **params: Any) -> list[list[Any]]:
        """A read whose rows come back as lists of values, for answers too large to walk twice.

        `Record.data()` re-walks every nested value; for a scope's records in one list that costs
        more than reading them did.
        """
        query = statement(statement_name)

        @neo4j.unit_of_work(timeout=self.timeout_s(statement_name), metadata={"statement": statement_name})
        async def work(tx: AsyncManagedTransaction) -> list[list[Any]]:
            return [record.values() async for record in await tx.run(query, params)]

        with (
            tracing.statement(statement_name, self.span_attributes, write=False),
            metrics.timed(metrics.NEO4J_SECONDS, statement=statement_name, access="read"),
        ):
            async with self._session() as session:
                return await session.execute_read(work)

    async def write_then(
        self,
        first: tuple[str, Mapping[str, Any]],
        then: Callable[[list[Row]], tuple[str, Mapping[str, Any]] | None],
        judge: Callable[[list[Row]], None],
    ) -> list[Row]:
        """A write, then the statement `then` makes of its rows (if any), in one transaction.

        Returns the first statement's rows.

        `judge` reads the second statement's rows and may raise: the transaction is then rolled back, so
        neither write is kept (a usage charge past a quota takes its write with it).
        """
        return await self._run(first[0], first[1], write=True, then=(then, judge))

    async def _run(
        self,
        name: str,
        params: Mapping[str, Any],
        *,
        write: bool,
        patience: Patience | None = None,
        then: Followed | None = None,
    ) -> list[Row]:
        query = statement(name)

        @neo4j.unit_of_work(timeout=self.timeout_s(name), metadata={"statement": name})
        async def work(tx: AsyncManagedTransaction) -> list[Row]:
            result = await tx.run(query, dict(params))
            rows = [record.data() async for record in result]
            step = then[0](rows) if then is not None else None
            if then is not None and step is not None:
                followed = await tx.run(statement(step[0]), dict(step[1]))
                then[1]([record.data() async for record in followed])
            return rows

        with (
            tracing.statement(name, self.span_attributes, write=write),
            metrics.timed(metrics.NEO4J_SECONDS, statement=name, access="write" if write else "read"),
        ):
            try:
                async with self._session(patience) as session:
                    if write:
                        return await session.execute_write(work)
                    return await session.execute_read(work)
            except Exception:
                metrics.NEO4J_FAILURES.labels(statement=name).inc()
                raise

    @asynccontextmanager
    async def _session(self, patience: Patience | None = None) -> AsyncIterator[BoundedSession]:
        fallback = None if self.bulk_timeout_ms is None else self.bulk_timeout_ms / 1000
        seen = causality.current() if self.bookmarks is not None else None
        try:
            async with self.driver.session(
                database=self.database,
                max_transaction_retry_time=0,
                bookmark_manager=self.bookmarks,
                bookmarks=Bookmarks.from_raw_values(seen.bookmarks) if seen and seen.bookmarks else None,
            ) as session:
                bounded = BoundedSession(session, fallback, patience or self.patience)
                yield bounded
            if seen is not None and self.bookmarks is not None and bounded.wrote:
                # The manager's set, not this session's one bookmark: a write of the same request that
                # ran beside this one and committed later is in it too.
                seen.after_writes = tuple(await self.bookmarks.get_bookmarks())
        except (ServiceUnavailable, SessionExpired, DatabaseUnavailable) as e:
            raise UnavailableError("The memory store cannot be reached right now.") from e
        except ClientError as e:
            raise self._refusal(e) from e
        except (Neo4jError, DriverError) as e:
            # Neo4j failing, or the pool giving up waiting for a connection (ConnectionAcquisitionTimeout).
            raise UnavailableError("The memory store failed to complete the operation.") from e

    def _refusal(self, e: ClientError) -> InvalidRequestError | UnavailableError:
        code = e.code or ""
        if code.startswith(INVALID_BOOKMARK):
            return InvalidInputError(
                f"{causality.HEADER} names no point in this database's history; send one an answer gave.",
                param=causality.HEADER,
            )
        if code.startswith(TIMED_OUT):
            return UnavailableError(
                "The operation took too long and the memory store stopped it; try again or ask for less.",
                detail={"timeout_ms": self.timeout_ms, "bulk_timeout_ms": self.bulk_timeout_ms},
            )
        if code == CONSTRAINT:
            return ConflictingWriteError("Another write got there first; try again.")
        if code == RACED:
            return UnavailableError("What the operation read was deleted meanwhile; try again.")
        if code.startswith("Neo.ClientError.Statement.") and "Constraint" not in code:
            return InvalidRequestError("The store refused the request as malformed.")
        return UnavailableError("The memory store refused the operation.")

    async def reaches_bookmarks(self, within_s: float) -> bool:
        """Whether the database reaches the running request's bookmarks within `within_s`: one read.

        Neo4j itself would hold a transaction on a bookmark ahead of it for its own long timeout
        (`db.transaction.bookmark_ready_timeout`); asking once, bounded here, keeps a bookmark from the
        future from holding every session of the request. A bookmark it cannot read is refused as
        `_refusal` says.
        """
        try:
            async with asyncio.timeout(within_s):
                await self.read_once("health_ping")
        except TimeoutError:
            return False
        return True

    async def ping(self) -> bool:
        """True when the server answers `RETURN 1` within the acquisition timeout: one attempt.

        A readiness probe must answer in its own few seconds, so a server that accepts connections
        but answers nothing counts as not ready rather than holding the probe.
        """
        try:
            async with asyncio.timeout(self.patience.acquisition_timeout_s):
                rows = await self.read_once("health_ping")
        except (UnavailableError, TimeoutError):
            return False
        return bool(rows and rows[0].get("ok") == 1)
