"""The app served for real (uvicorn, its own lifespan and loop) in a thread, as `provider serve` runs it.

The TestClient serialises requests; tests and benches that measure one caller beside another need a
real server.
"""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator

import uvicorn
from fastapi import FastAPI


def served_in_thread(app: FastAPI) -> Iterator[str]:
    """The app served by uvicorn on a free loopback port, in a thread of this process, until closed."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="on"))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 120
    while not server.started:
        assert thread.is_alive() and time.monotonic() < deadline, "uvicorn did not start"
        time.sleep(0.05)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout=60)
        sock.close()
