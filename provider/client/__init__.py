"""A typed Python client of the service, sync and async, on httpx.

    from provider.client import MemoryClient

    with MemoryClient("http://localhost:8080", key) as memory:
        home = memory.create_memory("notes")
        memory.remember(home.id, "The lighthouse keeper logs the weather at dawn.")
        for hit in memory.recall(home.id, query="Who logs the weather?").results:
            print(hit.score, hit.record.content)

Answers are the service's own answer models (`provider.protocol.answers`); refusals raise
`UhpError` subclasses carrying the chapter's `code`; writes carry an Idempotency-Key reused on retry.
"""

from provider.client.aio import AsyncMemoryClient
from provider.client.errors import (
    AuthenticationError,
    ConflictError,
    InvalidRequestError,
    NotFoundError,
    PermissionDeniedError,
    RateLimitError,
    ServerError,
    UhpError,
    UnavailableError,
)
from provider.client.sync import MemoryClient

__all__ = [
    "AsyncMemoryClient",
    "AuthenticationError",
    "ConflictError",
    "InvalidRequestError",
    "MemoryClient",
    "NotFoundError",
    "PermissionDeniedError",
    "RateLimitError",
    "ServerError",
    "UhpError",
    "UnavailableError",
]
