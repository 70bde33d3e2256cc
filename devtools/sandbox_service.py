"""The query sandbox service on this machine, for development and tests: compiled once, started, supervised.

The service (sandbox/src, Java) runs on the JDK with the same Neo4j jars as the local Neo4j server.
Its environment is built from nothing: a token made for it, its own limits, and PATH; no secret of
the main service (database password, admin key) is in it. Started with `--stdin`, it stops when the
process that started it closes its stdin, so it never outlives that process. A service that dies
(killed, or out of heap outside a statement) is started again on the same port and token, as compose
and `scripts/serve` do; the API only ever sees the URL and the token.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import secrets
import shutil
import subprocess
import sys
import tempfile
import threading
from dataclasses import dataclass
from pathlib import Path

from devtools import neo4j_server

SOURCES = Path(__file__).resolve().parents[1] / "sandbox" / "src"
MAIN_CLASS = "uhp.sandbox.SandboxMain"
READY_SECONDS = 60.0
RETRY_SECONDS = 0.5


class SandboxServiceError(Exception):
    """The service could not be built or started here."""


@dataclass(frozen=True)
class Limits:
    """What the service declares: its memory (the JVM's heap), what one scope may use of it."""

    memory_mb: int = 1024
    scope_mb: int = 160
    scope_statements: int = 2

    def environment(self) -> dict[str, str]:
        return {
            "UHP_SANDBOX_MEMORY_MB": str(self.memory_mb),
            "UHP_SANDBOX_SCOPE_MB": str(self.scope_mb),
            "UHP_SANDBOX_SCOPE_STATEMENTS": str(self.scope_statements),
        }


def runnable() -> bool:
    """Whether a local service can run here: a JDK with javac, and the jars or Maven to fetch them."""
    java = os.environ.get("JAVA_HOME") or shutil.which("java")
    jars = (neo4j_server.cache_dir() / ".complete").is_file() or shutil.which("mvn")
    return bool(java and shutil.which("javac") and jars)


def classes(cache: Path) -> Path:
    """The service compiled with javac into the cache, once per source (and Neo4j version)."""
    sources = sorted(SOURCES.rglob("*.java"))
    if not sources:
        raise SandboxServiceError(f"the sandbox service's sources are missing ({SOURCES})")
    digest = hashlib.sha256(neo4j_server.NEO4J_VERSION.encode())
    for source in sources:
        digest.update(source.read_bytes())
    target = cache / f"sandbox-service-{digest.hexdigest()[:12]}"
    if (target / ".complete").is_file():
        return target
    javac = shutil.which("javac", path=str(Path(neo4j_server.java_command()).parent)) or shutil.which("javac")
    if javac is None:
        raise SandboxServiceError("javac (a JDK, not only a JRE) is needed to build the query sandbox")
    lib = neo4j_server.fetch()
    scratch = Path(tempfile.mkdtemp(prefix="sandbox-service-", dir=cache))
    command = [javac, "-nowarn", "-d", str(scratch), "-cp", f"{lib}/*", *map(str, sources)]
    done = subprocess.run(command, capture_output=True, text=True, timeout=300, check=False)
    if done.returncode != 0:
        shutil.rmtree(scratch, ignore_errors=True)
        raise SandboxServiceError(f"the query sandbox did not compile: {done.stderr[-2000:]}")
    (scratch / ".complete").write_text("ok\n")
    with contextlib.suppress(OSError):
        scratch.rename(target)  # another process may have won the race: its copy is the same
    shutil.rmtree(scratch, ignore_errors=True)
    return target


def command(cache: Path, limits: Limits) -> list[str]:
    """The java command line that runs the service."""
    classpath = f"{classes(cache)}{os.pathsep}{neo4j_server.fetch()}/*"
    return [
        neo4j_server.java_command(),
        f"-Xmx{limits.memory_mb}m",
        "-XX:+UseG1GC",
        "-cp",
        classpath,
        MAIN_CLASS,
    ]


def environment(token: str, limits: Limits, *, port: int = 0, work: Path | None = None) -> dict[str, str]:
    """The service's whole environment: nothing inherited but PATH and the locale."""
    env = {k: os.environ[k] for k in ("PATH", "LANG", "LC_ALL", "TZ") if k in os.environ}
    env |= limits.environment() | {"UHP_SANDBOX_TOKEN": token, "UHP_SANDBOX_PORT": str(port)}
    if work is not None:
        env["UHP_SANDBOX_WORK_DIR"] = str(work)
    return env


class LocalSandbox:
    """A service this process started and keeps running until `stop`.

    A service that ends on its own is started again on the same port with the same token within
    seconds (`restarts` counts them), so a client that knows the URL reconnects by itself.
    """

    def __init__(self, cache: Path, limits: Limits, work: Path | None):
        self.cache, self.limits, self.work = cache, limits, work
        self.token = secrets.token_urlsafe(32)
        self.restarts = 0
        self._stopping = threading.Event()
        self.process, port = self._launch(0)
        self.port = port
        self.url = f"http://127.0.0.1:{port}"
        self.last_failure = ""  # why the latest restart attempt failed, for a test or an operator to read
        self._supervisor = threading.Thread(target=self._supervise, name="sandbox-supervisor", daemon=True)
        self._supervisor.start()

    def _launch(self, port: int) -> tuple[subprocess.Popen[bytes], int]:
        process = subprocess.Popen(
            [*command(self.cache, self.limits), "--stdin"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            env=environment(self.token, self.limits, port=port, work=self.work),
            cwd=str(self.work or self.cache),
        )
        return process, _ready_port(process)

    def _supervise(self) -> None:
        """Waits on the service; when it ends and no one asked, starts it again on the same port."""
        while not self._stopping.is_set():
            self.process.wait()
            while not self._stopping.is_set():
                try:
                    self.process, _ = self._launch(self.port)
                except (SandboxServiceError, OSError) as e:  # the port may still be held for a moment
                    self.last_failure = str(e)
                    self._stopping.wait(RETRY_SECONDS)
                    continue
                self.restarts += 1
                break

    def kill(self) -> int:
        """SIGKILLs the running service (tests of supervision); returns the pid it had."""
        process = self.process
        process.kill()
        return process.pid

    def stop(self, timeout: float = 10.0) -> None:
        """Ends the service for good: closes its stdin (it exits), killing it past `timeout`."""
        self._stopping.set()
        process = self.process
        if process.poll() is None:
            with contextlib.suppress(OSError):
                if process.stdin is not None:
                    process.stdin.close()
            try:
                process.wait(timeout)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait(timeout)
        self._supervisor.join(timeout)

    def __enter__(self) -> LocalSandbox:
        return self

    def __exit__(self, *_: object) -> None:
        self.stop()


def start(cache: Path, limits: Limits | None = None, work: Path | None = None) -> LocalSandbox:
    """Starts a supervised service on a free loopback port with a new token; waits until it is ready."""
    if work is not None:
        work.mkdir(parents=True, exist_ok=True)
    return LocalSandbox(cache, limits or Limits(), work)


def _ready_port(process: subprocess.Popen[bytes]) -> int:
    """The port from the service's first line, or an error when it exits or is silent too long."""
    found: list[bytes] = []
    reader = threading.Thread(
        target=lambda: found.append(process.stdout.readline() if process.stdout else b"")
    )
    reader.daemon = True
    reader.start()
    reader.join(READY_SECONDS)
    line = found[0] if found else b""
    try:
        return int(json.loads(line)["port"])
    except (ValueError, KeyError, TypeError) as e:
        process.kill()
        raise SandboxServiceError("the query sandbox service did not start") from e


def main(argv: list[str]) -> int:
    """`python -m devtools sandbox`: runs the service in the foreground (UHP_SANDBOX_TOKEN required)."""
    cache = Path(os.environ.get("UHP_CACHE_DIR") or Path.home() / ".cache" / "uhp-memory")
    token = os.environ.get("UHP_SANDBOX_TOKEN", "")
    if len(token) < 16:
        print("UHP_SANDBOX_TOKEN must be set (16 characters or more)", file=sys.stderr)
        return 2
    limits = Limits(
        memory_mb=int(os.environ.get("UHP_SANDBOX_MEMORY_MB", "1024")),
        scope_mb=int(os.environ.get("UHP_SANDBOX_SCOPE_MB", "160")),
        scope_statements=int(os.environ.get("UHP_SANDBOX_SCOPE_STATEMENTS", "2")),
    )
    port = int(os.environ.get("UHP_SANDBOX_PORT", "7688"))
    env = environment(token, limits, port=port) | {
        "UHP_SANDBOX_BIND": os.environ.get("UHP_SANDBOX_BIND", "127.0.0.1")
    }
    java = command(cache, limits)
    # The service replaces this process: compose and scripts/serve supervise the JVM itself.
    os.execve(java[0], java + argv, env)  # noqa: S606 (a fixed argv, no shell)
