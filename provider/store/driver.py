"""One long-lived async driver and managed transactions that retry; driver errors become ours."""

from __future__ import annotations

from collections.abc import AsyncIterator, Mapping
from contextlib import asynccontextmanager
from typing import Any

import neo4j
from neo4j import AsyncDriver, AsyncGraphDatabase, AsyncManagedTransaction
from neo4j.exceptions import ClientError, Neo4jError, ServiceUnavailable, SessionExpired

from provider.errors import InvalidRequestError, UnavailableError
from provider.store.catalogue import statement

Row = dict[str, Any]


class Neo4jStore:
    """Runs named statements in managed transactions; transaction metadata names the file."""

    def __init__(self, driver: AsyncDriver, database: str):
        self.driver = driver
        self.database = database

    @classmethod
    def connect(cls, uri: str, user: str, password: str, database: str) -> Neo4jStore:
        """Builds the driver; nothing is sent until the first query."""
        driver = AsyncGraphDatabase.driver(
            uri, auth=(user, password), max_connection_pool_size=50, notifications_min_severity="OFF"
        )
        return cls(driver, database)

    async def close(self) -> None:
        """Closes the pool on shutdown."""
        await self.driver.close()

    async def read(self, statement_name: str, /, **params: Any) -> list[Row]:
        """Runs one named statement in a read transaction."""
        return await self._run(statement_name, params, write=False)

    async def write(self, statement_name: str, /, **params: Any) -> list[Row]:
        """Runs one named statement in a write transaction."""
        return await self._run(statement_name, params, write=True)

    async def write_many(self, steps: list[tuple[str, Mapping[str, Any]]]) -> list[list[Row]]:
        """Runs several named statements in one write transaction, all or nothing."""

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

        @neo4j.unit_of_work(metadata={"statement": name})
        async def work(tx: AsyncManagedTransaction) -> list[Row]:
            result = await tx.run(query, dict(params))
            return [record.data() async for record in result]

        async with self._session() as session:
            if write:
                return await session.execute_write(work)
            return await session.execute_read(work)

    @asynccontextmanager
    async def _session(self) -> AsyncIterator[neo4j.AsyncSession]:
        try:
            async with self.driver.session(database=self.database) as session:
                yield session
        except (ServiceUnavailable, SessionExpired) as e:
            raise UnavailableError("The memory store cannot be reached right now.") from e
        except ClientError as e:
            if (e.code or "").startswith("Neo.ClientError.Statement.") and "Constraint" not in (e.code or ""):
                raise InvalidRequestError("The store refused the request as malformed.") from e
            raise UnavailableError("The memory store refused the operation.") from e
        except Neo4jError as e:
            raise UnavailableError("The memory store failed to complete the operation.") from e

    async def ping(self) -> bool:
        """True when the server answers `RETURN 1`."""
        try:
            rows = await self.read("health_ping")
        except UnavailableError:
            return False
        return bool(rows and rows[0].get("ok") == 1)
