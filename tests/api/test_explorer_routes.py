"""The explorer's files as the app serves them: fenced headers, nothing but its own files, a switch."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from provider.api.app import create_app
from provider.api.explorer import STATIC
from provider.api.explorer.vendor import (
    CYTOSCAPE,
    VendoredScript,
    VendorError,
    fetch,
    installed,
    integrity_of,
)
from provider.config import Settings

MARKUP_SINKS = re.compile(
    r"\b(innerHTML|outerHTML|insertAdjacentHTML|document\.write|eval\s*\(|new Function)\b"
)


def test_the_page_and_its_files_carry_the_fence(client: TestClient) -> None:
    moved = client.get("/explorer", follow_redirects=False)
    assert moved.status_code == 308 and moved.headers["location"] == "explorer/"
    for path, media in (("", "text/html"), ("explorer.css", "text/css"), ("js/main.js", "text/javascript")):
        answer = client.get(f"/explorer/{path}")
        assert answer.status_code == 200, path
        assert answer.headers["content-type"].startswith(media)
        assert "script-src 'self'" in answer.headers["content-security-policy"]
        assert answer.headers["x-frame-options"] == "DENY"


@pytest.mark.parametrize(
    "path",
    ["nothing.js", "../provider/config.py", "..%2f..%2fpyproject.toml", "js/../../vendor.py", "__init__.py"],
)
def test_nothing_but_the_page_is_served(client: TestClient, path: str) -> None:
    answer = client.get(f"/explorer/{path}")
    assert answer.status_code == 404
    assert answer.json()["error"]["code"] == "not_found"


def test_the_vendored_script_is_served_once_fetched(client: TestClient, settings: Settings) -> None:
    directory = settings.explorer_assets_dir or settings.cache_dir / "explorer"
    fetch(directory)
    answer = client.get("/explorer/vendor/cytoscape.min.js")
    assert answer.status_code == 200
    assert answer.content == (directory / CYTOSCAPE.version / "cytoscape.min.js").read_bytes()
    assert client.get("/explorer/vendor/other.js").status_code == 404


def test_the_explorer_can_be_switched_off(settings: Settings) -> None:
    app = create_app(settings.model_copy(update={"explorer": False}))
    assert TestClient(app).get("/explorer/").status_code == 404


def test_a_tarball_that_is_not_the_pinned_one_is_refused(tmp_path: Path) -> None:
    forged = VendoredScript(
        package=CYTOSCAPE.package,
        version=CYTOSCAPE.version,
        integrity=integrity_of(b"something else"),
        member=CYTOSCAPE.member,
        served_as=CYTOSCAPE.served_as,
    )
    with pytest.raises(VendorError, match="not the pinned one"):
        fetch(tmp_path, forged)
    assert installed(tmp_path, forged) is None
    assert not any(tmp_path.rglob("*.js"))


def test_the_page_never_parses_markup() -> None:
    """Records are untrusted: the page builds its DOM from text nodes only (the browser tests show it)."""
    for script in STATIC.rglob("*.js"):
        assert not MARKUP_SINKS.search(script.read_text()), script.name


def test_without_npm_the_tarball_comes_from_the_registry_and_is_checked(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """As in an image build: no npm on PATH, so the tarball is fetched over HTTPS, then held to its hash."""
    monkeypatch.setenv("PATH", "/nonexistent")
    path = fetch(tmp_path)
    assert path.read_bytes()[:200].lstrip().startswith(b"/**") or b"cytoscape" in path.read_bytes()[:5000]
    assert (tmp_path / CYTOSCAPE.version / "LICENSE").is_file()
