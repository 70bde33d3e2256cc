"""The archive's shape (docs/EXPORT.md): tar members, JSON Lines entries and their checksums.

A tar is written member by member: each member's header needs its size, so JSON Lines go out in
chunks small enough to hold, and file bytes go out at the size their metadata states.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import json
import struct
import tarfile
from dataclasses import asdict, dataclass, field
from typing import Any

from provider.errors import MemoryInvalidError
from provider.models import ArchiveCounts, RecordVersion, Writer

FORMAT = "uhp-memory-archive"
FORMAT_VERSION = 1
FORMAT_MEMBER = "format.json"
MANIFEST_MEMBER = "manifest.json"
BLOCK = 512
END_OF_ARCHIVE = b"\0" * (2 * BLOCK)
# Members in the order an export writes them and a restore reads them.
KINDS = ("memories", "records", "snapshots", "grants", "files")


def header(name: str, size: int, mtime: int) -> bytes:
    """A member's tar header (POSIX ustar/pax) for `size` bytes that follow."""
    info = tarfile.TarInfo(name)
    info.size = size
    info.mtime = mtime
    info.mode = 0o644
    return info.tobuf(format=tarfile.PAX_FORMAT)


def padding(size: int) -> bytes:
    """The zeros that fill a member's data to a whole block."""
    return b"\0" * (-size % BLOCK)


def jsonl(entries: list[dict[str, Any]]) -> bytes:
    """Entries as JSON Lines: compact, keys sorted, UTF-8."""
    return b"".join(json.dumps(e, sort_keys=True, separators=(",", ":")).encode() + b"\n" for e in entries)


def version_entry(v: RecordVersion) -> dict[str, Any]:
    """One version as the archive holds it: every field, the writer as `written_by`."""
    entry = asdict(v)
    entry["written_by"] = entry.pop("writer")
    return entry


def version_of(entry: dict[str, Any]) -> RecordVersion:
    """Back from an archive entry; a malformed one is refused as an invalid archive."""
    try:
        fields = dict(entry)
        writer = Writer(**fields.pop("written_by"))
        return RecordVersion(**fields, writer=writer)
    except (TypeError, KeyError) as e:
        raise invalid(f"A record version in the archive is malformed: {e}.") from e


def packed(vector: list[float] | None) -> str | None:
    """A stored vector as base64 of little-endian float32; None without one, or if float32 would alter it."""
    if not vector:
        return None
    data = struct.pack(f"<{len(vector)}f", *vector)
    if list(struct.unpack(f"<{len(vector)}f", data)) != vector:
        return None
    return base64.b64encode(data).decode("ascii")


def unpacked(text: Any, dimension: int) -> list[float] | None:
    """A carried vector back, when it is one of `dimension` floats; anything else is None (embed again)."""
    if not isinstance(text, str):
        return None
    try:
        data = base64.b64decode(text, validate=True)
    except binascii.Error:
        return None
    if len(data) != 4 * dimension:
        return None
    return list(struct.unpack(f"<{dimension}f", data))


def invalid(message: str) -> MemoryInvalidError:
    """The refusal of an archive this restore cannot trust or read."""
    return MemoryInvalidError(message, param="archive")


@dataclass
class Manifest:
    """The last member: format, counts, whether something was left out, and each member's sha256."""

    root: str
    exported_at: int
    exported_by: str
    counts: ArchiveCounts = field(default_factory=ArchiveCounts)
    withheld: bool = False
    grants_included: bool = False
    members: dict[str, dict[str, Any]] = field(default_factory=dict)
    signature: str | None = None  # over every other field (signature.py); None: unsigned

    def add(self, name: str, data: bytes) -> None:
        """Notes a member whose bytes are all at hand."""
        self.members[name] = {"sha256": hashlib.sha256(data).hexdigest(), "bytes": len(data)}

    def unsigned(self) -> dict[str, Any]:
        """Every field but the signature, as the archive spells it: what a signature covers."""
        body = {"format": FORMAT, "format_version": FORMAT_VERSION, **asdict(self)}
        del body["signature"]
        return body

    def as_json(self) -> bytes:
        body = self.unsigned()
        if self.signature is not None:
            body["signature"] = self.signature
        return json.dumps(body, sort_keys=True, indent=1).encode()


def manifest_of(raw: bytes) -> Manifest:
    """The manifest read back; an unknown format or version is refused."""
    try:
        body = json.loads(raw)
        if body.get("format") != FORMAT or body.get("format_version") != FORMAT_VERSION:
            raise invalid(f"Not a {FORMAT} of version {FORMAT_VERSION}.")
        return Manifest(
            root=str(body["root"]),
            exported_at=int(body["exported_at"]),
            exported_by=str(body["exported_by"]),
            counts=ArchiveCounts(**body["counts"]),
            withheld=bool(body["withheld"]),
            grants_included=bool(body["grants_included"]),
            members=dict(body["members"]),
            signature=None if body.get("signature") is None else str(body["signature"]),
        )
    except (ValueError, TypeError, KeyError, AttributeError) as e:
        raise invalid("The archive's manifest is unreadable.") from e
