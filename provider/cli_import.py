"""Bulk import of records from JSON Lines (`python -m provider import`): batched, resumable, with progress.

At the CLI's edge: each line is parsed by the wire models, as the API parses a body, and the
record service receives drafts.

Each line is a record body as `POST .../records` takes it. A line's record id is derived from the
memory, the file's content hash and the line number, so re-running an import (or resuming after a
crash) never writes a record twice. A state file beside the input remembers the last line done.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import sys
import time
from collections.abc import Iterator
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, TextIO

from provider import ids
from provider.errors import MemoryInvalidError
from provider.models import Caller, RecordDraft
from provider.protocol.record_requests import RecordCreate
from provider.protocol.wire import parse
from provider.services.records.service import PreparedBatch, RecordService

Numbered = tuple[int, RecordDraft]


@dataclass
class ImportSummary:
    """What an import did; kept in the state file so a resumed run adds to it."""

    file: str
    memory_id: str
    lines_done: int = 0
    created: int = 0
    skipped_existing: int = 0
    rejected: list[dict[str, Any]] = field(default_factory=list)
    seconds: float = 0.0


def _file_digest(path: Path) -> str:
    h = hashlib.sha256()
    with path.open("rb") as handle:
        for chunk in iter(lambda: handle.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def line_record_id(memory_id: str, file_digest: str, line_number: int) -> str:
    """A stable id per (memory, file content, line)."""
    return ids.RECORD + hashlib.sha256(f"{memory_id}:{file_digest}:{line_number}".encode()).hexdigest()[:32]


class BulkImporter:
    """Reads, validates, embeds and writes in batches of `batch_size` records."""

    def __init__(self, records: RecordService, *, batch_size: int = 256, progress: TextIO = sys.stderr):
        self.records = records
        self.batch_size = batch_size
        self.progress = progress

    def state_path(self, path: Path, memory_id: str) -> Path:
        """Where a run's summary lives, beside the input."""
        return path.with_name(f"{path.name}.{memory_id}.import.json")

    async def run(self, caller: Caller, memory_id: str, path: Path, *, resume: bool) -> ImportSummary:
        """Imports `path` into the memory; returns (and saves) the summary."""
        state = self.state_path(path, memory_id)
        summary = ImportSummary(file=str(path), memory_id=memory_id)
        if resume and state.exists():
            summary = ImportSummary(**json.loads(state.read_text()))
        digest = _file_digest(path)
        total = sum(1 for _ in path.open("rb"))
        started = time.monotonic() - summary.seconds
        # While one batch is written, the next is validated and embedded: the model and Neo4j work
        # at the same time. A batch counts as done (and the state file moves on) once it is written.
        writing: asyncio.Task[None] | None = None
        try:
            for batch, last_line in self._batches(path, summary):
                prepared = await self._prepare(caller, memory_id, digest, batch)
                if writing is not None:
                    await writing
                    self._report(summary, total, started, state)
                writing = asyncio.create_task(self._write(prepared, summary, last_line))
            if writing is not None:
                await writing
        finally:
            if writing is not None and not writing.done():
                writing.cancel()
        summary.lines_done = max(summary.lines_done, total)
        self._report(summary, total, started, state)
        self.progress.write("\n")
        return summary

    def _batches(self, path: Path, summary: ImportSummary) -> Iterator[tuple[list[Numbered], int]]:
        """Parsed lines not done yet, `batch_size` at a time, each with the last line it covers."""
        batch: list[Numbered] = []
        done = number = summary.lines_done  # read once: the writer moves lines_done while this runs
        with path.open(encoding="utf-8") as lines:
            for number, line in enumerate(lines, start=1):
                if number <= done or not line.strip():
                    continue
                parsed = self._parse(number, line, summary)
                if parsed is not None:
                    batch.append((number, parsed))
                if len(batch) >= self.batch_size:
                    yield batch, number
                    batch = []
        if batch:
            yield batch, number

    @staticmethod
    def _parse(number: int, line: str, summary: ImportSummary) -> RecordDraft | None:
        """A line checked exactly as `POST .../records` checks its body (a bare value is the content)."""
        try:
            body = json.loads(line)
            return parse(RecordCreate, body if isinstance(body, dict) else {"content": body}).draft()
        except (json.JSONDecodeError, RecursionError, ValueError):
            message = "Not valid JSON."
        except MemoryInvalidError as e:
            message = e.message
        summary.rejected.append({"line": number, "code": "memory_invalid", "message": message})
        return None

    async def _prepare(
        self, caller: Caller, memory_id: str, digest: str, batch: list[Numbered]
    ) -> tuple[dict[str, int], PreparedBatch]:
        bodies = [(line_record_id(memory_id, digest, number), body) for number, body in batch]
        numbered = {record_id: number for (record_id, _), (number, _) in zip(bodies, batch, strict=True)}
        return numbered, await self.records.prepare_many(caller, memory_id, bodies)

    async def _write(
        self, prepared: tuple[dict[str, int], PreparedBatch], summary: ImportSummary, last_line: int
    ) -> None:
        numbered, batch = prepared
        created = await self.records.store_prepared(batch)
        for record_id, error in batch.refused.items():
            summary.rejected.append(
                {
                    "line": numbered[record_id],
                    "code": error.code,
                    "message": error.message,
                    "param": error.param,
                }
            )
        summary.created += created
        summary.skipped_existing += len(numbered) - len(batch.refused) - created
        summary.lines_done = last_line

    def _report(self, summary: ImportSummary, total: int, started: float, state: Path) -> None:
        summary.seconds = round(time.monotonic() - started, 3)
        state.write_text(json.dumps(asdict(summary), indent=2))
        rate = (summary.created + summary.skipped_existing) / summary.seconds if summary.seconds else 0.0
        width = 30
        filled = int(width * summary.lines_done / total) if total else width
        self.progress.write(
            f"\r[{'#' * filled}{'.' * (width - filled)}] {summary.lines_done}/{total} lines, "
            f"{summary.created} created, {len(summary.rejected)} rejected, {rate:,.0f} records/s"
        )
        self.progress.flush()
