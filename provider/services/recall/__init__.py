"""Recall and the graph read.

A memory and what lies below it, searched by meaning, words and filters, fused into one ranking that
may abstain; and the records around one, as a graph.
"""

from provider.services.recall.graph import GraphService
from provider.services.recall.service import RecallService

__all__ = ["GraphService", "RecallService"]
