"""The query sandbox's pristine store: made once per Neo4j version, copied into a sandbox on every reset.

A sandbox must answer as a function of the copy it holds and nothing else. Neo4j keeps state a load
cannot clear: internal node ids keep counting across deletes, tokens (property keys, labels) stay
once created, transaction counters run on. So a sandbox starts from a byte-for-byte copy of one
stopped, never-loaded store (with the sandbox's indexes already built), and goes back to it before
it holds another scope. Every sandbox made from the same template is the same database (same id,
same password), which is what makes two sandboxes given the same copy answer identically.
"""

from __future__ import annotations

import contextlib
import fcntl
import functools
import hashlib
import logging
import os
import shutil
import subprocess
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

from neo4j import GraphDatabase

from provider.store import local_server
from provider.store.catalogue import statement

# neo4j.conf lines a sandbox adds to the local server's own (loopback-only Bolt, no HTTP, auth on,
# no file URLs for LOAD CSV): no query log on disk (it would keep callers' statements and params), a
# memory cap per transaction (a runaway collect() fails instead of exhausting the small heap), and a
# time limit on any transaction as a backstop to each statement's own. Community Neo4j cannot
# disable its built-in procedures (the allowlist setting governs plugins only), so db.* and dbms.*
# stay callable in the process; the gate refuses them and the collector is stopped on every start.
HARDENING = {
    "db.logs.query.enabled": "OFF",
    "db.memory.transaction.max": "96m",
    "db.transaction.timeout": "120s",
}
# A sandbox lives for one scope and then restarts from the template, so it never reaches the steady
# state C2 compiles for: C1 alone halves the cold load of a copy and its first statements.
JVM_OPTIONS = ("-XX:TieredStopAtLevel=1",)
SCHEMA = (
    "sandbox_schema_record_id",
    "sandbox_schema_memory_id",
    "sandbox_schema_unavailable_id",
    "sandbox_schema_record_words",
)
INDEX_WAIT_SECONDS = 60.0
HOST_SOURCE = Path(__file__).with_name("UhpSandboxHost.java")
RESET_SECONDS = 60.0
log = logging.getLogger("provider.sandbox")


def schema_statements() -> list[str]:
    """The sandbox's index statements, in order."""
    return list(SCHEMA)


def template_dir(cache: Path) -> Path:
    """Where the template for this Neo4j version, hardening and schema lives."""
    digest = hashlib.sha256(
        repr((sorted(HARDENING.items()), [statement(n) for n in schema_statements()])).encode()
    )
    return cache / f"sandbox-template-{local_server.NEO4J_VERSION}-{digest.hexdigest()[:12]}"


@contextlib.contextmanager
def _locked(path: Path) -> Iterator[None]:
    """An exclusive lock across processes: two test runs build one template."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        yield


def runnable() -> bool:
    """Whether this machine can run a sandbox at all: a JDK, and the jars or Maven to fetch them."""
    java = os.environ.get("JAVA_HOME") or shutil.which("java")
    jars = (local_server.cache_dir() / ".complete").is_file() or shutil.which("mvn")
    return bool(java and jars)


def ensure_template(cache: Path, *, heap: str, pagecache: str) -> Path:
    """The template directory (data/ and password), built on first use: start, index, stop, keep."""
    template = template_dir(cache)
    with _locked(cache / ".sandbox-template.lock"):
        if (template / ".complete").is_file():
            return template
        scratch = Path(tempfile.mkdtemp(prefix="uhp-sandbox-template-", dir=cache))
        try:
            server = local_server.start(
                scratch, heap=heap, pagecache=pagecache, settings=HARDENING, jvm_options=JVM_OPTIONS
            )
            try:
                _build_schema(server.uri, server.user, server.password)
            finally:
                local_server.stop(scratch)
            shutil.rmtree(template, ignore_errors=True)
            template.mkdir(mode=0o700, parents=True)
            shutil.copytree(scratch / "data", template / "data")
            shutil.copy2(scratch / "password", template / "password")
            (template / ".complete").write_text(local_server.NEO4J_VERSION + "\n")
        finally:
            shutil.rmtree(scratch, ignore_errors=True)
    return template


def _build_schema(uri: str, user: str, password: str) -> None:
    """Creates the sandbox's indexes and waits until they are online."""
    with GraphDatabase.driver(uri, auth=(user, password)) as driver:
        for name in schema_statements():
            driver.execute_query(statement(name))
        deadline = time.monotonic() + INDEX_WAIT_SECONDS
        while driver.execute_query(statement("sandbox_indexes_pending")).records[0]["pending"]:
            if time.monotonic() > deadline:
                raise local_server.LocalNeo4jError("the query sandbox's indexes did not come online")
            time.sleep(0.2)


def restore(home: Path, template: Path) -> None:
    """Puts the template's store and password into a stopped sandbox's home."""
    home.mkdir(mode=0o700, parents=True, exist_ok=True)
    shutil.rmtree(home / "data", ignore_errors=True)
    shutil.copytree(template / "data", home / "data")
    shutil.copy2(template / "password", home / "password")
    (home / "password").chmod(0o600)


@functools.cache
def host(cache: Path) -> local_server.Host | None:
    """UhpSandboxHost compiled once (per source) into the cache; None where no javac can compile it.

    Asked on every reset, answered once per process (and a missing javac said once).
    """
    source = HOST_SOURCE.read_bytes()
    classes = cache / f"sandbox-host-{hashlib.sha256(source).hexdigest()[:12]}"
    found = local_server.Host(classes, HOST_SOURCE.stem)
    if (classes / f"{found.main}.class").is_file():
        return found
    java_home = os.environ.get("JAVA_HOME")
    javac = str(Path(java_home) / "bin" / "javac") if java_home else shutil.which("javac")
    if not javac or not Path(javac).is_file():
        log.warning("no javac: each query sandbox restarts its JVM to go back to the template")
        return None
    lib = local_server.fetch()
    with _locked(cache / ".sandbox-host.lock"):
        if (classes / f"{found.main}.class").is_file():
            return found
        scratch = Path(tempfile.mkdtemp(prefix="uhp-sandbox-host-", dir=cache))
        try:
            done = subprocess.run(
                [javac, "-d", str(scratch), "-cp", f"{lib}/*", str(HOST_SOURCE)],
                capture_output=True, text=True, timeout=120, check=False,
            )  # fmt: skip
            if done.returncode != 0:
                log.warning("UhpSandboxHost did not compile, so sandboxes restart their JVM: %s", done.stderr)
                return None
            shutil.rmtree(classes, ignore_errors=True)
            scratch.rename(classes)
        finally:
            shutil.rmtree(scratch, ignore_errors=True)
    return found


def start_pristine(
    home: Path, template: Path, *, heap: str, pagecache: str, runner: local_server.Host | None = None
) -> local_server.LocalServer:
    """Stops whatever runs in `home`, restores the template and starts it with the hardening."""
    local_server.stop(home, timeout=5)
    restore(home, template)
    server = local_server.start(
        home, heap=heap, pagecache=pagecache, settings=HARDENING, jvm_options=JVM_OPTIONS, host=runner
    )
    # Nothing may be read from disk (file URLs are refused too): the import directory is removed.
    shutil.rmtree(home / "import", ignore_errors=True)
    return server


def reset(home: Path, template: Path) -> local_server.LocalServer:
    """Puts a running host's server back on the template without a new JVM: stop, restore, start.

    Raises LocalNeo4jError when the host does not do it; the caller then restarts the process.
    """
    local_server.command(home, "stop", answer="stopped", timeout=RESET_SECONDS)
    restore(home, template)
    local_server.command(home, "start", answer="ready", timeout=RESET_SECONDS)
    return local_server.probe(home)


def reap_orphans(parent: Path) -> None:
    """Stops the sandboxes of processes that are gone (directories named `<pid>-…`) and removes them."""
    if not parent.is_dir():
        return
    for owner in parent.iterdir():
        pid = owner.name.partition("-")[0]
        if not pid.isdigit() or _alive(int(pid)):
            continue
        for home in owner.glob("sandbox-*"):
            local_server.stop(home, timeout=5)
        shutil.rmtree(owner, ignore_errors=True)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True
