"""The query sandbox services the tests run, through devtools' launcher (supervised, as compose runs it).

The API knows a sandbox by its URL and token only; these helpers start one and put both in settings.
"""

from __future__ import annotations

from pathlib import Path

from pydantic import SecretStr

from devtools import sandbox_service
from devtools.sandbox_service import Limits, LocalSandbox
from provider.config import Settings
from provider.ids import now_ms
from provider.models import Projection, ScopeVersion


def start(limits: Limits | None = None, work: Path | None = None) -> LocalSandbox:
    """A service of its own on a free loopback port (stop it, or use it as a context manager)."""
    return sandbox_service.start(Settings(environment="test").cache_dir, limits, work)


def wired(settings: Settings, service: LocalSandbox) -> Settings:
    """`settings` calling `service`."""
    return settings.changed(query_sandbox_url=service.url, query_sandbox_token=SecretStr(service.token))


def still(scope: tuple[str, ...]) -> ScopeVersion:
    """A version of `scope` for a lease on a copy the test makes up: nothing written, nothing erased."""
    return ScopeVersion(
        memory_ids=scope, seqs=(0,) * len(scope), shape=((0, 0),) * len(scope), records=0, read_at=now_ms()
    )


async def no_changes(since: dict[str, int]) -> Projection:
    """What changed since a made-up copy's version: nothing."""
    return Projection()
