"""Named queries: a definition as asked and as stored, and the rules a definition keeps."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from provider.errors import MemoryInvalidError, MemoryUnsupportedError, NotFoundError
from provider.models import LANGUAGE, NamedQuery
from provider.services.queries.gate import StatementRefused, check_statement

NAME = re.compile(r"^[A-Za-z][A-Za-z0-9_.-]{0,63}$")
OPEN_PARAMS: dict[str, Any] = {"type": "object"}


class NamedQueryNotFoundError(NotFoundError):
    """No named query of that name on this memory (the memory itself is readable)."""

    code = "memory_query_not_found"


@dataclass(frozen=True)
class QueryDefinition:
    """A `MemoryQuery` body as the definer gave it, shape already checked at the edge."""

    body: str
    description: str = ""
    params: dict[str, Any] | None = None
    requires: str = "read"
    language: str = LANGUAGE
    name: str | None = None


def definition_of(memory_id: str, name: str, asked: QueryDefinition) -> NamedQuery:
    """A definition's rules: a name, the path's name, cypher, `requires: read`, read-only Cypher.

    The params schema's own rules (params_schema) are checked by the caller, off the event loop.
    """
    if not NAME.match(name):
        raise MemoryInvalidError(
            "A query name is a letter then up to 63 letters, digits, _ . or -.", param="name"
        )
    if asked.name not in (None, name):
        raise MemoryInvalidError("The body names another query than the path.", param="name")
    check_language(asked.language)
    if asked.requires != "read":
        raise MemoryUnsupportedError(
            "Named queries only read on this provider (requires: read).", param="requires"
        )
    _check_body(asked.body)
    params = dict(OPEN_PARAMS) if asked.params is None else asked.params
    return NamedQuery(memory_id, name, asked.description, asked.body, params)


def check_language(language: str) -> None:
    """Cypher, in any case; anything else is not a language this provider runs."""
    if language.lower() != LANGUAGE:
        raise MemoryInvalidError("This provider runs queries in cypher only.", param="language")


def _check_body(text: str) -> None:
    try:
        check_statement(text)
    except StatementRefused as e:
        if e.writes:
            raise MemoryUnsupportedError(
                "A named query that writes is not supported: queries only read.", param="body"
            ) from e
        raise MemoryInvalidError(
            f"The statement is refused: queries may not use {e.construct}.", param="body"
        ) from e
