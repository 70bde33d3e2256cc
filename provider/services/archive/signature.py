"""An archive's signature: HMAC-SHA256 of its manifest under the deployment's archive key.

The manifest names every other member with its sha256, so a signature over it vouches for the whole
archive. It travels in the manifest as `signature`, computed over the manifest's other fields as
canonical JSON (keys sorted, no whitespace, ASCII) rebuilt from the values a restore reads: what is
checked is exactly what is then used, whatever spacing or extra fields the manifest's bytes hold.
"""

from __future__ import annotations

import hashlib
import hmac
import json
from collections.abc import Mapping
from typing import Any

from provider.models import EmbedReason
from provider.services.archive.format import Manifest

ALGORITHM = "hmac-sha256"
# Binds a MAC to this use of the key: the same key put to another use never makes a manifest's.
CONTEXT = b"uhp-memory-archive manifest\n"


def canonical(body: Mapping[str, Any]) -> bytes:
    """The bytes a signature covers: the fields as compact JSON, keys sorted, ASCII only."""
    return json.dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=True).encode("ascii")


def seal(manifest: Manifest, key: bytes) -> str:
    """The manifest's signature under `key`, as the archive carries it: `hmac-sha256:<hex>`."""
    mac = hmac.new(key, CONTEXT + canonical(manifest.unsigned()), hashlib.sha256)
    return f"{ALGORITHM}:{mac.hexdigest()}"


def distrust(manifest: Manifest, key: bytes | None) -> EmbedReason | None:
    """Why the archive's vectors may not be taken as its words' own; None when its signature holds.

    Checksums only show the archive is whole: a valid signature under this deployment's key is what
    shows a deployment that shares the key made it, vectors included.
    """
    if key is None:
        return "no_key"
    if manifest.signature is None:
        return "unsigned"
    if not hmac.compare_digest(manifest.signature.encode(), seal(manifest, key).encode()):
        return "signature_mismatch"
    return None
