"""`/explorer/`: a page for people, served by the service itself, that calls the same `/v1` routes.

The page is static; it holds the caller's key in the tab's sessionStorage and sends it as a bearer
token, so it can do exactly what that key can do over REST and nothing more. Everything it shows
from a record is written into the page as text; the Content-Security-Policy below is the second
fence: no inline script, no script or connection to anywhere but this origin.
"""

from __future__ import annotations

from pathlib import Path

from fastapi import APIRouter, FastAPI
from fastapi.responses import RedirectResponse, Response

from provider.api.explorer.vendor import SCRIPTS, installed
from provider.config import Settings
from provider.errors import NotFoundError

STATIC = Path(__file__).parent / "static"
MEDIA_TYPES = {
    ".html": "text/html; charset=utf-8",
    ".js": "text/javascript; charset=utf-8",
    ".css": "text/css; charset=utf-8",
    ".svg": "image/svg+xml",
    ".png": "image/png",
}
POLICY = "; ".join(
    (
        "default-src 'none'",
        "script-src 'self'",
        "style-src 'self'",
        "img-src 'self' blob: data:",
        "connect-src 'self'",
        "base-uri 'none'",
        "form-action 'none'",
        "frame-ancestors 'none'",
    )
)
HEADERS = {
    "Content-Security-Policy": POLICY,
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "X-Frame-Options": "DENY",
    "Cache-Control": "no-cache",
}


def _served(path: Path) -> Response:
    return Response(path.read_bytes(), media_type=MEDIA_TYPES[path.suffix], headers=HEADERS)


def _page_files() -> dict[str, Path]:
    """The page's own files by URL path, fixed at start-up: nothing else under the folder is served."""
    return {
        str(p.relative_to(STATIC)): p for p in STATIC.rglob("*") if p.is_file() and p.suffix in MEDIA_TYPES
    }


def install(app: FastAPI, settings: Settings) -> None:
    """Adds the explorer's routes when it is switched on (`UHP_EXPLORER`)."""
    if not settings.explorer:
        return
    router = APIRouter(include_in_schema=False)
    files = _page_files()
    vendor_dir = settings.explorer_assets_dir or settings.cache_dir / "explorer"

    @router.get("/explorer")
    async def explorer_root() -> Response:
        """The page's relative links resolve under `/explorer/`, wherever a proxy mounts the app."""
        return RedirectResponse("explorer/", status_code=308)

    @router.get("/explorer/")
    async def explorer_page() -> Response:
        return _served(files["index.html"])

    @router.get("/explorer/vendor/{name}")
    async def explorer_vendor(name: str) -> Response:
        for script in SCRIPTS:
            path = installed(vendor_dir, script)
            if name == script.served_as and path is not None:
                return _served(path)
        raise NotFoundError("The explorer has no such file.")

    @router.get("/explorer/{asset:path}")
    async def explorer_asset(asset: str) -> Response:
        path = files.get(asset)
        if path is None:
            raise NotFoundError("The explorer has no such file.")
        return _served(path)

    app.include_router(router)
