"""Domain types: plain data with no I/O, shared by services, access and store, one module per capability.

Every name is importable from `provider.models` too, so callers need not know the module.
"""

from __future__ import annotations

from provider.models.access import (
    ALL_PRIVILEGES,
    LONGEST_KEY_SECONDS,
    Caller,
    MemberType,
    Privilege,
    ordered_privileges,
)
from provider.models.archive import ArchiveCounts, EmbedReason, RestoredRecord, RestoreSummary
from provider.models.lifecycle import ConsolidationRun, JobState, OperationAsk, OperationOutcome, Primer
from provider.models.pages import Page, T
from provider.models.principals import ApiKey, IssuedKey, Membership, Principal, Usage, UsageLimits
from provider.models.queries import LANGUAGE, FreeQuery, NamedQuery, QueryRows
from provider.models.recall import (
    Explanation,
    FilterGroup,
    FilterLeaf,
    FilterNode,
    GraphAnswer,
    GraphAsk,
    RecallAnswer,
    RecallAsk,
    SignalPart,
)
from provider.models.records import (
    Erasure,
    ReadRecord,
    RecordChanges,
    RecordDraft,
    RecordVersion,
    Snapshot,
    StoredFile,
    StoredRecord,
    Writer,
)
from provider.models.tree import (
    Grant,
    GrantView,
    Harness,
    HarnessMemories,
    HarnessMemory,
    MemoryNode,
    MemoryView,
    NodeFacts,
    ScopeSizes,
)
from provider.models.vectors import VECTOR_INDEXES, VECTOR_SLOTS, Vectors, VectorState, other_slot

__all__ = [
    "ALL_PRIVILEGES",
    "LANGUAGE",
    "LONGEST_KEY_SECONDS",
    "VECTOR_INDEXES",
    "VECTOR_SLOTS",
    "ApiKey",
    "ArchiveCounts",
    "Caller",
    "ConsolidationRun",
    "EmbedReason",
    "Erasure",
    "Explanation",
    "FilterGroup",
    "FilterLeaf",
    "FilterNode",
    "FreeQuery",
    "Grant",
    "GrantView",
    "GraphAnswer",
    "GraphAsk",
    "Harness",
    "HarnessMemories",
    "HarnessMemory",
    "IssuedKey",
    "JobState",
    "MemberType",
    "Membership",
    "MemoryNode",
    "MemoryView",
    "NamedQuery",
    "NodeFacts",
    "OperationAsk",
    "OperationOutcome",
    "Page",
    "Primer",
    "Principal",
    "Privilege",
    "QueryRows",
    "ReadRecord",
    "RecallAnswer",
    "RecallAsk",
    "RecordChanges",
    "RecordDraft",
    "RecordVersion",
    "RestoreSummary",
    "RestoredRecord",
    "ScopeSizes",
    "SignalPart",
    "Snapshot",
    "StoredFile",
    "StoredRecord",
    "T",
    "Usage",
    "UsageLimits",
    "VectorState",
    "Vectors",
    "Writer",
    "ordered_privileges",
    "other_slot",
]
