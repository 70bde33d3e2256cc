"""The explorer's one third-party script, fetched from npm at install time and checked, never committed.

The graph view draws with cytoscape. Its release is pinned here with the registry's integrity hash, so
`python -m provider explorer-assets` (run by scripts/test, scripts/serve and the image build; through
npm where it is installed, else straight from the registry) gets exactly that file or nothing.
Without it the explorer still works and says the graph cannot be drawn.
"""

from __future__ import annotations

import base64
import hashlib
import os
import shutil
import subprocess
import tarfile
import tempfile
import urllib.request
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class VendoredScript:
    """One npm package's browser build: which file of the tarball, and the tarball's sha512."""

    package: str
    version: str
    integrity: str  # npm's `sha512-<base64>` of the tarball
    member: str  # the file inside the tarball
    served_as: str  # its name under /explorer/vendor/

    @property
    def spec(self) -> str:
        return f"{self.package}@{self.version}"


CYTOSCAPE = VendoredScript(
    package="cytoscape",
    version="3.34.4",
    integrity="sha512-msY99tMY8iWTg+sIPGfSqDcPNOt4xcj+v/K/7qUFaCUxxlqnMkUYLBjRUzn9W5CU/R2hrmtJa5+UtovrEM2ctg==",
    member="package/dist/cytoscape.min.js",
    served_as="cytoscape.min.js",
)
SCRIPTS = (CYTOSCAPE,)
REGISTRY = "https://registry.npmjs.org"
LICENSE_MEMBER = "package/LICENSE"


class VendorError(RuntimeError):
    """The script could not be fetched, or what came is not what was pinned."""


def integrity_of(data: bytes) -> str:
    """Npm's integrity string for these bytes."""
    return "sha512-" + base64.b64encode(hashlib.sha512(data).digest()).decode()


def installed(directory: Path, script: VendoredScript = CYTOSCAPE) -> Path | None:
    """The script's path when it is in place for its pinned version."""
    path = directory / script.version / script.served_as
    return path if path.is_file() else None


def _download(script: VendoredScript, into: Path) -> Path:
    """The tarball straight from the registry over HTTPS (an image build has no npm); its path."""
    registry = os.environ.get("NPM_CONFIG_REGISTRY") or REGISTRY
    url = f"{registry.rstrip('/')}/{script.package}/-/{script.package}-{script.version}.tgz"
    if not url.startswith("https://"):
        raise VendorError(f"the npm registry must be an https:// URL, not {registry!r}")
    target = into / f"{script.package}-{script.version}.tgz"
    try:
        with urllib.request.urlopen(url, timeout=120) as answer:  # noqa: S310 - https checked above
            target.write_bytes(answer.read())
    except OSError as e:
        raise VendorError(f"{url} could not be fetched: {e}") from e
    return target


def _pack(script: VendoredScript, into: Path) -> Path:
    """`npm pack` through the npm registry npm is configured with, else HTTPS; the tarball's path."""
    npm = shutil.which("npm")
    if npm is None:
        return _download(script, into)
    done = subprocess.run(
        [npm, "pack", script.spec, "--pack-destination", str(into), "--silent"],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    if done.returncode != 0:
        raise VendorError(f"npm pack {script.spec} failed: {done.stderr.strip()[-400:]}")
    tarballs = sorted(into.glob("*.tgz"))
    if not tarballs:
        raise VendorError(f"npm pack {script.spec} wrote no tarball")
    return tarballs[0]


def fetch(directory: Path, script: VendoredScript = CYTOSCAPE) -> Path:
    """Puts the script (and its licence) under `directory/<version>/`; a no-op when already there."""
    existing = installed(directory, script)
    if existing is not None:
        return existing
    with tempfile.TemporaryDirectory() as scratch:
        tarball = _pack(script, Path(scratch))
        data = tarball.read_bytes()
        if integrity_of(data) != script.integrity:
            raise VendorError(f"{script.spec}: the tarball's sha512 is not the pinned one; refusing it")
        target = directory / script.version
        target.mkdir(parents=True, exist_ok=True)
        with tarfile.open(tarball) as archive:
            # The script last: its presence (`installed`) then means the licence is there too.
            for member, name in ((LICENSE_MEMBER, "LICENSE"), (script.member, script.served_as)):
                source = archive.extractfile(member)
                if source is None:
                    raise VendorError(f"{script.spec}: {member} is not in the tarball")
                partial = target / (name + ".part")
                partial.write_bytes(source.read())
                partial.replace(target / name)
    path = installed(directory, script)
    assert path is not None
    return path
