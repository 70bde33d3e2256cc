"""Bulk import of records from JSON Lines: batched, resumable, with progress and a summary.

Each line is a record body as `POST .../records` takes it. A line's record id is derived from the
memory, the file's content hash and the line number, so re-running an import (or resuming after a
crash) never writes a record twice. A state file beside the input remembers the last line done.
"""

from __future__ import annotations

import hashlib
import json
import sys
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, TextIO

from provider import ids
from provider.models import Caller
from provider.services.records import RecordService


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
        batch: list[tuple[int, dict[str, Any]]] = []
        with path.open(encoding="utf-8") as lines:
            for number, line in enumerate(lines, start=1):
                if number <= summary.lines_done or not line.strip():
                    continue
                parsed = self._parse(number, line, summary)
                if parsed is not None:
                    batch.append((number, parsed))
                if len(batch) >= self.batch_size:
                    await self._flush(caller, memory_id, digest, batch, summary, number)
                    self._report(summary, total, started, state)
                    batch = []
            await self._flush(caller, memory_id, digest, batch, summary, total)
        self._report(summary, total, started, state)
        self.progress.write("\n")
        return summary

    @staticmethod
    def _parse(number: int, line: str, summary: ImportSummary) -> dict[str, Any] | None:
        try:
            body = json.loads(line)
        except json.JSONDecodeError:
            summary.rejected.append({"line": number, "code": "memory_invalid", "message": "Not valid JSON."})
            return None
        return body if isinstance(body, dict) else {"content": body}

    async def _flush(
        self,
        caller: Caller,
        memory_id: str,
        digest: str,
        batch: list[tuple[int, dict[str, Any]]],
        summary: ImportSummary,
        last_line: int,
    ) -> None:
        numbered = {line_record_id(memory_id, digest, number): (number, body) for number, body in batch}
        bodies = [(record_id, body) for record_id, (_, body) in numbered.items()]
        created, refused = await self.records.remember_many(caller, memory_id, bodies) if bodies else (0, {})
        for record_id, error in refused.items():
            summary.rejected.append(
                {
                    "line": numbered[record_id][0],
                    "code": error.code,
                    "message": error.message,
                    "param": error.param,
                }
            )
        summary.created += created
        summary.skipped_existing += len(bodies) - len(refused) - created
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
