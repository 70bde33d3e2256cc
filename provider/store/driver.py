"""One long-lived async driver and managed transactions that retry; driver errors become ours.

Every transaction carries a timeout, so a slow statement ends with an answer instead of holding a
request (and its locks) open: Neo4j stops it server-side, whatever the client does.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from contextlib import asynccontextmanager
from typing import Any, TypeVar

import neo4j
from neo4j import AsyncDriver, AsyncGraphDatabase, AsyncManagedTransaction
from neo4j.exceptions import ClientError, Neo4jError, ServiceUnavailable, SessionExpired

from provider.config import Settings
from provider.errors import InvalidRequestError, UnavailableError
from provider.store.catalogue import statement

Row = dict[str, Any]
R = TypeVar("R")
Work = Callable[[AsyncManagedTransaction], Awaitable[R]]

DEFAULT_TIMEOUT_MS = 10_000
DEFAULT_BULK_TIMEOUT_MS = 120_000

# Statements whose work grows with a whole memory or scope rather than with one request: batched
# deletes, bulk imports and re-embedding, erase, a scope's copy for the query sandbox, schema changes.
BULK_STATEMENTS = frozenset(
    {
        "memory_delete",
        "memory_delete_batch",
        "record_create_many",
        "record_embedding_page",
        "record_embedding_set",
        "record_erase",
        "record_erase_plan",
        "projection_fingerprint",
        "projection_memories",
        "projection_records",
    }
)

# Neo4j's codes for a transaction it stopped at its timeout (a lock wait ends as LockClientStopped).
TIMED_OUT = (
    "Neo.ClientError.Transaction.TransactionTimedOut",
    "Neo.ClientError.Transaction.LockClientStopped",
)


class BoundedSession:
    """A session whose every transaction has a timeout: the work's own, else the bulk bound.

    Work that names no timeout comes from outside `Neo4jStore.read/write` (a store reading a whole
    scope through `_session`), so it gets the longer bound rather than none.
    """

    def __init__(self, session: neo4j.AsyncSession, fallback_s: float | None):
        self.session = session
        self.fallback_s = fallback_s

    def _bounded(self, work: Work[R]) -> Work[R]:
        if getattr(work, "timeout", None) is not None or self.fallback_s is None:
            return work

        @neo4j.unit_of_work(timeout=self.fallback_s, metadata=getattr(work, "metadata", None))
        async def bounded(tx: AsyncManagedTransaction) -> R:
            return await work(tx)

        return bounded

    async def execute_read(self, work: Work[R]) -> R:
        """A read transaction, retried on transient errors, bounded in time."""
        return await self.session.execute_read(self._bounded(work))

    async def execute_write(self, work: Work[R]) -> R:
        """A write transaction, retried on transient errors, bounded in time."""
        return await self.session.execute_write(self._bounded(work))


class Neo4jStore:
    """Runs named statements in managed transactions; transaction metadata names the file.

    `timeout_ms` bounds each transaction, `bulk_timeout_ms` those running a BULK_STATEMENTS one;
    None leaves them unbounded (the query sandbox's own store, which bounds its calls itself).
    """

    def __init__(
        self,
        driver: AsyncDriver,
        database: str,
        *,
        timeout_ms: int | None = None,
        bulk_timeout_ms: int | None = None,
    ):
        self.driver = driver
        self.database = database
        self.timeout_ms = timeout_ms
        self.bulk_timeout_ms = bulk_timeout_ms if bulk_timeout_ms is not None else timeout_ms

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
    ) -> Neo4jStore:
        """Builds the driver; nothing is sent until the first query."""
        driver = AsyncGraphDatabase.driver(
            uri, auth=(user, password), max_connection_pool_size=50, notifications_min_severity="OFF"
        )
        return cls(driver, database, timeout_ms=timeout_ms, bulk_timeout_ms=bulk_timeout_ms)

    @classmethod
    def from_settings(cls, settings: Settings) -> Neo4jStore:
        """The main database, bounded by UHP_STATEMENT_TIMEOUT_MS and UHP_BULK_STATEMENT_TIMEOUT_MS."""
        return cls.connect(
            settings.neo4j_uri,
            settings.neo4j_user,
            settings.neo4j_password.get_secret_value(),
            settings.neo4j_database,
            timeout_ms=settings.statement_timeout_ms,
            bulk_timeout_ms=settings.bulk_statement_timeout_ms,
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

    async def write(self, statement_name: str, /, **params: Any) -> list[Row]:
        """Runs one named statement in a write transaction."""
        return await self._run(statement_name, params, write=True)

    async def write_many(self, steps: list[tuple[str, Mapping[str, Any]]]) -> list[list[Row]]:
        """Runs several named statements in one write transaction, all or nothing."""
        bounds = [self.timeout_s(name) for name, _ in steps]
        timeout = None if None in bounds else max((b for b in bounds if b is not None), default=None)

        @neo4j.unit_of_work(timeout=timeout, metadata={"statement": ",".join(n for n, _ in steps)})
        async def work(tx: AsyncManagedTransaction) -> list[list[Row]]:
            results = []
            for name, params in steps:
                result = await tx.run(statement(name), dict(params))
                results.append([record.data() for record in await result.fetch(1_000_000)])
            return results

        async with self._session() as session:
            return await session.execute_write(work)

    async def _run(self, name: str, params: Mapping[str, Any], *, write: bool) -> list[Row]:
        query = statement(name)

        @neo4j.unit_of_work(timeout=self.timeout_s(name), metadata={"statement": name})
        async def work(tx: AsyncManagedTransaction) -> list[Row]:
            result = await tx.run(query, dict(params))
            return [record.data() async for record in result]

        async with self._session() as session:
            if write:
                return await session.execute_write(work)
            return await session.execute_read(work)

    @asynccontextmanager
    async def _session(self) -> AsyncIterator[BoundedSession]:
        fallback = None if self.bulk_timeout_ms is None else self.bulk_timeout_ms / 1000
        try:
            async with self.driver.session(database=self.database) as session:
                yield BoundedSession(session, fallback)
        except (ServiceUnavailable, SessionExpired) as e:
            raise UnavailableError("The memory store cannot be reached right now.") from e
        except ClientError as e:
            raise self._refusal(e) from e
        except Neo4jError as e:
            raise UnavailableError("The memory store failed to complete the operation.") from e

    def _refusal(self, e: ClientError) -> InvalidRequestError | UnavailableError:
        code = e.code or ""
        if code.startswith(TIMED_OUT):
            return UnavailableError(
                "The operation took too long and the memory store stopped it; try again or ask for less.",
                detail={"timeout_ms": self.timeout_ms, "bulk_timeout_ms": self.bulk_timeout_ms},
            )
        if code.startswith("Neo.ClientError.Statement.") and "Constraint" not in code:
            return InvalidRequestError("The store refused the request as malformed.")
        return UnavailableError("The memory store refused the operation.")

    async def ping(self) -> bool:
        """True when the server answers `RETURN 1`."""
        try:
            rows = await self.read("health_ping")
        except UnavailableError:
            return False
        return bool(rows and rows[0].get("ok") == 1)
