"""Java runtimes fetched once from Maven Central into the cache: a folder of jars per name and version.

The local Neo4j and the tests' S3 server both run from jars this way. A fetch writes a pom naming the
artifacts, lets Maven copy their runtime jars into a scratch folder, and renames it into place only
when whole; a lock makes two runs starting at once download once.
"""

from __future__ import annotations

import contextlib
import fcntl
import shutil
import subprocess
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path

# Pinned so a fetch does not depend on whichever plugin version Maven's metadata calls latest today.
DEPENDENCY_GOAL = "org.apache.maven.plugins:maven-dependency-plugin:3.8.1:copy-dependencies"

_POM = """<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>local.uhp-memory</groupId>
  <artifactId>{name}-runtime</artifactId>
  <version>{version}</version>
  <packaging>pom</packaging>
  <dependencies>
{dependencies}
  </dependencies>
</project>
"""
_DEPENDENCY = (
    "    <dependency><groupId>{0}</groupId><artifactId>{1}</artifactId><version>{2}</version></dependency>"
)


class MavenError(RuntimeError):
    """Maven is missing, failed, or ran past its time; the message says which."""


def jars(
    root: Path,
    name: str,
    version: str,
    artifacts: Sequence[tuple[str, str, str]],
    *,
    timeout: float,
    size: str,
) -> Path:
    """`root/lib`, holding the artifacts' runtime jars; fetched on the first call only."""
    marker = root / ".complete"
    if marker.is_file():
        return root / "lib"
    mvn = shutil.which("mvn")
    if mvn is None:
        raise MavenError("mvn (Apache Maven) was not found on PATH: install it (e.g. apt-get install maven)")
    root.mkdir(parents=True, exist_ok=True)
    with _locked(root / ".lock"):
        if not marker.is_file():
            dependencies = "\n".join(_DEPENDENCY.format(*artifact) for artifact in artifacts)
            (root / "pom.xml").write_text(_POM.format(name=name, version=version, dependencies=dependencies))
            print(f"{name}: fetching {name} {version} from Maven Central into {root / 'lib'} (once, {size})",
                  file=sys.stderr)  # fmt: skip
            _copy_jars(mvn, root, timeout)
            marker.write_text(f"{version}\n")
    return root / "lib"


@contextlib.contextmanager
def _locked(path: Path) -> Iterator[None]:
    """Holds an exclusive lock on `path` for the block; closing the file releases it."""
    with path.open("a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        yield


def _copy_jars(mvn: str, root: Path, timeout: float) -> None:
    """Maven copies the runtime jars into a scratch folder, renamed to root/lib when whole."""
    partial, lib = root / "lib.partial", root / "lib"
    shutil.rmtree(partial, ignore_errors=True)
    shutil.rmtree(lib, ignore_errors=True)
    command = [mvn, "-q", "-B", "-f", str(root / "pom.xml"), DEPENDENCY_GOAL]
    command += [f"-DoutputDirectory={partial}", "-DincludeScope=runtime"]
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=timeout, check=False)
    except subprocess.TimeoutExpired as e:
        raise MavenError(f"Maven did not fetch the jars within {timeout:.0f} s") from e
    if done.returncode != 0:
        output = "\n".join((done.stdout + done.stderr).splitlines()[-30:])
        raise MavenError(f"Maven could not fetch the jars (exit {done.returncode}):\n{output}")
    partial.rename(lib)
