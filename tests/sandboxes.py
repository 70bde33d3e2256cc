"""The query sandbox services the tests run, through devtools' launcher (supervised, as compose runs it).

The API knows a sandbox by its URL and token only; these helpers start one and put both in settings.
"""

from __future__ import annotations

from pathlib import Path

from pydantic import SecretStr

from devtools import sandbox_service
from devtools.sandbox_service import Limits, LocalSandbox
from provider.config import Settings


def start(limits: Limits | None = None, work: Path | None = None) -> LocalSandbox:
    """A service of its own on a free loopback port (stop it, or use it as a context manager)."""
    return sandbox_service.start(Settings(environment="test").cache_dir, limits, work)


def wired(settings: Settings, service: LocalSandbox) -> Settings:
    """`settings` calling `service`."""
    return settings.model_copy(
        update={"query_sandbox_url": service.url, "query_sandbox_token": SecretStr(service.token)}
    )
