"""The API's handle on the query sandbox service: which copies it holds, and a lease on one of them.

A copy is keyed by a digest of (scope, data version): the same key is a hit; anything else is a
new database in the service, started from the template, so nothing of an earlier scope (or an
earlier version of the same one), not even the ids or tokens it left, is there to be observed.
The service serves several scopes at once and runs statements on their own threads; a scope it
evicted (its memory budget) or dropped (a statement it could not stop) is loaded again on demand.
The pool knows the service by a URL and a token, nothing else: whoever runs the service (compose,
`scripts/serve`, the tests' launcher in devtools) supervises it, and a service started again behind
the same URL is reconnected to, its copies loaded again on demand.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import logging
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import Any

from provider.errors import UnavailableError
from provider.models import Projection
from provider.sandbox import load as sandbox_load
from provider.sandbox.client import Plan, SandboxClient, SandboxResult, ScopeGoneError

log = logging.getLogger("provider.sandbox")
# Readiness waits this long for the service's health: a hung sandbox must not hold /readyz callers.
HEALTH_SECONDS = 2.0
Scope = tuple[str, ...]
Version = tuple[int, ...]
Load = Callable[[], Awaitable[Projection]]


@dataclass
class PoolStats:
    """Counters for tests and the benchmark."""

    starts: int = 0
    loads: int = 0
    hits: int = 0


class Sandbox:
    """One scope's copy in the service, for the length of a lease; reloaded once if it went away."""

    def __init__(self, pool: SandboxPool, key: str, load: Load):
        self.pool, self.key, self._load = pool, key, load

    async def explain(self, text: str, params: Mapping[str, Any], timeout_ms: int) -> Plan:
        client = await self.pool.client()
        try:
            return await client.explain(self.key, text, params, timeout_ms)
        except ScopeGoneError:
            await self.pool.load(self.key, self._load)
            return await client.explain(self.key, text, params, timeout_ms)

    async def run(
        self,
        text: str,
        params: Mapping[str, Any],
        *,
        timeout_ms: int,
        row_cap: int,
        answer_bytes: int | None = None,
    ) -> SandboxResult:
        client = await self.pool.client()
        try:
            result = await client.run(
                self.key, text, params, timeout_ms=timeout_ms, row_cap=row_cap, answer_bytes=answer_bytes
            )
        except ScopeGoneError:
            await self.pool.load(self.key, self._load)
            result = await client.run(
                self.key, text, params, timeout_ms=timeout_ms, row_cap=row_cap, answer_bytes=answer_bytes
            )
        if result.timed_out:
            self.pool.doubt(self.key)
        return result


class SandboxPool:
    """The service at `url`, called with `token`."""

    def __init__(self, url: str, token: str):
        self.url, self.token = url, token
        self.stats = PoolStats()
        self.known: set[str] = set()
        self._client: SandboxClient | None = None
        self._warming: asyncio.Task[None] | None = None
        self.failing: str | None = None  # set while the service cannot be reached

    def doubt(self, key: str) -> None:
        """The service may have dropped this scope (a statement it could not stop): ask next time."""
        self.known.discard(key)

    async def client(self) -> SandboxClient:
        """The client (made on first use: building it does no I/O)."""
        if self._client is None:
            self._client = SandboxClient(self.url, self.token)
            self.stats.starts += 1
        return self._client

    async def warm(self) -> None:
        """Loads and runs a synthetic copy once, then drops it: the service's first query is paid here."""
        client = await self.client()
        key = "warm-up"
        await client.put(
            key, sandbox_load.schema_statements(), sandbox_load.steps(sandbox_load.warm_up_projection())
        )
        for text in sandbox_load.WARM_UP_READS:
            await client.explain(key, text, {"value": 1}, 10_000)
            await client.run(key, text, {"value": 1}, timeout_ms=10_000, row_cap=10)
        await client.delete(key)

    def warm_in_background(self) -> None:
        """`warm` without waiting for it (once at a time)."""
        if self._warming is not None and not self._warming.done():
            return

        async def run() -> None:
            with contextlib.suppress(Exception):
                await self.warm()

        self._warming = asyncio.create_task(run())

    async def trouble(self) -> str | None:
        """Why the pool cannot take a query now, for readiness; None when it can.

        The service is asked for its health each time: a sandbox that went away shows here before a
        caller's query finds out.
        """
        try:
            await (await self.client()).health(timeout=HEALTH_SECONDS)
        except UnavailableError:
            return f"the query sandbox service at {self.url} does not answer"
        return self.failing

    async def close(self) -> None:
        """Forgets this pool's copies in the service (which others may share) and closes the client."""
        client, self._client = self._client, None
        if client is not None:
            for key in list(self.known):
                with contextlib.suppress(Exception):
                    await client.delete(key)
            await client.close()
        self.known.clear()

    async def recycle_all(self) -> None:
        """Drops every copy this pool loaded (tests compare runs from the same start)."""
        client = await self.client()
        for key in list(self.known):
            await client.delete(key)
        self.known.clear()

    @contextlib.asynccontextmanager
    async def lease(self, scope: Scope, version: Version, load: Load) -> AsyncIterator[Sandbox]:
        """The copy of `scope` at `version`, loaded when the service does not hold it yet."""
        key = copy_key(scope, version)
        try:
            client = await self.client()
            held = key in self.known or await client.holds(key)
        except UnavailableError:
            self.failing = "the query sandbox service cannot be reached"
            raise
        self.failing = None
        # A key this pool loaded is believed held (a lease that finds it gone loads it again); another
        # replica's copy is asked for before the scope is read from the main database.
        if held:
            self.known.add(key)
            self.stats.hits += 1
        else:
            await self.load(key, load)
        yield Sandbox(self, key, load)

    async def load(self, key: str, load: Load) -> None:
        """Reads the copy from the main database and sends it to the service under `key`."""
        client = await self.client()
        projection = await load()
        await client.put(key, sandbox_load.schema_statements(), sandbox_load.steps(projection))
        self.known.add(key)
        self.stats.loads += 1


def copy_key(scope: Scope, version: Version) -> str:
    """A digest naming one scope at one data version (the service never learns the memory ids)."""
    text = "\n".join(scope) + "\n" + ",".join(map(str, version))
    return hashlib.sha256(text.encode()).hexdigest()[:32]
