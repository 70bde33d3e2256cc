"""A small pool of query sandboxes: each holds one scope's copy at a time, reused while the copy is true.

A slot is leased under its own lock, so one statement runs in a sandbox at a time and a copy is
never replaced under a running statement. The copy a slot holds is keyed by (scope, data version):
the same key is a cache hit; the same scope at a newer version is cleared and reloaded in place;
another scope gets a pristine sandbox (`recycle`, the default) so nothing of an earlier scope, not
even the internal ids or tokens it left, is there to be observed. A statement that outlives its
time limit without the server stopping it, or a server that fails, leaves its sandbox broken: it
is restarted in the background and the next lease waits for it.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import shutil
import tempfile
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path

from provider.errors import UnavailableError
from provider.store import local_server, sandbox_template
from provider.store.projection import Projection
from provider.store.sandbox import SandboxServer, SandboxStuckError

Scope = tuple[str, ...]
Version = tuple[int, ...]


@dataclass
class Slot:
    """One sandbox and what it holds: `scope` set while loading, `version` once the copy is whole."""

    server: SandboxServer
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    running: bool = False
    broken: bool = False
    scope: Scope | None = None
    version: Version | None = None
    used_at: float = 0.0


@dataclass
class PoolStats:
    """Counters for tests and the benchmark."""

    starts: int = 0
    loads: int = 0
    hits: int = 0


class SandboxPool:
    """Slots are created on first use (or by `warm`); `close` stops every process the pool started."""

    def __init__(
        self, root: Path | None, cache: Path, *, size: int, heap: str, pagecache: str, recycle: bool = True
    ):
        self.root = root
        self.cache = cache
        self.size = max(1, size)
        self.heap = heap
        self.pagecache = pagecache
        self.recycle = recycle
        self.slots: list[Slot] = []
        self.stats = PoolStats()
        self._made_root = False
        self._tasks: set[asyncio.Task[None]] = set()

    def _ensure_slots(self) -> None:
        if self.slots:
            return
        if self.root is None:
            # A directory per pool, named after its process, so sandboxes a killed process left behind
            # are found (their owner's pid is gone) and stopped by the next pool that starts.
            parent = self.cache / "sandboxes"
            sandbox_template.reap_orphans(parent)
            parent.mkdir(parents=True, exist_ok=True)
            self.root = Path(tempfile.mkdtemp(prefix=f"{os.getpid()}-", dir=parent))
            self._made_root = True
        template = sandbox_template.template_dir(self.cache)
        for i in range(self.size):
            server = SandboxServer(
                self.root / f"sandbox-{i}", template, heap=self.heap, pagecache=self.pagecache
            )
            self.slots.append(Slot(server=server))

    async def warm(self) -> None:
        """Starts every sandbox now, so the first query does not wait for a server to come up."""
        self._ensure_slots()
        for slot in self.slots:
            async with slot.lock:
                if not slot.running:
                    await self._fresh(slot)

    def warm_in_background(self) -> None:
        """`warm` without waiting for it."""
        self._spawn(self.warm())

    def trouble(self) -> str | None:
        """Why the pool cannot take a query now, for readiness; None when it can."""
        if self.slots and all(slot.broken for slot in self.slots):
            return "every query sandbox is restarting"
        return None

    async def close(self) -> None:
        """Stops every sandbox and removes the homes the pool made."""
        for task in list(self._tasks):
            task.cancel()
        for slot in self.slots:
            with contextlib.suppress(Exception):
                await slot.server.stop()
            slot.running = False
        if self._made_root and self.root is not None:
            shutil.rmtree(self.root, ignore_errors=True)

    async def recycle_all(self) -> None:
        """Every sandbox back to the pristine template (tests compare runs from the same start)."""
        self._ensure_slots()
        for slot in self.slots:
            async with slot.lock:
                await self._fresh(slot)

    @contextlib.asynccontextmanager
    async def lease(
        self, scope: Scope, version: Version, load: Callable[[], Awaitable[Projection]]
    ) -> AsyncIterator[SandboxServer]:
        """A sandbox holding exactly the copy of `scope` at `version`, exclusively until the block ends."""
        self._ensure_slots()
        slot = self._choose(scope, version)
        async with slot.lock:
            try:
                await self._prepare(slot, scope, version, load)
                slot.used_at = time.monotonic()
                yield slot.server
            except (SandboxStuckError, UnavailableError):
                # Stuck on a statement, gone, or failing as a server: restart it from the template.
                slot.broken = True
                self._spawn(self._revive(slot))
                raise

    def _choose(self, scope: Scope, version: Version) -> Slot:
        """The slot holding this copy, else this scope, else an idle empty one, else the least used."""
        for wanted in ((scope, version), (scope, None)):
            for slot in self.slots:
                if slot.scope == wanted[0] and (wanted[1] is None or slot.version == wanted[1]):
                    return slot
        idle = [s for s in self.slots if not s.lock.locked()] or self.slots
        empty = [s for s in idle if s.scope is None]
        return min(empty or idle, key=lambda s: s.used_at)

    async def _prepare(
        self, slot: Slot, scope: Scope, version: Version, load: Callable[[], Awaitable[Projection]]
    ) -> None:
        if not slot.running or slot.broken:
            await self._fresh(slot)
        if slot.scope == scope and slot.version == version:
            self.stats.hits += 1
            return
        same_scope = slot.scope == scope
        if slot.scope is not None and not same_scope:
            await (self._fresh(slot) if self.recycle else slot.server.clear())
        projection = await load()
        slot.scope, slot.version = scope, None
        await (slot.server.refresh(projection) if same_scope else slot.server.load(projection))
        slot.version = version
        self.stats.loads += 1

    async def _fresh(self, slot: Slot) -> None:
        """Puts a slot back on the pristine template: in place, or in a new process when it broke."""
        broken = slot.broken
        slot.running, slot.broken, slot.scope, slot.version = False, False, None, None
        try:
            await asyncio.to_thread(
                sandbox_template.ensure_template, self.cache, heap=self.heap, pagecache=self.pagecache
            )
            slot.server.runner = await asyncio.to_thread(sandbox_template.host, self.cache)
        except local_server.LocalNeo4jError as e:
            raise UnavailableError("The query sandbox could not be started.") from e
        await slot.server.start(reset=not broken)
        slot.running = True
        self.stats.starts += 1

    async def _revive(self, slot: Slot) -> None:
        async with slot.lock:
            if slot.broken:
                await self._fresh(slot)

    def _spawn(self, work: Awaitable[None]) -> None:
        async def run() -> None:
            with contextlib.suppress(Exception):
                await work

        task = asyncio.create_task(run())
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
