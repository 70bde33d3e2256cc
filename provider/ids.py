"""Identifiers and the server clock: one place, so every id has its prefix and every time its unit."""

from __future__ import annotations

import hashlib
import time
import uuid
from datetime import UTC, datetime

MEMORY = "hmem_"
RECORD = "hrec_"
GRANT = "hgrt_"
MEMBER = "hmbr_"
GROUP = "hgrp_"
HARNESS = "chrn_"


def new_id(prefix: str) -> str:
    """A prefix and 32 hex digits."""
    return prefix + uuid.uuid4().hex


def derived(prefix: str, seed: str, *parts: str) -> str:
    """An id a retry makes again: the prefix and 32 hex digits of a hash of the seed and the parts."""
    h = hashlib.sha256(seed.encode())
    for part in parts:
        h.update(b"\x00" + part.encode())
    return prefix + h.hexdigest()[:32]


def now_ms() -> int:
    """Milliseconds since the epoch, from the server clock."""
    return int(time.time() * 1000)


SNAPSHOT = "hsnp_"
CONSOLIDATION = "hcon_"
FILE = "file_"
JOB = "hjob_"


def iso(ms: int | None) -> str | None:
    """Milliseconds as an RFC 3339 instant in UTC, or None."""
    if ms is None:
        return None
    return datetime.fromtimestamp(ms / 1000, tz=UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def parse_instant(raw: str) -> int:
    """An ISO 8601 instant (naive means UTC) in milliseconds; ValueError when it is not one."""
    moment = datetime.fromisoformat(raw.replace("Z", "+00:00"))
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return int(moment.timestamp() * 1000)
