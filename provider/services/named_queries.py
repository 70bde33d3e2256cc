"""Named queries: a definition's rules (read-only Cypher, params as a JSON Schema) and param checking."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

import jsonschema

from provider.errors import MemoryInvalidError, MemoryUnsupportedError, NotFoundError
from provider.services.query_gate import StatementRefused, check_statement

NAME = re.compile(r"^[A-Za-z][A-Za-z0-9_.-]{0,63}$")
LANGUAGE = "cypher"
OPEN_PARAMS: dict[str, Any] = {"type": "object"}


class NamedQueryNotFoundError(NotFoundError):
    """No named query of that name on this memory (the memory itself is readable)."""

    code = "memory_query_not_found"


@dataclass(frozen=True)
class NamedQuery:
    """A stored definition, as `MemoryQuery` names its fields."""

    memory_id: str
    name: str
    description: str
    body: str
    params: dict[str, Any]
    requires: str = "read"
    language: str = LANGUAGE
    created_at: int | None = None
    updated_at: int | None = None
    written_by: str | None = None


def from_row(row: dict[str, Any]) -> NamedQuery:
    """Back from the stored node."""
    return NamedQuery(
        memory_id=row["memory_id"],
        name=row["name"],
        description=row.get("description") or "",
        body=row["body"],
        params=json.loads(row.get("params_json") or "{}"),
        requires=row.get("requires") or "read",
        language=row.get("language") or LANGUAGE,
        created_at=row.get("created_at"),
        updated_at=row.get("updated_at"),
        written_by=row.get("written_by"),
    )


def parse_definition(memory_id: str, name: str, body: dict[str, Any]) -> NamedQuery:
    """A PUT body checked: a name, read-only Cypher, a valid JSON Schema for params."""
    if not NAME.match(name):
        raise MemoryInvalidError(
            "A query name is a letter then up to 63 letters, digits, _ . or -.", param="name"
        )
    if body.get("name") not in (None, name):
        raise MemoryInvalidError("The body names another query than the path.", param="name")
    _check_language(body.get("language"))
    if body.get("requires", "read") != "read":
        raise MemoryUnsupportedError(
            "Named queries only read on this provider (requires: read).", param="requires"
        )
    text = body.get("body", body.get("statement"))
    if not isinstance(text, str) or not text.strip():
        raise MemoryInvalidError("body is the query's Cypher statement.", param="body")
    _check_body(text)
    description = body.get("description") or ""
    if not isinstance(description, str):
        raise MemoryInvalidError("description is a string.", param="description")
    return NamedQuery(memory_id, name, description, text, _schema(body.get("params")))


def _check_language(language: Any) -> None:
    if language is not None and (not isinstance(language, str) or language.lower() != LANGUAGE):
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


def _schema(params: Any) -> dict[str, Any]:
    """The params schema (an open object when none is given), checked against its metaschema."""
    if params is None:
        return dict(OPEN_PARAMS)
    if not isinstance(params, dict):
        raise MemoryInvalidError("params is a JSON Schema (an object).", param="params")
    try:
        jsonschema.Draft202012Validator.check_schema(params)
    except jsonschema.SchemaError as e:
        raise MemoryInvalidError("params is not a valid JSON Schema.", param="params") from e
    return params


def check_params(query: NamedQuery, params: Any) -> dict[str, Any]:
    """The run's params, validated against the query's schema; the message names the place, not values."""
    if params is None:
        params = {}
    if not isinstance(params, dict):
        raise MemoryInvalidError("params is an object.", param="params")
    validator = jsonschema.Draft202012Validator(query.params)
    error = jsonschema.exceptions.best_match(validator.iter_errors(params))
    if error is not None:
        where = "".join(f"[{p!r}]" if isinstance(p, int) else f".{p}" for p in error.absolute_path)
        raise MemoryInvalidError(
            f"params{where} does not match the query's schema ({error.validator}).",
            param="params" + where,
            detail={"schema_path": [str(p) for p in error.absolute_schema_path]},
        )
    return params
