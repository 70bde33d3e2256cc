"""The S3-compatible store the tests and benchmarks run against: S3Proxy, fetched once, run on loopback.

S3Proxy (`org.gaul:s3proxy`) is a real S3 API server in Java. Its jars come from Maven Central once
per version, into the cache beside Neo4j's (devtools.maven, as the local Neo4j's),
and it runs on the JDK the tests already need. `start()` runs it in a fresh directory on a free
loopback port with jclouds' `filesystem` backend, one access key (AWS signatures v2 and v4 checked)
and one bucket. Every wait is bounded; a failed fetch or start raises an error naming what to fix.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import boto3
from botocore.config import Config

from devtools import maven
from devtools.neo4j_server import LocalNeo4jError, java_command

VERSION = "2.6.0"  # Maven Central serves it here; it runs on JDK 17
FETCH_SECONDS = 900.0
READY_SECONDS = 60.0
STOP_SECONDS = 10.0
FIX = (
    "S3Proxy (the S3-compatible store of the file tests) could not be had: it needs Maven (apt-get install"
    " maven) reaching Maven Central, and a JDK 17+ (apt-get install openjdk-17-jdk-headless)"
)

# S3Proxy logs through logback, at DEBUG unless told otherwise: warnings are enough for a test log.
_LOGBACK = """<configuration>
  <appender name="out" class="ch.qos.logback.core.ConsoleAppender">
    <encoder><pattern>%d{HH:mm:ss.SSS} %-5level %logger{36} - %msg%n</pattern></encoder>
  </appender>
  <root level="WARN"><appender-ref ref="out"/></root>
</configuration>
"""


class S3ProxyError(RuntimeError):
    """The store could not be fetched or started; the message says why."""


def cache_dir() -> Path:
    return Path(os.environ.get("UHP_CACHE_DIR") or Path.home() / ".cache" / "uhp-memory")


def lib_dir() -> Path:
    """Where the server's jars live, keyed by version."""
    return cache_dir() / f"s3proxy-{VERSION}" / "lib"


def ensure_jars() -> Path:
    """The cached jars, fetched first when missing (one fetcher at a time: others wait for it)."""
    try:
        return maven.jars(
            lib_dir().parent,
            "s3proxy",
            VERSION,
            [("org.gaul", "s3proxy", VERSION)],
            timeout=FETCH_SECONDS,
            size="~45 MB",
        )
    except maven.MavenError as e:
        raise S3ProxyError(f"{e}. {FIX}") from e


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@dataclass
class S3Target:
    """A running S3-compatible store: where it answers, with which key, and its bucket."""

    endpoint: str
    access_key_id: str
    secret_access_key: str = field(repr=False)
    bucket: str
    region: str = "us-east-1"
    home: Path | None = None
    proc: subprocess.Popen[bytes] | None = field(default=None, repr=False)

    def client(self) -> Any:
        """A boto3 client on the store, for tests that look at the objects themselves."""
        return boto3.session.Session().client(
            "s3",
            endpoint_url=self.endpoint,
            region_name=self.region,
            aws_access_key_id=self.access_key_id,
            aws_secret_access_key=self.secret_access_key,
            config=Config(
                s3={"addressing_style": "path"},
                request_checksum_calculation="when_required",
                response_checksum_validation="when_required",
                connect_timeout=3,
                read_timeout=30,
            ),
        )

    def settings(self, prefix: str = "") -> dict[str, str]:
        """The UHP_* variables that point a service at this store."""
        return {
            "UHP_FILE_STORE": "s3",
            "UHP_S3_ENDPOINT": self.endpoint,
            "UHP_S3_REGION": self.region,
            "UHP_S3_BUCKET": self.bucket,
            "UHP_S3_PREFIX": prefix,
            "UHP_S3_ACCESS_KEY_ID": self.access_key_id,
            "UHP_S3_SECRET_ACCESS_KEY": self.secret_access_key,
        }

    def stop(self) -> None:
        """SIGTERM, SIGKILL after STOP_SECONDS; the directory goes too."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=STOP_SECONDS)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(timeout=STOP_SECONDS)
        if self.home is not None:
            shutil.rmtree(self.home, ignore_errors=True)


def start(bucket: str = "uhp-test") -> S3Target:
    """S3Proxy in a fresh directory on a free loopback port, answering S3 with its bucket made."""
    lib = ensure_jars()
    try:
        java = java_command()
    except LocalNeo4jError as e:
        raise S3ProxyError(f"{e}. {FIX}") from e
    home = Path(tempfile.mkdtemp(prefix="uhp-s3proxy-"))
    target = S3Target(
        endpoint=f"http://127.0.0.1:{free_port()}",
        access_key_id="uhp" + secrets.token_hex(8),
        secret_access_key=secrets.token_urlsafe(24),
        bucket=bucket,
        home=home,
    )
    (home / "data").mkdir()
    (home / "s3proxy.conf").write_text(_properties(target, home / "data"))
    (home / "logback.xml").write_text(_LOGBACK)
    command = [java, "-Xmx512m", f"-Dlogback.configurationFile={home / 'logback.xml'}", "-cp", f"{lib}/*"]
    command += ["org.gaul.s3proxy.Main", "--properties", str(home / "s3proxy.conf")]
    with (home / "s3proxy.log").open("wb") as log:
        target.proc = subprocess.Popen(
            command, cwd=home, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL
        )
    try:
        _await_ready(target)
    except BaseException:
        target.stop()
        raise
    return target


def _properties(target: S3Target, data: Path) -> str:
    return "\n".join(
        [
            f"s3proxy.endpoint={target.endpoint}",
            "s3proxy.authorization=aws-v2-or-v4",
            f"s3proxy.identity={target.access_key_id}",
            f"s3proxy.credential={target.secret_access_key}",
            "jclouds.provider=filesystem",
            f"jclouds.filesystem.basedir={data}",
            "",
        ]
    )


def _await_ready(target: S3Target) -> None:
    """Until the server answers with the key; then the bucket is made and written to once."""
    deadline = time.monotonic() + READY_SECONDS
    client = target.client()
    while True:
        assert target.proc is not None
        if target.proc.poll() is not None:
            raise S3ProxyError(f"S3Proxy exited ({target.proc.returncode}):\n{_log_tail(target)}")
        with contextlib.suppress(Exception):
            client.list_buckets()
            break
        if time.monotonic() > deadline:
            raise S3ProxyError(f"S3Proxy did not answer S3 in {READY_SECONDS:.0f} s:\n{_log_tail(target)}")
        time.sleep(0.2)
    client.create_bucket(Bucket=target.bucket)
    client.put_object(Bucket=target.bucket, Key="ready", Body=b"ready")
    client.delete_object(Bucket=target.bucket, Key="ready")


def _log_tail(target: S3Target, lines: int = 30) -> str:
    assert target.home is not None
    with contextlib.suppress(OSError):
        return "\n".join((target.home / "s3proxy.log").read_text(errors="replace").splitlines()[-lines:])
    return ""


@contextlib.contextmanager
def running(bucket: str = "uhp-test") -> Iterator[S3Target]:
    """A store for the length of a `with` block."""
    target = start(bucket)
    try:
        yield target
    finally:
        target.stop()


if __name__ == "__main__":  # `python -m tests.s3proxy prepare`, run by scripts/test
    if sys.argv[1:] != ["prepare"]:
        sys.exit("usage: python -m tests.s3proxy prepare")
    try:
        print(f"s3proxy: S3Proxy {VERSION} jars ready in {ensure_jars()}")
    except S3ProxyError as e:
        sys.exit(f"s3proxy: {e}")
