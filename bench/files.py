"""File-store throughput: upload and read of a 25 MB file through the API, directory vs S3-compatible.

Run from the repository root: `python -m bench.files [--runs 7] [--mb 25]`. Two service processes
(`python -m provider serve`, over loopback HTTP) on the same Neo4j (NEO4J_URI or what
tests.neo4j_target.provision finds): one keeping file bytes in a local directory, one in S3Proxy
(tests/s3proxy.py fetches and starts it). Each run, through the typed client (provider.client),
uploads the same size of fresh random bytes (`upload_file`: `POST /v1/files`, multipart, from
memory), names the file in a record, and reads it back (`content_part`: `GET .../content/0`, read
whole and counted). Beside them, the floors: the same bytes written to and read from a local file,
and put to and got from the same S3Proxy bucket with boto3 directly.
Prints a table (median and p95 seconds, MB/s at the median) and writes bench/results/files.json.
"""

from __future__ import annotations

import argparse
import os
import platform
import secrets
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from bench.embeddings import percentile
from bench.report import aligned, report
from provider.client import MemoryClient
from tests import s3proxy
from tests.faults.service import Neo4jAccess, ServiceProcess
from tests.neo4j_target import provision

RESULTS = Path(__file__).resolve().parent / "results" / "files.json"
MB = 1_000_000
TIMEOUT = 300.0  # seconds for one call: a 25 MB upload to S3Proxy on a busy machine


def seconds(call: Callable[[], Any]) -> float:
    began = time.perf_counter()
    call()
    return time.perf_counter() - began


class Through:
    """One service: a member, a memory, and the timed upload and read of one file.

    Through the typed client, with no Idempotency-Key: one request per call, so a timed upload is the
    upload alone (no key claimed in Neo4j beside it).
    """

    def __init__(self, served: ServiceProcess):
        with MemoryClient(served.url, served.admin_key, timeout=TIMEOUT) as operator:
            member = operator.create_member("agent", "bench")
            key = operator.issue_key(member.id)
        self.memory = MemoryClient(served.url, key.key, timeout=TIMEOUT, idempotency=False)
        self.memory_id = self.memory.create_memory(f"bench-{secrets.token_hex(4)}").id

    def upload(self, data: bytes) -> tuple[float, str]:
        found: list[str] = []
        took = seconds(
            lambda: found.append(self.memory.upload_file("bench.bin", data, media_type="application/pdf").id)
        )
        return took, found[0]

    def read(self, file_id: str, size: int) -> float:
        content = [{"type": "file", "file": {"id": file_id}}]
        record = self.memory.remember(self.memory_id, content, type="note")

        def fetch() -> None:
            got = len(self.memory.content_part(self.memory_id, record.id, 0))
            assert got == size, (got, size)

        return seconds(fetch)

    def close(self) -> None:
        self.memory.delete_memory(self.memory_id)
        self.memory.close()


def disk_floor(data: bytes, folder: Path) -> tuple[float, float]:
    path = folder / "floor.bin"

    def write() -> None:
        with path.open("wb") as out:
            out.write(data)

    def read() -> None:
        with path.open("rb") as source:
            while source.read(1024 * 1024):
                pass

    took = seconds(write), seconds(read)
    path.unlink()
    return took


def s3_floor(data: bytes, target: s3proxy.S3Target, client: Any, run: int) -> tuple[float, float]:
    key = f"bench-floor/{run}"
    put = seconds(lambda: client.put_object(Bucket=target.bucket, Key=key, Body=data))

    def get() -> None:
        body = client.get_object(Bucket=target.bucket, Key=key)["Body"]
        while body.read(1024 * 1024):
            pass

    took = put, seconds(get)
    client.delete_object(Bucket=target.bucket, Key=key)
    return took


def stats(samples: list[float], size: int) -> dict[str, float]:
    median = statistics.median(samples)
    return {"median_s": median, "p95_s": percentile(samples, 0.95), "mb_per_s": size / MB / median}


def measure(runs: int, size: int, home: Path) -> dict[str, Any]:
    target = provision()
    try:
        with s3proxy.running("uhp-bench") as s3:
            access = Neo4jAccess(target.uri, target.user, target.password)
            directory = ServiceProcess(access, home / "files", home / "directory.log")
            bucket = ServiceProcess(access, home / "unused", home / "s3.log", settings=s3.settings("bench/"))
            try:
                directory.start()
                bucket.start()
                result = timed_runs(runs, size, home, s3, {"directory": directory, "s3": bucket})
            finally:
                directory.stop()
                bucket.stop()
        result["environment"] = {
            "neo4j": f"{target.version} {target.edition} ({target.source})",
            "s3proxy": s3proxy.VERSION,
            "python": platform.python_version(),
            "cpus": os.cpu_count(),
            "transport": "loopback HTTP to `python -m provider serve` (uvicorn)",
            "load_average_1m_at_end": os.getloadavg()[0],
        }
        return result
    finally:
        target.close()


def timed_runs(
    runs: int, size: int, home: Path, s3: s3proxy.S3Target, services: dict[str, ServiceProcess]
) -> dict[str, Any]:
    samples: dict[str, list[float]] = {}
    throughs = {name: Through(served) for name, served in services.items()}
    client = s3.client()
    try:
        for run in range(runs + 1):  # the first is a warm-up, not counted
            data = os.urandom(size)
            timings: dict[str, float] = {}
            for name, through in throughs.items():
                timings[f"{name} upload"], file_id = through.upload(data)
                timings[f"{name} read"] = through.read(file_id, size)
            timings["floor: local disk write"], timings["floor: local disk read"] = disk_floor(data, home)
            timings["floor: boto3 put"], timings["floor: boto3 get"] = s3_floor(data, s3, client, run)
            if run:
                for name, took in timings.items():
                    samples.setdefault(name, []).append(took)
    finally:
        for through in throughs.values():
            through.close()
    return {
        "runs": runs,
        "bytes": size,
        "samples_s": samples,
        **{n: stats(s, size) for n, s in samples.items()},
    }


ORDER = [
    "directory upload", "directory read", "s3 upload", "s3 read",
    "floor: local disk write", "floor: local disk read", "floor: boto3 put", "floor: boto3 get",
]  # fmt: skip


def table(result: dict[str, Any]) -> str:
    rows = [["what", "median s", "p95 s", "MB/s (median)"]]
    rows += [
        [n, f"{result[n]['median_s']:.3f}", f"{result[n]['p95_s']:.3f}", f"{result[n]['mb_per_s']:.0f}"]
        for n in ORDER
    ]
    lines = aligned(rows)
    env = result["environment"]
    lines.append(
        f"\n{result['bytes'] / MB:.0f} MB, {result['runs']} runs after one warm-up; neo4j {env['neo4j']}; "
        f"S3Proxy {env['s3proxy']}; {env['cpus']} CPUs; {env['transport']}"
    )
    lines.append(f"host load average (1 min) at the end: {env['load_average_1m_at_end']:.2f}")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--runs", type=int, default=7, help="timed runs (after one warm-up)")
    parser.add_argument("--mb", type=float, default=25, help="file size in MB (10^6 bytes)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="uhp-bench-files-") as home:
        result = measure(args.runs, int(args.mb * MB), Path(home))
    report(result, table, RESULTS)


if __name__ == "__main__":
    main()
