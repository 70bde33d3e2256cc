"""Named and free Cypher.

The gate that vets a statement, the sandbox run within the caller's scope, named queries with their
parameter schemas, and the fence around what an answer may show.
"""

from provider.services.queries.named import NamedQuery, NamedQueryNotFoundError
from provider.services.queries.service import FreeQuery, QueryLimits, QueryRows, QueryService

__all__ = ["FreeQuery", "NamedQuery", "NamedQueryNotFoundError", "QueryLimits", "QueryRows", "QueryService"]
