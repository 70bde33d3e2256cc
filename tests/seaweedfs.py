"""The S3-compatible store the tests and benchmarks run against: SeaweedFS, built once, run on loopback.

SeaweedFS is a Go module; `go install module/weed@version` refuses it (its go.mod has replace
directives), so the module is downloaded from the Go module proxy and its `weed` command built
inside the module's own directory, once per version, into the cache beside Neo4j's jars. `start()`
runs `weed mini` (master, volume, filer and S3 gateway in one process) in a fresh directory on free
loopback ports, with one access key and one bucket, and telemetry, WebDAV and the admin UI off.
Every wait is bounded; a failed build or start raises an error naming what to fix.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
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
from typing import IO, Any

import boto3
from botocore.config import Config

MODULE = "github.com/seaweedfs/seaweedfs"
VERSION = "v0.0.0-20261109003541-7506e5f91cd6"  # the version the Go module proxy serves here
BUILD_SECONDS = 3600.0  # a cold build on two busy cores took about 25 minutes
READY_SECONDS = 60.0
STOP_SECONDS = 10.0
FIX = (
    "SeaweedFS (the S3-compatible store of the file tests) could not be built: it needs Go 1.26+ and the"
    " Go module proxy (set GOTOOLCHAIN=go1.27.3 if Go asks for a newer toolchain)"
)


class SeaweedError(RuntimeError):
    """The store could not be built or started; the message says why."""


def cache_dir() -> Path:
    return Path(os.environ.get("UHP_CACHE_DIR") or Path.home() / ".cache" / "uhp-memory")


def binary() -> Path:
    """Where the built `weed` lives, keyed by version."""
    return cache_dir() / f"seaweedfs-{VERSION}" / "weed"


def ensure_binary(progress: IO[str] = sys.stderr) -> Path:
    """The cached `weed`, built first when missing (one builder at a time: others wait for it)."""
    target = binary()
    if target.exists():
        return target
    target.parent.mkdir(parents=True, exist_ok=True)
    with (target.parent / ".build.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not target.exists():
            _build(target, progress)
    return target


def say(progress: IO[str], line: str) -> None:
    print(f"seaweedfs: {line}", file=progress, flush=True)


def _go() -> str:
    go = shutil.which("go") or ("/usr/local/go/bin/go" if Path("/usr/local/go/bin/go").exists() else None)
    if go is None:
        raise SeaweedError(f"no `go` on PATH. {FIX}")
    return go


def _build(target: Path, progress: IO[str]) -> None:
    go = _go()
    began = time.monotonic()
    say(progress, f"downloading {MODULE}@{VERSION} from the Go module proxy")
    with tempfile.TemporaryDirectory() as outside:  # outside any module, so `go mod download` fetches it
        done = subprocess.run(
            [go, "mod", "download", "-json", f"{MODULE}@{VERSION}"],
            cwd=outside, capture_output=True, text=True, timeout=BUILD_SECONDS, check=False,
        )  # fmt: skip
    if done.returncode != 0:
        raise SeaweedError(f"`go mod download` failed: {done.stdout[-2000:]}{done.stderr[-2000:]}\n{FIX}")
    source = Path(json.loads(done.stdout)["Dir"])
    partial = target.with_suffix(".partial")
    say(progress, f"building weed in {source} (a cold build takes many minutes)")
    command = ["nice", "-n", "10", go, "build", "-v", "-trimpath", "-o", str(partial), "./weed"]
    with subprocess.Popen(
        command, cwd=source, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
    ) as child:
        assert child.stdout is not None
        tail = _follow(child.stdout, progress, began)
        try:
            child.wait(timeout=max(1.0, BUILD_SECONDS - (time.monotonic() - began)))
        except subprocess.TimeoutExpired:
            child.kill()
            raise SeaweedError(f"the build took longer than {BUILD_SECONDS:.0f} s. {FIX}") from None
    if child.returncode != 0:
        raise SeaweedError("the build failed:\n" + "\n".join(tail) + f"\n{FIX}")
    os.replace(partial, target)
    say(progress, f"built {target} in {time.monotonic() - began:.0f} s")


def _follow(lines: IO[str], progress: IO[str], began: float) -> list[str]:
    """Counts the packages `go build -v` names, reporting every 200; the last lines for an error."""
    tail: list[str] = []
    for count, line in enumerate(lines, 1):
        tail = [*tail[-30:], line.rstrip()]
        if count % 200 == 0:
            say(progress, f"{count} packages built, {time.monotonic() - began:.0f} s")
    return tail


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
    """`weed mini` in a fresh directory on free loopback ports, answering S3 with its bucket made."""
    weed = ensure_binary()
    home = Path(tempfile.mkdtemp(prefix="uhp-seaweedfs-"))
    port = free_port()
    target = S3Target(
        endpoint=f"http://127.0.0.1:{port}",
        access_key_id="uhp" + secrets.token_hex(8),
        secret_access_key=secrets.token_urlsafe(24),
        bucket=bucket,
        home=home,
    )
    env = {k: v for k, v in os.environ.items() if not k.startswith(("AWS_", "S3_"))}
    env |= {"AWS_ACCESS_KEY_ID": target.access_key_id, "AWS_SECRET_ACCESS_KEY": target.secret_access_key}
    log = (home / "weed.log").open("wb")
    target.proc = subprocess.Popen(
        [str(weed), "mini", *_flags(home, port, bucket)],
        cwd=home, env=env, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
    )  # fmt: skip
    log.close()
    try:
        _await_ready(target)
    except BaseException:
        target.stop()
        raise
    return target


def _flags(home: Path, s3_port: int, bucket: str) -> list[str]:
    ports = {
        name: free_port()
        for name in ("master.port", "master.port.grpc", "volume.port", "volume.port.grpc", "filer.port",
                     "filer.port.grpc", "s3.port.grpc", "admin.port", "admin.port.grpc")
    }  # fmt: skip
    return [
        f"-dir={home / 'data'}",
        "-ip=127.0.0.1",
        "-ip.bind=127.0.0.1",
        f"-s3.port={s3_port}",
        *(f"-{name}={port}" for name, port in ports.items()),
        f"-bucket={bucket}",
        "-master.telemetry=false",
        "-webdav=false",
        "-admin.ui=false",
        "-s3.port.iceberg=0",
        "-s3.port.lance=0",
        "-admin.port.legacy=0",
        "-s3.autoCreateBucket=false",
        "-master.volumeSizeLimitMB=256",
    ]


def _await_ready(target: S3Target) -> None:
    deadline = time.monotonic() + READY_SECONDS
    client = target.client()
    while True:
        assert target.proc is not None
        if target.proc.poll() is not None:
            raise SeaweedError(f"weed mini exited ({target.proc.returncode}):\n{_log_tail(target)}")
        with contextlib.suppress(Exception):
            client.head_bucket(Bucket=target.bucket)
            client.put_object(Bucket=target.bucket, Key="ready", Body=b"ready")
            client.delete_object(Bucket=target.bucket, Key="ready")
            return
        if time.monotonic() > deadline:
            raise SeaweedError(f"weed mini did not answer S3 in {READY_SECONDS:.0f} s:\n{_log_tail(target)}")
        time.sleep(0.3)


def _log_tail(target: S3Target, lines: int = 30) -> str:
    assert target.home is not None
    with contextlib.suppress(OSError):
        return "\n".join((target.home / "weed.log").read_text(errors="replace").splitlines()[-lines:])
    return ""


@contextlib.contextmanager
def running(bucket: str = "uhp-test") -> Iterator[S3Target]:
    """A store for the length of a `with` block."""
    target = start(bucket)
    try:
        yield target
    finally:
        target.stop()


if __name__ == "__main__":  # `python -m tests.seaweedfs prepare`, run by scripts/test
    if sys.argv[1:] != ["prepare"]:
        sys.exit("usage: python -m tests.seaweedfs prepare")
    try:
        print(f"seaweedfs: {ensure_binary()} ready")
    except SeaweedError as e:
        sys.exit(f"seaweedfs: {e}")
