"""Identifiers and the server clock: one place, so every id has its prefix and every time its unit."""

from __future__ import annotations

import time
import uuid

MEMORY = "hmem_"
RECORD = "hrec_"
GRANT = "hgrt_"
MEMBER = "hmbr_"
GROUP = "hgrp_"
HARNESS = "chrn_"


def new_id(prefix: str) -> str:
    """A prefix and 32 hex digits."""
    return prefix + uuid.uuid4().hex


def now_ms() -> int:
    """Milliseconds since the epoch, from the server clock."""
    return int(time.time() * 1000)
