"""The real app on a real port (uvicorn in a thread), and Debian's Chromium driven by Playwright."""

from __future__ import annotations

import shutil
import socket
import threading
import time
from pathlib import Path

import uvicorn
from fastapi import FastAPI

CHROMIUM = Path("/usr/bin/chromium")
# As the machine's notes say: without the background-networking flags Chromium keeps dialling out
# to hosts this closed network refuses; --no-sandbox because CI runs as root.
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
SCREENSHOTS = Path(__file__).resolve().parents[2] / ".local" / "screenshots"


def chromium() -> str:
    """The system browser's path; a clear failure (never a skip) when scripts/test could not install it."""
    found = shutil.which("chromium") or (str(CHROMIUM) if CHROMIUM.exists() else None)
    if found is None:
        raise RuntimeError("Chromium is missing: scripts/test installs Debian's chromium package (apt-get)")
    return found


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


class LiveServer:
    """Serves an app over HTTP until stopped; lifespan on, so it is the service as deployed."""

    def __init__(self, app: FastAPI):
        self.port = free_port()
        config = uvicorn.Config(app, host="127.0.0.1", port=self.port, log_level="warning", lifespan="on")
        self.server = uvicorn.Server(config)
        self.thread = threading.Thread(target=self.server.run, name="explorer-live-server", daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self, within_s: float = 180.0) -> LiveServer:
        self.thread.start()
        deadline = time.monotonic() + within_s
        while not self.server.started:
            if not self.thread.is_alive() or time.monotonic() > deadline:
                raise RuntimeError("the live server did not start")
            time.sleep(0.05)
        return self

    def stop(self) -> None:
        self.server.should_exit = True
        self.thread.join(timeout=60)
