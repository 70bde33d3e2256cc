"""Browser fixtures: the live app, a seeded world, and a fresh Chromium context per test."""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest
from fastapi.testclient import TestClient
from playwright.sync_api import Browser, Page, Playwright, expect, sync_playwright

from provider.api.app import create_app
from provider.config import Settings
from provider.embeddings import OnnxEmbedder
from tests.browser.live import CHROMIUM_ARGS, SCREENSHOTS, LiveServer, chromium
from tests.browser.world import World, build
from tests.conftest import Admin


@pytest.fixture(scope="session")
def live(settings: Settings, embedder: OnnxEmbedder) -> Iterator[LiveServer]:
    server = LiveServer(create_app(settings, embedder=embedder)).start()
    yield server
    server.stop()


@pytest.fixture(scope="session")
def world(client: TestClient, admin: Admin) -> World:
    return build(client, admin)


# A first query starts a sandbox for its scope; a first recall may wait for the model: patience, not sleeps.
expect.set_options(timeout=60_000)


# Module-scoped, not session-scoped: Playwright's sync API runs an event loop on this thread while it
# is open, and every later test that calls asyncio.run() would find it running.
@pytest.fixture(scope="module")
def playwright() -> Iterator[Playwright]:
    with sync_playwright() as driver:
        yield driver


@pytest.fixture(scope="module")
def browser(playwright: Playwright) -> Iterator[Browser]:
    launched = playwright.chromium.launch(executable_path=chromium(), args=CHROMIUM_ARGS, headless=True)
    yield launched
    launched.close()


@pytest.fixture
def page(browser: Browser, live: LiveServer) -> Iterator[Page]:
    """A new context per test: its own sessionStorage, so no key leaks from one test to the next."""
    context = browser.new_context(viewport={"width": 1440, "height": 900}, base_url=live.url)
    opened = context.new_page()
    opened.set_default_timeout(20_000)
    problems: list[str] = []
    opened.on("pageerror", lambda error: problems.append(f"page error: {error}"))
    opened.on(
        "console",
        lambda message: (
            problems.append(f"console {message.type}: {message.text}")
            if message.type == "error" and "Failed to load resource" not in message.text
            else None
        ),
    )
    yield opened
    context.close()
    assert not problems, problems  # a script error or a CSP refusal is a failure, not noise


def shot(page: Page, name: str) -> None:
    """A screenshot per view, under .local/screenshots/ (looked at; docs/EXPLORER.md shows two)."""
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / f"{name}.png"), full_page=False)


@pytest.fixture
def live_url_client(live: LiveServer) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=live.url, timeout=30) as http:
        yield http
