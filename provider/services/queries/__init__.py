"""Named and free Cypher.

The gate that vets a statement, the sandbox run within the caller's scope, named queries with their
parameter schemas, and the fence around what an answer may show. The answers' domain types
(`FreeQuery`, `NamedQuery`, `QueryRows`) live in `provider.models`, where the wire can name them.
"""

from provider.services.queries.named import NamedQueryNotFoundError
from provider.services.queries.service import QueryService

__all__ = ["NamedQueryNotFoundError", "QueryService"]
