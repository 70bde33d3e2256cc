"""The bytes of one content part, read at the record's `content/{index}` address."""

from __future__ import annotations

import io

from provider.errors import FileNotFoundInStoreError
from provider.models import Caller
from provider.services.records.files import FileBytes, FileService
from provider.services.records.service import RecordService


class ContentService:
    """Reads one part of a record at its own address, for whoever may read the record."""

    def __init__(self, records: RecordService, files: FileService):
        self.records = records
        self.files = files

    async def part(self, caller: Caller, memory_id: str, record_id: str, index: int) -> FileBytes:
        """A file part's exact bytes; a text part's words as UTF-8 text."""
        read = await self.records.get(caller, memory_id, record_id, None)
        parts = read.version.content
        if not 0 <= index < len(parts):
            raise FileNotFoundInStoreError("The record has no content part at that index.", param="index")
        part = parts[index]
        if part.get("type") == "file":
            return await self.files.open(part["file"]["id"])
        if isinstance(part.get("text"), str):
            words = part["text"].encode()
            return FileBytes(io.BytesIO(words), "text/plain; charset=utf-8", len(words))
        raise FileNotFoundInStoreError("That content part carries no bytes.", param="index")
