"""Validation of what a writer states: content parts, title, type, references, time. Pure."""

from __future__ import annotations

import re
from datetime import datetime
from typing import Any

from provider.errors import MemoryInvalidError

CORE_TYPES = ("episode", "fact", "note", "procedure", "link", "entity")
ROLES = ("user", "assistant", "system", "tool")
TEXT_SOURCES = ("stated", "derived")
DEFINED_RELS = ("derived_from", "part_of", "about", "subject", "object")
SINGLE_RELS = ("subject", "object")
TITLE_MAX = 300
TYPE_NAME = re.compile(r"^[a-z][a-z0-9_.-]{0,63}$")
TIME_FIELDS = ("valid_from", "valid_to")


def normalise_type(value: Any) -> str:
    """A core type or an extension name; anything else is refused."""
    kind = "fact" if value is None else value
    if not isinstance(kind, str) or not TYPE_NAME.match(kind):
        raise MemoryInvalidError("type must be a lower-case type name such as fact or note.", param="type")
    return kind


def normalise_title(value: Any) -> str | None:
    """At most 300 characters, one line."""
    if value is None:
        return None
    if not isinstance(value, str) or len(value) > TITLE_MAX:
        raise MemoryInvalidError(f"title must be a string of at most {TITLE_MAX} characters.", param="title")
    return value


def normalise_content(value: Any, *, title: str | None) -> list[dict[str, Any]]:
    """A string is one text part; a list is checked part by part; empty only when a title names it."""
    if value is None:
        parts: list[dict[str, Any]] = []
    elif isinstance(value, str):
        parts = [{"type": "text", "text": value}]
    elif isinstance(value, list):
        parts = [_part(part, i) for i, part in enumerate(value)]
    else:
        raise MemoryInvalidError("content must be a string or a list of parts.", param="content")
    if not title and all(p.get("type") == "text" and not p["text"].strip() for p in parts):
        raise MemoryInvalidError("A record needs content or a title.", param="content")
    return parts


def _part(part: Any, index: int) -> dict[str, Any]:
    where = f"content.{index}"
    if not isinstance(part, dict) or not isinstance(part.get("type"), str):
        raise MemoryInvalidError("Each content part is an object with a type.", param=where)
    kind = part["type"]
    if kind.startswith("x."):
        return dict(part)
    if kind not in ("text", "file"):
        raise MemoryInvalidError(
            "A content part is text, file or an x.-prefixed kind.", param=f"{where}.type"
        )
    _check_role_and_source(part, where)
    if kind == "text":
        if not isinstance(part.get("text"), str):
            raise MemoryInvalidError("A text part needs text.", param=f"{where}.text")
        return {k: part[k] for k in ("type", "text", "role", "text_source") if k in part}
    return _file_part(part, where)


def _check_role_and_source(part: dict[str, Any], where: str) -> None:
    if "role" in part and part["role"] not in ROLES:
        raise MemoryInvalidError("role must be user, assistant, system or tool.", param=f"{where}.role")
    if "text_source" in part and part["text_source"] not in TEXT_SOURCES:
        raise MemoryInvalidError("text_source must be stated or derived.", param=f"{where}.text_source")


def _file_part(part: dict[str, Any], where: str) -> dict[str, Any]:
    file = part.get("file")
    if not isinstance(file, dict) or not isinstance(file.get("id"), str) or not file["id"]:
        raise MemoryInvalidError("A file part names its file by id.", param=f"{where}.file.id")
    if "text" in part and not isinstance(part["text"], str):
        raise MemoryInvalidError("A file part's text is a string.", param=f"{where}.text")
    kept: dict[str, Any] = {k: part[k] for k in ("type", "text", "role", "text_source") if k in part}
    kept["file"] = {"id": file["id"]}
    return kept


def normalise_references(value: Any) -> list[dict[str, Any]]:
    """`{rel, memory_id?, record_id}`; at most one subject and one object."""
    if value is None:
        return []
    if not isinstance(value, list):
        raise MemoryInvalidError("references must be a list.", param="references")
    refs = []
    for i, ref in enumerate(value):
        if not isinstance(ref, dict) or not isinstance(ref.get("record_id"), str) or not ref["record_id"]:
            raise MemoryInvalidError("A reference names a record_id.", param=f"references.{i}.record_id")
        rel = ref.get("rel", "about")
        if not isinstance(rel, str) or not rel:
            raise MemoryInvalidError("A reference's rel is a string.", param=f"references.{i}.rel")
        refs.append({"rel": rel, "record_id": ref["record_id"], "memory_id": ref.get("memory_id")})
    for rel in SINGLE_RELS:
        if sum(1 for r in refs if r["rel"] == rel) > 1:
            raise MemoryInvalidError(f"A record names at most one {rel}.", param="references")
    return refs


def normalise_attributes(value: Any) -> dict[str, Any]:
    """Free-form object for core types."""
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise MemoryInvalidError("attributes must be an object.", param="attributes")
    return dict(value)


def normalise_time(value: Any) -> dict[str, str | None]:
    """`valid_from`/`valid_to` as the writer states them (ISO 8601); server times are not taken."""
    if value is None:
        return {"valid_from": None, "valid_to": None}
    if not isinstance(value, dict):
        raise MemoryInvalidError("time must be an object.", param="time")
    stated: dict[str, str | None] = {}
    for name in TIME_FIELDS:
        raw = value.get(name)
        if raw is not None and (not isinstance(raw, str) or not _is_instant(raw)):
            raise MemoryInvalidError(f"time.{name} must be an ISO 8601 instant.", param=f"time.{name}")
        stated[name] = raw
    return stated


def _is_instant(raw: str) -> bool:
    try:
        datetime.fromisoformat(raw.replace("Z", "+00:00"))
    except ValueError:
        return False
    return True


def words_of(title: str | None, content: list[dict[str, Any]]) -> str:
    """What recall by words and by meaning reads: the title, text parts and the words of file parts."""
    pieces = [title] if title else []
    pieces += [p["text"] for p in content if isinstance(p.get("text"), str)]
    return "\n".join(pieces)
