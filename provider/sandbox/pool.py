"""The API's handle on the query sandbox service: which copies it holds, and a lease on one of them.

A copy is keyed by a digest of its scope and its shape (the memories, their copy epochs and names'
versions): another key is a new database in the service, started from the template, so nothing of
another scope, nor of what an erase or a delete removed, is there to be observed. Within a key the
copy is brought up to date by the records each memory changed since the version the copy holds (the
main database's change_seq), applied in one transaction in the service.
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
import json
import logging
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import Any

from provider.errors import UnavailableError
from provider.models import DataVersion, Projection, ScopeVersion
from provider.sandbox import load as sandbox_load
from provider.sandbox.client import Plan, SandboxClient, SandboxResult, ScopeGoneError

log = logging.getLogger("provider.sandbox")
# Readiness waits this long for the service's health: a hung sandbox must not hold /readyz callers.
HEALTH_SECONDS = 2.0
# Scopes whose newest copy a pool remembers, to drop the older one when a new shape replaces it.
LATEST_SCOPES = 1024
Scope = tuple[str, ...]
Load = Callable[[], AsyncIterator[sandbox_load.Step]]
Changes = Callable[[dict[str, int]], Awaitable[Projection]]


@dataclass
class PoolStats:
    """Counters for tests and the benchmark."""

    starts: int = 0
    loads: int = 0
    hits: int = 0
    applies: int = 0
    stale: int = 0


class Sandbox:
    """One scope's copy in the service, for the length of a lease; reloaded once if it went away.

    `data` is what the copy's answers reflect: its version's name and the instant it was current.
    """

    def __init__(self, pool: SandboxPool, key: str, reload: Callable[[], Awaitable[None]], data: DataVersion):
        self.pool, self.key, self._reload, self.data = pool, key, reload, data

    async def explain(self, text: str, params: Mapping[str, Any], timeout_ms: int) -> Plan:
        client = await self.pool.client()
        try:
            return await client.explain(self.key, text, params, timeout_ms)
        except ScopeGoneError:
            await self._reload()
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
            await self._reload()
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
        self._confirmed: dict[str, tuple[tuple[int, ...], int]] = {}
        self._catching: set[str] = set()
        self._tasks: set[asyncio.Task[None]] = set()
        self._latest: dict[str, str] = {}  # scope's name → the key of its newest copy this pool used
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
    async def lease(
        self, scope: Scope, version: ScopeVersion, load: Load, changes: Changes, max_staleness_ms: int = 0
    ) -> AsyncIterator[Sandbox]:
        """The copy of `scope` at `version`, or within `max_staleness_ms` of it.

        Loaded when the service does not hold it; brought up to date by the changes since its own
        version when it is behind; or, when the caller accepts that much staleness, used as it is
        while it is brought up to date beside the answer.
        """
        key = copy_key(scope, version)
        try:
            client = await self.client()
            held = await client.held_version(key)
        except UnavailableError:
            self.failing = "the query sandbox service cannot be reached"
            raise
        self.failing = None
        data = DataVersion(data_name(key, version.seqs), version.read_at)
        copy = HeldCopy.parse(held) if held is not None else None
        if copy is None:
            await self.load(key, load, version)
        elif not copy.behind(version.seqs):
            self.stats.hits += 1
            self._confirmed[key] = (copy.seqs, version.read_at)
        elif max_staleness_ms > 0 and version.read_at - self._as_of(key, copy) <= max_staleness_ms:
            self.stats.stale += 1
            as_of = self._as_of(key, copy)
            data = DataVersion(data_name(key, copy.seqs), as_of, version.read_at - as_of)
            self._catch_up_beside(key, held or "", version, load, changes)
        else:
            await self.catch_up(key, held or "", version, load, changes)
        self.known.add(key)
        await self._drop_older(scope, key)
        yield Sandbox(self, key, lambda: self.load(key, load, version), data)

    async def load(self, key: str, load: Load, version: ScopeVersion) -> None:
        """Reads the copy from the main database and sends it to the service under `key`.

        It holds `version`, read before the copy: whatever was written between the two is in the copy
        too, and the next catch-up writes it again, to the same effect.
        """
        client = await self.client()
        held = HeldCopy(version.seqs, version.read_at).text()
        await client.put(key, sandbox_load.schema_statements(), load(), held)
        self.known.add(key)
        self.stats.loads += 1

    async def catch_up(
        self, key: str, held: str, version: ScopeVersion, load: Load, changes: Changes
    ) -> None:
        """Brings the copy under `key` from `held` to `version` with what changed in between.

        One transaction in the service; the copy is loaded anew when the change is most of it or the
        service refused it.
        """
        copy = HeldCopy.parse(held)
        if copy is None:
            await self._reload(key, load, version)
            return
        delta = await changes(dict(zip(version.memory_ids, copy.seqs, strict=True)))
        if len(delta.records) > max(sandbox_load.LOAD_BATCH, version.records // 4):
            await self._reload(key, load, version)
            return
        client = await self.client()
        target = HeldCopy(version.seqs, version.read_at).text()
        try:
            moved = await client.apply(key, held, target, sandbox_load.change_steps(delta))
        except ScopeGoneError:
            await self.load(key, load, version)
            return
        except UnavailableError:
            await self._reload(key, load, version)
            return
        self.stats.applies += 1
        now = HeldCopy.parse(moved) if moved is not None else None
        if moved is not None and (now is None or now.behind(version.seqs)):
            await self._reload(key, load, version)

    async def _reload(self, key: str, load: Load, version: ScopeVersion) -> None:
        client = await self.client()
        with contextlib.suppress(ScopeGoneError):
            await client.delete(key)
        await self.load(key, load, version)

    def _as_of(self, key: str, copy: HeldCopy) -> int:
        """When the copy was last known current: loaded or brought up to date, or found equal since."""
        confirmed = self._confirmed.get(key)
        if confirmed is not None and confirmed[0] == copy.seqs:
            return max(copy.at, confirmed[1])
        return copy.at

    def _catch_up_beside(
        self, key: str, held: str, version: ScopeVersion, load: Load, changes: Changes
    ) -> None:
        """Brings the copy up to date without holding up the answer (once at a time per copy)."""
        if key in self._catching:
            return
        self._catching.add(key)

        async def run() -> None:
            try:
                await self.catch_up(key, held, version, load, changes)
            except Exception:
                log.warning("sandbox: a copy could not be brought up to date beside an answer", exc_info=True)
            finally:
                self._catching.discard(key)

        task = asyncio.create_task(run())
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _drop_older(self, scope: Scope, key: str) -> None:
        """Drops this pool's older copy of the same scope (an erase or a rename made a new one)."""
        named = scope_name(scope)
        older = self._latest.pop(named, None)
        self._latest[named] = key
        while len(self._latest) > LATEST_SCOPES:
            self._latest.pop(next(iter(self._latest)))
        if older is None or older == key:
            return
        self.known.discard(older)
        with contextlib.suppress(ScopeGoneError, UnavailableError):
            await (await self.client()).delete(older)


@dataclass(frozen=True)
class HeldCopy:
    """The version a copy holds, as the service keeps it for the API.

    Each memory's change_seq (in the scope's order), and when that was current.
    """

    seqs: tuple[int, ...]
    at: int

    def text(self) -> str:
        return json.dumps({"seqs": list(self.seqs), "at": self.at})

    @classmethod
    def parse(cls, text: str) -> HeldCopy | None:
        """None for a copy loaded without a version (or by another release): it is loaded anew."""
        try:
            found = json.loads(text)
            return cls(tuple(int(s) for s in found["seqs"]), int(found["at"]))
        except (ValueError, KeyError, TypeError):
            return None

    def behind(self, seqs: tuple[int, ...]) -> bool:
        """Whether some memory changed past what the copy holds."""
        return len(seqs) != len(self.seqs) or any(h < s for h, s in zip(self.seqs, seqs, strict=True))


def copy_key(scope: Scope, version: ScopeVersion) -> str:
    """A digest naming one scope in one shape: which memories exist, their epochs, their names' versions.

    A copy is brought up to date within a shape; a new shape is a new database.
    """
    text = "\n".join(scope) + "\n" + ",".join(version.memory_ids) + "\n" + repr(version.shape)
    return hashlib.sha256(text.encode()).hexdigest()[:32]


def scope_name(scope: Scope) -> str:
    return hashlib.sha256("\n".join(scope).encode()).hexdigest()[:32]


def data_name(key: str, seqs: tuple[int, ...]) -> str:
    """The name an answer gives the data it reflects: opaque, equal exactly when the data is."""
    return hashlib.sha256(f"{key}:{seqs}".encode()).hexdigest()[:24]
