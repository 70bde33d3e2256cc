"""A served app in its own process (`python -m provider serve`), for the fault tests and bench.soak.

The process is started with a clean environment (nothing of the caller's UHP_* or NEO4J_* leaks in),
logs to one file that every restart appends to, and counts as started once `GET /v1/uhp` answers.
`kill()` is SIGKILL: no lifespan shutdown, no answer for requests in flight, no lease released.
Every wait here has a deadline, so a test cannot hang on a process that will not start or stop.
"""

from __future__ import annotations

import os
import re
import secrets
import signal
import socket
import subprocess
import sys
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

import httpx

ROOT = Path(__file__).resolve().parents[2]
READY_SECONDS = 90.0
STOP_SECONDS = 15.0
_UNHANDLED = re.compile(r"ERROR provider\.api unhandled error on (\S+ \S+)\n")
_ID = re.compile(r"\bh[a-z]+_[0-9a-f]{32}\b")
_EDGE = ("provider/api/middleware.py", "provider/api/edge.py")  # frames every request passes
_OUR_FRAME = re.compile(r'File "\S*/(provider/\S+\.py)", line (\d+), in (\w+)')


def free_port() -> int:
    """A loopback port free right now."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@dataclass
class Neo4jAccess:
    """Where the service's Neo4j is."""

    uri: str
    user: str
    password: str = field(repr=False)


@dataclass
class ServiceProcess:
    """One service on a fixed port; started, killed and started again on the same port and Neo4j."""

    neo4j: Neo4jAccess
    file_dir: Path
    log_path: Path
    port: int = field(default_factory=free_port)
    admin_key: str = field(default_factory=lambda: "adm_" + secrets.token_urlsafe(24), repr=False)
    settings: dict[str, str] = field(default_factory=dict)  # extra UHP_* variables
    proc: subprocess.Popen[bytes] | None = field(default=None, repr=False)
    starts: int = 0

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def pid(self) -> int:
        assert self.proc is not None, "the service is not running"
        return self.proc.pid

    def environment(self) -> dict[str, str]:
        """The caller's environment minus its UHP_* and NEO4J_*, plus this service's settings."""
        env = {k: v for k, v in os.environ.items() if not k.startswith(("UHP_", "NEO4J_"))}
        env |= {
            "NEO4J_URI": self.neo4j.uri,
            "NEO4J_USER": self.neo4j.user,
            "NEO4J_PASSWORD": self.neo4j.password,
            "UHP_ADMIN_KEY": self.admin_key,
            "UHP_ENVIRONMENT": "test",
            "UHP_HOST": "127.0.0.1",
            "UHP_PORT": str(self.port),
            "UHP_FILE_DIR": str(self.file_dir),
            "UHP_QUERY_SANDBOX": "false",
            "PYTHONUNBUFFERED": "1",
            # These tests drive one member as hard as their threads can: its budgets are lifted (as
            # the session's apps lift them), the fair queues stay.
            "UHP_RATE_READS": "0/second",
            "UHP_RATE_WRITES": "0/second",
            "UHP_RATE_QUERIES": "0/second",
            "UHP_IN_FLIGHT_PER_PRINCIPAL": "0",
        }
        return env | self.settings

    def start(self, ready_within: float = READY_SECONDS) -> None:
        """Launch the process and wait until it answers; RuntimeError with its log's tail otherwise."""
        assert self.proc is None or self.proc.poll() is not None, "already running"
        self.file_dir.mkdir(parents=True, exist_ok=True)
        self.starts += 1
        with self.log_path.open("ab") as log:
            log.write(f"\n===== start {self.starts} at {time.time():.3f}\n".encode())
            log.flush()
            self.proc = subprocess.Popen(
                [sys.executable, "-m", "provider", "serve"],
                cwd=ROOT,
                env=self.environment(),
                stdout=log,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
            )
        self._await_ready(ready_within)

    def _await_ready(self, within: float) -> None:
        deadline = time.monotonic() + within
        with httpx.Client(timeout=httpx.Timeout(2.0)) as client:
            while True:
                assert self.proc is not None
                if self.proc.poll() is not None:
                    raise RuntimeError(f"the service exited ({self.proc.returncode}):\n{self.log_tail()}")
                try:
                    if client.get(f"{self.url}/v1/uhp").status_code == 200:
                        return
                except httpx.TransportError:
                    pass
                if time.monotonic() > deadline:
                    self.kill()
                    raise RuntimeError(f"the service did not answer in {within:.0f} s:\n{self.log_tail()}")
                time.sleep(0.1)

    def kill(self) -> None:
        """SIGKILL, then reap it."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGKILL)
            self.proc.wait(timeout=STOP_SECONDS)

    def stop(self) -> None:
        """SIGTERM (uvicorn's graceful shutdown), SIGKILL if it takes longer than STOP_SECONDS."""
        if self.proc is None or self.proc.poll() is not None:
            return
        self.proc.send_signal(signal.SIGTERM)
        try:
            self.proc.wait(timeout=STOP_SECONDS)
        except subprocess.TimeoutExpired:
            self.kill()

    def log_text(self) -> str:
        try:
            return self.log_path.read_text(errors="replace")
        except OSError:
            return ""

    def log_tail(self, lines: int = 40) -> str:
        """The end of what the latest start logged."""
        latest = self.log_text().rsplit("\n===== start ", 1)[-1]
        return "\n".join(latest.splitlines()[-lines:])

    def unhandled(self) -> Counter[str]:
        """The errors the app logged as unhandled (each a 500): route, exception, our innermost frames."""
        found: Counter[str] = Counter()
        text = self.log_text()
        for match in _UNHANDLED.finditer(text):
            rest = text[match.end() :]
            ends = _UNHANDLED.search(rest)
            block = rest[: ends.start() if ends else len(rest)]
            chains = block.split("\nTraceback (most recent call last):\n")
            last = chains[-1].splitlines()
            frames = [f"{m[1]}:{m[2]} {m[3]}" for m in _OUR_FRAME.finditer(chains[-1])]
            frames = [f for f in frames if not f.startswith(_EDGE)]
            error = next((line for line in last if line and not line.startswith((" ", "Traceback"))), "?")
            route = _ID.sub("{id}", match[1])
            found[f"{route}: {error} at {' > '.join(frames[:4])}"] += 1
        return found


class Api:
    """The few setup calls the fault tests and the soak make: members, keys, memories, uploads."""

    def __init__(self, url: str, admin_key: str, timeout: float = 30.0):
        self.client = httpx.Client(base_url=url, timeout=httpx.Timeout(timeout, connect=3.0))
        self.admin = {"Authorization": f"Bearer {admin_key}"}

    def close(self) -> None:
        self.client.close()

    def __enter__(self) -> Api:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def ok(self, response: httpx.Response) -> Any:
        assert 200 <= response.status_code < 300, (
            f"{response.request.url}: {response.status_code} {response.text}"
        )
        return response.json()

    def write(self, path: str, body: dict[str, Any], headers: dict[str, str], tries: int = 6) -> Any:
        """A setup write that must land: keyed, and sent again while the service answers 503.

        Many writes at once on two loaded cores can outlast the service's transaction bound; it then
        answers 503 `memory_unavailable`, retryable, and the key keeps a retry from writing twice.
        """
        keyed = {**headers, "Idempotency-Key": secrets.token_hex(16)}
        for _ in range(tries - 1):
            answer = self.client.post(path, json=body, headers=keyed)
            if answer.status_code != 503:
                return self.ok(answer)
            time.sleep(1.0)
        return self.ok(self.client.post(path, json=body, headers=keyed))

    def member(self, member_type: str = "agent") -> dict[str, str]:
        """A new member's headers (its key as bearer)."""
        made = self.ok(
            self.client.post("/v1/admin/members", json={"type": member_type, "name": "f"}, headers=self.admin)
        )
        key = self.ok(self.client.post(f"/v1/admin/members/{made['id']}/keys", json={}, headers=self.admin))
        return {"Authorization": f"Bearer {key['key']}"}

    def memory(self, headers: dict[str, str], **fields: Any) -> str:
        body = {"name": f"m-{secrets.token_hex(4)}", **fields}
        return str(self.ok(self.client.post("/v1/memories", json=body, headers=headers))["id"])

    def upload(self, headers: dict[str, str], data: bytes) -> str:
        files: dict[str, tuple[str, bytes | IO[bytes], str]] = {"file": ("note.txt", data, "text/plain")}
        return str(self.ok(self.client.post("/v1/files", files=files, headers=headers))["id"])

    def records(
        self, headers: dict[str, str], memory_id: str, include: str = "active"
    ) -> list[dict[str, Any]]:
        """Every record of a memory, page after page."""
        found: list[dict[str, Any]] = []
        cursor: str | None = None
        while True:
            params: dict[str, str | int] = {"limit": 100, "include": include}
            if cursor:
                params["cursor"] = cursor
            page = self.ok(
                self.client.get(f"/v1/memories/{memory_id}/records", params=params, headers=headers)
            )
            found += page["data"]
            cursor = page.get("next")
            if not cursor:
                return found


def text_of(record: dict[str, Any]) -> str:
    """The words of a record's text parts, joined."""
    return " ".join(str(p.get("text", "")) for p in record.get("content", []) if p.get("type") == "text")
