"""An OpenTelemetry Collector for the trace tests: built once from the Go module proxy into the cache.

The collector's own builder (`go.opentelemetry.io/collector/cmd/builder`) compiles a distribution
with just the OTLP receiver and the debug exporter; no image registry and no prebuilt binary is
asked. `python -m devtools otelcol` builds it (minutes, on every core: run it alone) and prints
its path; the tests only look for it.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

VERSION = "0.165.0"
NAME = "uhp-otelcol"
MANIFEST = """dist:
  name: {name}
  description: OTLP receiver and debug exporter, for uhp-memory's trace test
  output_path: {out}
receivers:
  - gomod: go.opentelemetry.io/collector/receiver/otlpreceiver v{version}
exporters:
  - gomod: go.opentelemetry.io/collector/exporter/debugexporter v{version}
"""


def binary(version: str = VERSION) -> Path:
    """Where the built collector lives (it may not be there yet)."""
    root = os.environ.get("UHP_CACHE_DIR") or str(Path.home() / ".cache" / "uhp-memory")
    return Path(root) / f"otelcol-{version}" / NAME


def build(version: str = VERSION) -> Path:
    """Builds the collector unless it is already there; its path."""
    target = binary(version)
    if target.exists():
        return target
    go = shutil.which("go")
    if go is None:
        raise RuntimeError("building the collector needs the Go toolchain (`go`) on PATH")
    with tempfile.TemporaryDirectory(prefix="otelcol-") as work:
        bin_dir, out = Path(work) / "bin", Path(work) / "out"
        env = {**os.environ, "GOBIN": str(bin_dir), "GOFLAGS": "-buildvcs=false"}
        builder = f"go.opentelemetry.io/collector/cmd/builder@v{version}"
        subprocess.run([go, "install", builder], check=True, env=env)
        manifest = Path(work) / "manifest.yaml"
        manifest.write_text(MANIFEST.format(name=NAME, out=out, version=version))
        subprocess.run([str(bin_dir / "builder"), "--config", str(manifest)], check=True, env=env)
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(out / NAME, target.with_suffix(".partial"))
        os.replace(target.with_suffix(".partial"), target)
    return target


def main(argv: list[str]) -> int:
    """`otelcol`: builds (or finds) the collector and prints its path."""
    if argv:
        print("usage: python -m devtools otelcol", file=sys.stderr)
        return 2
    print(build())
    return 0
