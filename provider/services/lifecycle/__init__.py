"""What happens to records over time.

Observe (episodes in, facts out) and its jobs, consolidation and its rules, entity merges and the
other record operations, priming, and the sweeper.
"""

from provider.services.lifecycle.consolidation import ConsolidationService
from provider.services.lifecycle.jobs import ObserveJobs
from provider.services.lifecycle.merge import EntityMerger
from provider.services.lifecycle.observe import ObserveService
from provider.services.lifecycle.prime import PrimeService
from provider.services.lifecycle.sweeper import Sweeper
from provider.services.lifecycle.type_operations import TypeService

__all__ = [
    "ConsolidationService",
    "EntityMerger",
    "ObserveJobs",
    "ObserveService",
    "PrimeService",
    "Sweeper",
    "TypeService",
]
