"""A local Neo4j 5.26 Community server, run from Maven Central's jars on the JDK, for development and tests.

Docker is not on every machine; a JDK and Maven usually are. The jars are fetched once into a cache
shared by every checkout; each server lives in its own home directory (conf, data, logs, password,
pid), so several run side by side, and a home stopped and started again keeps its data and password.
It runs past the size budget (~570 lines, a quarter of them the pom and neo4j.conf templates and the
CLI) because fetch, start, status and stop share one set of private helpers (paths, pid checks, the
readiness probe); the natural split is runtime (Maven, JDK) / server (lifecycle) / CLI.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import re
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from neo4j import Driver, GraphDatabase
from neo4j.exceptions import AuthError, DriverError, Neo4jError

from devtools import maven

NEO4J_VERSION = "5.26.30"
MIN_JAVA = 17
USER = "neo4j"
READY_TIMEOUT = 90.0
FETCH_TIMEOUT = 1800.0
MAIN_CLASS = "org.neo4j.server.CommunityEntryPoint"
ADMIN_CLASS = "org.neo4j.cli.AdminTool"
_SIZE = re.compile(r"^\d+[kmgKMG]?$")
_ERROR_LINE = re.compile(r"^\S+ \S+ ERROR ", re.MULTILINE)
_CONSOLE_ERROR = re.compile(r"Exception|Error|Caused by")
_PORT_LINE = re.compile(r"^server\.bolt\.listen_address=127\.0\.0\.1:(\d+)$", re.MULTILINE)

# The official launcher's defaults (server.jvm.additional) that matter on JDK 17, minus AlwaysPreTouch,
# which would slow start-up and commit the whole heap for a small dev server; plus exiting on OOM
# rather than limping on.
_JVM_FLAGS = (
    "-XX:+UseG1GC",
    "-XX:-OmitStackTraceInFastThrow",
    "-XX:+ExitOnOutOfMemoryError",
    "-XX:+DisableExplicitGC",
    "-Djdk.nio.maxCachedBufferSize=1024",
    "-Dio.netty.tryReflectionSetAccessible=true",
    "-Dlog4j2.disable.jmx=true",
    "-Dfile.encoding=UTF-8",
    "--add-opens=java.base/java.nio=ALL-UNNAMED",
    "--add-opens=java.base/java.io=ALL-UNNAMED",
    "--add-opens=java.base/sun.nio.ch=ALL-UNNAMED",
)

_CONF = """# Written by devtools/neo4j_server.py on every start: edits here are overwritten.
# Loopback and Bolt only: the provider and the tests need nothing else, and every open port is exposure.
server.default_listen_address=127.0.0.1
server.bolt.enabled=true
server.bolt.listen_address=127.0.0.1:{port}
server.bolt.advertised_address=127.0.0.1:{port}
server.http.enabled=false
server.https.enabled=false
server.memory.heap.initial_size={heap}
server.memory.heap.max_size={heap}
server.memory.pagecache.size={pagecache}
dbms.security.auth_enabled=true
dbms.security.allow_csv_import_from_file_urls=false
dbms.usage_report.enabled=false
# Two transaction log files instead of the default two days, 64 MB each instead of 256 MB, grown
# on demand rather than preallocated (which costs 0.5 GB per home up front): a dev or test server
# needs no point-in-time recovery, and the disks of laptops and CI runners are small.
db.tx_log.rotation.retention_policy=2 files
db.tx_log.rotation.size=64M
db.tx_log.preallocate=false
server.directories.data={home}/data
server.directories.logs={home}/logs
server.directories.plugins={home}/plugins
server.directories.import={home}/import
server.directories.run={home}/run
# Bolt's shutdown otherwise idles twice for 5 s (netty's quiet period, then a wait for connections that
# are already gone): half of every stop, paid by each test run. Internal settings, so pinned to 5.26.
internal.dbms.bolt.netty_server_shutdown_quiet_period=0
internal.server.bolt.connection_shutdown_wait_time=1s
"""

# Servers this process started: polling them reaps them, so an exited child never lingers as a zombie.
_children: dict[int, subprocess.Popen[bytes]] = {}


class LocalNeo4jError(RuntimeError):
    """The local server could not be fetched, started or reached; the message says what to do."""


@dataclass(frozen=True)
class LocalServer:
    """A running local server and how to reach it."""

    uri: str
    user: str
    password: str = field(repr=False)
    pid: int
    home: Path
    version: str


def cache_dir(version: str = NEO4J_VERSION) -> Path:
    """Where a version's jars live: outside the work tree, shared like the bootstrap's venv."""
    root = os.environ.get("UHP_CACHE_DIR") or str(Path.home() / ".cache" / "uhp-memory")
    return Path(root) / f"neo4j-{version}"


def java_command() -> str:
    """The java to run (JAVA_HOME's when set, as Maven does, else PATH's), checked to be JDK 17+."""
    java_home = os.environ.get("JAVA_HOME")
    candidate = Path(java_home, "bin", "java") if java_home else None
    java = str(candidate) if candidate and candidate.is_file() else shutil.which("java")
    if java is None:
        raise LocalNeo4jError(
            f"java was not found (JAVA_HOME unset or wrong, none on PATH): install JDK {MIN_JAVA} or newer"
            " (e.g. apt-get install openjdk-17-jdk-headless), or set NEO4J_URI to a running Neo4j 5.26"
        )
    major = _java_major(java)
    if major < MIN_JAVA:
        raise LocalNeo4jError(
            f"{java} is Java {major}; Neo4j {NEO4J_VERSION} needs JDK {MIN_JAVA} or newer"
            " (set JAVA_HOME to one), or set NEO4J_URI to a running Neo4j 5.26"
        )
    return java


def _java_major(java: str) -> int:
    """The major version `java -version` reports ("1.8.0" counts as 8)."""
    try:
        done = subprocess.run([java, "-version"], capture_output=True, text=True, timeout=30, check=False)
    except (OSError, subprocess.TimeoutExpired) as e:
        raise LocalNeo4jError(f"could not run {java} -version: {e}") from e
    match = re.search(r'version "(\d+)(?:\.(\d+))?', done.stderr + done.stdout)
    if match is None:
        raise LocalNeo4jError(f"could not read a Java version from `{java} -version`")
    major = int(match.group(1))
    return int(match.group(2) or 0) if major == 1 else major


def fetch(version: str = NEO4J_VERSION) -> Path:
    """The lib directory of the server's jars, downloaded with Maven on the first call only."""
    root = cache_dir(version)
    if (root / ".complete").is_file():
        return root / "lib"
    java_command()  # Maven runs on it, and a JDK too old for the server is better reported now
    server = ("org.neo4j.app", "neo4j-server", version)
    try:
        return maven.jars(
            root,
            "neo4j",
            version,
            [server, ("org.neo4j", "neo4j", version)],
            timeout=FETCH_TIMEOUT,
            size="~125 MB",
        )
    except maven.MavenError as e:
        raise LocalNeo4jError(f"{e}; to run without it, set NEO4J_URI to a running Neo4j 5.26") from e


def start(
    home: Path,
    port: int | None = None,
    *,
    heap: str = "512m",
    pagecache: str = "256m",
    settings: Mapping[str, str] | None = None,
    jvm_options: Sequence[str] = (),
) -> LocalServer:
    """Start the server kept in `home`, or return the one already running there once it answers.

    A running server keeps its port; `port` (default: the previous one if free, else any free one)
    applies to a new start only, and so do `settings` (extra neo4j.conf lines; a key the template
    already sets is refused) and `jvm_options` (extra JVM flags, -X only).
    """
    home = home.resolve()
    pid = _recorded_pid(home)
    if pid is not None:
        # Started earlier, perhaps still recovering: wait for it rather than start a second one.
        return _await_ready(home, pid, port=_recorded_port(home), log_from=None)
    if not (_SIZE.match(heap) and _SIZE.match(pagecache)):
        raise LocalNeo4jError(f"heap and pagecache must look like 512m or 1g, got {heap!r}, {pagecache!r}")
    lib, java = fetch(), java_command()
    port = port or _reusable_port(home) or _free_port()
    _prepare_home(home, port, heap, pagecache, settings or {})
    _ensure_password(home, java, lib)
    log_from = len(_log_text(home, "neo4j.log"))
    proc = _launch(home, java, lib, heap, jvm_options)
    try:
        return _await_ready(home, proc.pid, port=port, log_from=log_from)
    except LocalNeo4jError:
        stop(home, timeout=10)
        raise


def status(home: Path) -> LocalServer | None:
    """The server running in `home` when it answers within a few seconds, else None."""
    home = home.resolve()
    pid = _recorded_pid(home)
    if pid is None:
        return None
    uri, password = f"bolt://127.0.0.1:{_recorded_port(home)}", _read_password(home)
    try:
        version = server_version(uri, USER, password)
    except (DriverError, Neo4jError, OSError):
        return None
    return LocalServer(uri, USER, password, pid, home, version)


def stop(home: Path, timeout: float = 30) -> bool:
    """Stop the server in `home`: SIGTERM lets it check-point and close the store, SIGKILL is the fallback.

    Returns whether a running server was found.
    """
    home = home.resolve()
    pid = _read_pid(home)
    running = pid is not None and _alive(pid)
    if pid is not None and running:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGTERM)
        if not _wait_gone(pid, timeout):
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
            _wait_gone(pid, 10)
    (home / "neo4j.pid").unlink(missing_ok=True)
    return running


def server_info(uri: str, user: str, password: str, *, timeout: float = 10.0) -> tuple[str, str]:
    """The (version, edition) a server reports, e.g. ("5.26.30", "community")."""
    with _driver(uri, (user, password), timeout) as driver:
        return _probe(driver)


def server_version(uri: str, user: str, password: str) -> str:
    """The version a server reports through `CALL dbms.components()`."""
    return server_info(uri, user, password)[0]


def _driver(uri: str, auth: tuple[str, str], timeout: float) -> Driver:
    """A driver whose every wait is bounded by `timeout`."""
    # Acquisition covers the Bolt handshake too (default 60 s): a port that accepts but never answers
    # must not stall a probe.
    return GraphDatabase.driver(
        uri, auth=auth, connection_timeout=timeout, connection_acquisition_timeout=timeout
    )


def _probe(driver: Driver) -> tuple[str, str]:
    """RETURN 1 on the default database, then the server's version and edition."""
    # Auto-commit queries: execute_query would retry a refused connection for 30 s on its own.
    with driver.session() as session:
        session.run("RETURN 1").consume()
        query = "CALL dbms.components() YIELD versions, edition RETURN versions[0] AS version, edition"
        record = session.run(query).single(strict=True)
    return str(record["version"]), str(record["edition"])


def _prepare_home(home: Path, port: int, heap: str, pagecache: str, settings: Mapping[str, str]) -> None:
    """Create the home (private: it holds the password) and write this start's configuration."""
    home.mkdir(mode=0o700, parents=True, exist_ok=True)
    for name in ("conf", "data", "logs", "plugins", "import", "run"):
        (home / name).mkdir(exist_ok=True)
    conf = _CONF.format(port=port, heap=heap, pagecache=pagecache, home=home)
    for key, value in settings.items():
        # One line each: a newline or a key the template sets would smuggle in or shadow a setting.
        if "\n" in key + value or "=" in key or f"\n{key}=" in conf:
            raise LocalNeo4jError(f"refusing the extra Neo4j setting {key!r}")
        conf += f"{key}={value}\n"
    (home / "conf" / "neo4j.conf").write_text(conf)


def _ensure_password(home: Path, java: str, lib: Path) -> None:
    """Create and set the password before the first start; later starts keep what the database holds."""
    file = home / "password"
    if (home / "data" / "databases" / "system").exists():
        if not file.is_file():
            raise LocalNeo4jError(
                f"{home} holds a database but no password file: delete {home} to start afresh"
            )
        return
    if not file.is_file():
        fd = os.open(file, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w") as handle:
            # A leading letter: a password starting with "-" (1 in 64 of URL-safe tokens) would be
            # read as an option by the admin tool, which then prints its usage and fails the start.
            handle.write("p" + secrets.token_urlsafe(24) + "\n")
    # The password is briefly on this command line; the home is private and the server local.
    cmd = [java, "-cp", _classpath(lib), ADMIN_CLASS, "dbms", "set-initial-password", _read_password(home)]
    done = subprocess.run(cmd, env=_neo4j_env(home), capture_output=True, text=True, timeout=120, check=False)
    if done.returncode != 0:
        output = _last_lines(done.stdout + done.stderr, 20)
        raise LocalNeo4jError(f"setting the initial password in {home} failed:\n{output}")


def _launch(
    home: Path, java: str, lib: Path, heap: str, extra: Sequence[str] = ()
) -> subprocess.Popen[bytes]:
    """Run the server in its own session, so it outlives the command that started it, until stop()."""
    # The launcher script turns the heap settings into -Xms/-Xmx; running java directly, we do.
    if any(not flag.startswith("-X") for flag in extra):
        raise LocalNeo4jError(f"JVM options must be -X flags, got {list(extra)!r}")
    cmd = [java, f"-Xms{heap}", f"-Xmx{heap}", *_JVM_FLAGS, *extra, "-cp", _classpath(lib), MAIN_CLASS]
    cmd += [f"--home-dir={home}", f"--config-dir={home / 'conf'}"]
    # Truncated each launch: it holds what the JVM says before logging starts (a bad setting, a crash).
    with (home / "logs" / "console.log").open("wb") as console:
        proc = subprocess.Popen(
            cmd, cwd=home, env=_neo4j_env(home), stdout=console, stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL, start_new_session=True,
        )  # fmt: skip
    _children[proc.pid] = proc
    (home / "neo4j.pid").write_text(f"{proc.pid}\n")
    return proc


def _await_ready(home: Path, pid: int, *, port: int, log_from: int | None) -> LocalServer:
    """Poll Bolt until the server answers; fail fast when it exits, logs an error or refuses our password.

    `log_from` is the size neo4j.log had at launch (None: not launched by us), so an error left in the
    log by an earlier failed start of the same home is not taken for a new one.
    """
    uri, password = f"bolt://127.0.0.1:{port}", _read_password(home)
    deadline = time.monotonic() + READY_TIMEOUT
    with _driver(uri, (USER, password), 5.0) as driver:
        while True:
            _check_starting(home, pid, log_from)
            try:
                return LocalServer(uri, USER, password, pid, home, _probe(driver)[0])
            except AuthError as e:
                raise LocalNeo4jError(f"Neo4j in {home} refused the password in {home}/password") from e
            except (DriverError, Neo4jError, OSError):
                if time.monotonic() > deadline:
                    tail = _log_tail(home, log_from or 0)
                    message = f"Neo4j did not answer on {uri} in {READY_TIMEOUT:.0f} s; its log ends:\n{tail}"
                    raise LocalNeo4jError(message) from None
                time.sleep(0.25)


def _check_starting(home: Path, pid: int, log_from: int | None) -> None:
    """Raise when a starting server exited or logged an error: waiting longer only delays that failure."""
    # After a failed start the JVM can linger for a minute before it exits; the log says so at once.
    if not _alive(pid):
        reason = "exited while starting"
    elif log_from is not None and _ERROR_LINE.search(_log_text(home, "neo4j.log")[log_from:]):
        reason = "failed to start"
    else:
        return
    raise LocalNeo4jError(f"Neo4j in {home} {reason}; its log ends:\n{_log_tail(home, log_from or 0)}")


def _alive(pid: int) -> bool:
    """Whether `pid` is a running Neo4j server (not exited, a zombie, or a recycled pid)."""
    child = _children.get(pid)
    if child is not None:
        return child.poll() is None
    if not Path("/proc").is_dir():  # no /proc (macOS): existence is the best available answer
        try:
            os.kill(pid, 0)
        except OSError:
            return False
        return True
    try:
        cmdline = Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return False
    return MAIN_CLASS.encode() in cmdline


def _wait_gone(pid: int, timeout: float) -> bool:
    """Wait up to `timeout` seconds for `pid` to exit; True when it did."""
    deadline = time.monotonic() + timeout
    while _alive(pid):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.1)
    child = _children.pop(pid, None)
    if child is not None and child.stdin is not None:
        child.stdin.close()
    return True


def _read_pid(home: Path) -> int | None:
    """The pid recorded in `home`, if any."""
    try:
        return int((home / "neo4j.pid").read_text().strip())
    except (OSError, ValueError):
        return None


def _recorded_pid(home: Path) -> int | None:
    """The pid recorded in `home` when that process still runs."""
    pid = _read_pid(home)
    return pid if pid is not None and _alive(pid) else None


def _recorded_port(home: Path) -> int:
    """The Bolt port the last start of `home` configured."""
    try:
        match = _PORT_LINE.search((home / "conf" / "neo4j.conf").read_text())
    except OSError:
        match = None
    if match is None:
        raise LocalNeo4jError(
            f"{home}/conf/neo4j.conf names no Bolt port; stop the server and start it again"
        )
    return int(match.group(1))


def _reusable_port(home: Path) -> int | None:
    """The port of the previous start when still free: a restarted home keeps its URI."""
    with contextlib.suppress(LocalNeo4jError):
        port = _recorded_port(home)
        with socket.socket() as sock, contextlib.suppress(OSError):
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as the JVM binds it
            sock.bind(("127.0.0.1", port))
            return port
    return None


def _free_port() -> int:
    """A loopback port free right now (the kernel picks it)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _read_password(home: Path) -> str:
    """The password of user neo4j in `home`."""
    try:
        return (home / "password").read_text().strip()
    except OSError as e:
        raise LocalNeo4jError(f"{home}/password is missing: delete {home} to start afresh") from e


def _neo4j_env(home: Path) -> dict[str, str]:
    """The environment the admin tool and the server read their home and configuration from."""
    return {**os.environ, "NEO4J_HOME": str(home), "NEO4J_CONF": str(home / "conf")}


def _classpath(lib: Path) -> str:
    """Every jar in `lib`, as java's wildcard classpath."""
    return f"{lib}/*"


def _log_text(home: Path, name: str) -> str:
    """The text of a log file in `home` ("" when not written yet)."""
    try:
        return (home / "logs" / name).read_text(errors="replace")
    except OSError:
        return ""


def _log_tail(home: Path, log_from: int = 0) -> str:
    """What the server logged since `log_from` (a size of neo4j.log), and any errors on its console."""
    logged = _log_text(home, "neo4j.log")[log_from:].strip()
    console = _log_text(home, "console.log").strip()
    errors = [line for line in console.splitlines() if _CONSOLE_ERROR.search(line)]
    parts = [_last_lines(logged, 25)] if logged else []
    if errors or (console and not logged):
        parts.append("console:\n" + _last_lines("\n".join(errors[:8]) or console, 15))
    return "\n".join(parts) or "(nothing logged)"


def _last_lines(text: str, count: int) -> str:
    """The last `count` lines of `text`, indented so they read as quoted output."""
    return "\n".join("    " + line for line in text.strip().splitlines()[-count:])


def _describe(server: LocalServer, show_password: bool) -> str:
    """One JSON line about a server; the password only when asked for explicitly."""
    fields: dict[str, object] = {"uri": server.uri, "user": server.user, "pid": server.pid}
    fields |= {"version": server.version, "home": str(server.home)}
    if show_password:
        fields["password"] = server.password
    return json.dumps(fields)


def _cmd_start(args: argparse.Namespace) -> int:
    server = start(args.home, args.port, heap=args.heap, pagecache=args.pagecache)
    print(_describe(server, args.show_password))
    return 0


def _cmd_status(args: argparse.Namespace) -> int:
    server = status(args.home)
    if server is None:
        print(json.dumps({"running": False, "home": str(args.home.resolve())}))
        return 3  # as LSB init scripts say "not running"
    print(_describe(server, args.show_password))
    return 0


def _cmd_stop(args: argparse.Namespace) -> int:
    print(json.dumps({"stopped": stop(args.home, args.timeout), "home": str(args.home.resolve())}))
    return 0


def _cmd_fetch(args: argparse.Namespace) -> int:
    print(json.dumps({"version": NEO4J_VERSION, "lib": str(fetch())}))
    return 0


def _parser() -> argparse.ArgumentParser:
    """The CLI: one subcommand per function above, each taking --home."""
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--home", type=Path, default=Path.cwd() / ".local" / "neo4j", help="server home")
    parser = argparse.ArgumentParser(prog="neo4j", description=f"Manage a local Neo4j {NEO4J_VERSION}.")
    sub = parser.add_subparsers(dest="command", required=True)
    start_p = sub.add_parser("start", parents=[common], help="start (or find) the server in --home")
    start_p.add_argument("--port", type=int, default=None, help="Bolt port (default: a free one)")
    start_p.add_argument("--heap", default="512m")
    start_p.add_argument("--pagecache", default="256m")
    status_p = sub.add_parser("status", parents=[common], help="report the server in --home (exit 3: none)")
    for p in (start_p, status_p):
        p.add_argument("--show-password", action="store_true", help="include the password in the output")
    stop_p = sub.add_parser("stop", parents=[common], help="stop the server in --home")
    stop_p.add_argument("--timeout", type=float, default=30.0, help="seconds before SIGKILL")
    sub.add_parser("fetch", parents=[common], help="download the server's jars once")
    return parser


_COMMANDS: dict[str, Callable[[argparse.Namespace], int]] = {
    "start": _cmd_start,
    "status": _cmd_status,
    "stop": _cmd_stop,
    "fetch": _cmd_fetch,
}


def main(argv: list[str]) -> int:
    """Run one CLI command; errors are one line on stderr and exit status 1."""
    args = _parser().parse_args(argv)
    try:
        return _COMMANDS[args.command](args)
    except LocalNeo4jError as e:
        print(f"neo4j: {e}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
