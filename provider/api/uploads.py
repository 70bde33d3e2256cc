"""A multipart upload read as it arrives: the file part streams into a staged blob, nothing is spooled.

Starlette's form parser would copy the file into a spooled temporary file first (memory, then the
system's temp directory) and only then hand it over; here its bytes go once, straight to the blob
directory, hashed on the way. The body's size is bounded before this runs (edge.BodyLimit).
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from fastapi import Request
from python_multipart.exceptions import FormParserError
from python_multipart.multipart import MultipartParser, parse_options_header
from starlette.requests import ClientDisconnect

from provider.blobs import StagedBlob
from provider.errors import InvalidInputError

if TYPE_CHECKING:
    from python_multipart.multipart import MultipartCallbacks

FIELD_CAP = 1024  # bytes of a text field (`purpose`); the file is the only large part
FLUSH_BYTES = 1024 * 1024  # file bytes held before one write off the event loop


@dataclass
class Upload:
    """What the parts said besides the bytes."""

    filename: str = "file"
    media_type: str = "application/octet-stream"
    purpose: str = "user_data"
    has_file: bool = False


@dataclass
class _Parts:
    """python-multipart's callbacks: the current part's headers, the text fields, pending file bytes."""

    upload: Upload = field(default_factory=Upload)
    header: bytes = b""
    value: bytes = b""
    headers: dict[bytes, bytes] = field(default_factory=dict)
    target: str = ""  # "file", "purpose" or "" (a part nobody reads)
    text: bytearray = field(default_factory=bytearray)
    pending: list[bytes] = field(default_factory=list)
    pending_bytes: int = 0

    def on_part_begin(self) -> None:
        self.headers, self.text = {}, bytearray()

    def on_header_field(self, data: bytes, start: int, end: int) -> None:
        self.header += data[start:end]

    def on_header_value(self, data: bytes, start: int, end: int) -> None:
        self.value += data[start:end]

    def on_header_end(self) -> None:
        self.headers[self.header.lower()] = self.value
        self.header, self.value = b"", b""

    def on_headers_finished(self) -> None:
        _, options = parse_options_header(self.headers.get(b"content-disposition"))
        name = options.get(b"name", b"").decode("latin-1")
        self.target = name if name in ("file", "purpose") else ""
        if self.target == "file":
            if self.upload.has_file:
                raise InvalidInputError("An upload carries one file.", param="file")
            self.upload.has_file = True
            self.upload.filename = _decoded(options.get(b"filename", b"")) or "file"
            media, _ = parse_options_header(self.headers.get(b"content-type"))
            self.upload.media_type = media.decode("latin-1").strip().lower() or "application/octet-stream"

    def on_part_data(self, data: bytes, start: int, end: int) -> None:
        if self.target == "file":
            self.pending.append(data[start:end])
            self.pending_bytes += end - start
        elif self.target == "purpose":
            self.text += data[start:end]
            if len(self.text) > FIELD_CAP:
                raise InvalidInputError(f"purpose is at most {FIELD_CAP} bytes.", param="purpose")

    def on_part_end(self) -> None:
        if self.target == "purpose":
            self.upload.purpose = _decoded(bytes(self.text)) or "user_data"
        self.target = ""

    def callbacks(self) -> MultipartCallbacks:
        return {
            "on_part_begin": self.on_part_begin,
            "on_header_field": self.on_header_field,
            "on_header_value": self.on_header_value,
            "on_header_end": self.on_header_end,
            "on_headers_finished": self.on_headers_finished,
            "on_part_data": self.on_part_data,
            "on_part_end": self.on_part_end,
        }

    def take(self) -> bytes:
        data, self.pending, self.pending_bytes = b"".join(self.pending), [], 0
        return data


def _decoded(raw: bytes) -> str:
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        return raw.decode("latin-1")


def _boundary(request: Request) -> bytes:
    media, options = parse_options_header(request.headers.get("content-type"))
    if media != b"multipart/form-data" or not options.get(b"boundary"):
        raise InvalidInputError("An upload is a multipart/form-data body with a file part.", param="file")
    return options[b"boundary"]


async def read_upload(request: Request, staged: StagedBlob) -> Upload:
    """Feeds the body through the parser, writing the file part's bytes to `staged` as they come."""
    parts = _Parts()
    parser = MultipartParser(_boundary(request), parts.callbacks())
    try:
        async for chunk in request.stream():
            parser.write(chunk)
            if parts.pending_bytes >= FLUSH_BYTES:
                await asyncio.to_thread(staged.write, parts.take())
        parser.finalize()
    except ClientDisconnect as e:
        raise InvalidInputError("The upload ended before its last byte.", param="file") from e
    except FormParserError as e:
        raise InvalidInputError("The multipart body is malformed.", param="file") from e
    if parts.pending:
        await asyncio.to_thread(staged.write, parts.take())
    if not parts.upload.has_file:
        raise InvalidInputError("file: a part named file with the bytes is required.", param="file")
    return parts.upload
