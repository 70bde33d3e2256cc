"""The JSON of lifecycle answers built from domain types: consolidation runs."""

from __future__ import annotations

from typing import Any

from provider import ids
from provider.models import ConsolidationRun


def run_json(run: ConsolidationRun, provider_id: str) -> dict[str, Any]:
    """`MemoryConsolidation`; times in seconds as the chapter's example gives them."""
    body: dict[str, Any] = {
        "id": run.id,
        "object": "memory.consolidation",
        "memory_id": run.memory_id,
        "status": run.status,
        "trigger": run.trigger,
        "started_at": (run.started_at_ms or 0) // 1000 or None,
        "finished_at": (run.finished_at_ms // 1000) if run.finished_at_ms else None,
        "read": {"examined": run.examined, "through": ids.iso(run.read_through_ms)},
        "changes": {"created": run.created, "superseded": run.superseded, "forgotten": run.forgotten},
        "budget": {"limit": run.budget_limit, "unit": "records", "exhausted": run.budget_exhausted},
        "written_by": {"kind": "provider", "id": provider_id, "consolidation_id": run.id},
        "error": run.error,
    }
    if run.revert_of:
        body["revert_of"] = run.revert_of
    if run.reverted_by:
        body["reverted_by"] = run.reverted_by
    return body
