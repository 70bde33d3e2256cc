"""Wire shape of a recall answer (`MemoryRecall`) and of the neighbours it names."""

from __future__ import annotations

from typing import Any

from provider.models import MemoryView, RecallAnswer, ordered_privileges
from provider.protocol.records import record_json


def neighbour_json(view: MemoryView) -> dict[str, Any]:
    """`MemoryNeighbour`: where the caller can go next, with counts to decide whether to."""
    return {
        "id": view.node.id,
        "name": view.node.name,
        "description": view.node.description,
        "records": {"count": view.node.record_count},
        "children": {"count": view.visible_children},
        "privileges": ordered_privileges(view.privileges),
    }


def recall_json(answer: RecallAnswer) -> dict[str, Any]:
    """Results as data (`trust: untrusted` on every record), neighbours, `degraded`, `abstain`."""
    body: dict[str, Any] = {
        "object": "memory.recall",
        "results": [
            {"record": record_json(read), "memory": memory, "score": score, "why": why}
            for read, memory, score, why in answer.results
        ],
        "children": [neighbour_json(c) for c in answer.children],
        "degraded": list(answer.degraded),
        "abstain": answer.abstain,
    }
    if answer.parent is not None:
        body["parent"] = neighbour_json(answer.parent)
    return body
