"""Request bodies of records: `MemoryRecordCreate`, `MemoryRecordRevise`, their parts and references.

Each model is exact to the chapter's JSON Schema (`../shared/uhp/`), bounded by `wire.Limits`, and
turns into the domain's `RecordDraft` or `RecordChanges`, so services never read a raw body.
"""

from __future__ import annotations

import re
from datetime import datetime
from typing import Annotated, Any, Literal

from pydantic import AfterValidator, BeforeValidator, Field, WithJsonSchema, field_validator, model_validator

from provider.models import RecordChanges, RecordDraft
from provider.protocol.wire import (
    RequestBody,
    WireModel,
    check_free_object,
    check_text,
    current_limits,
    invalid,
)

TITLE_MAX = 300
TYPE_NAME = re.compile(r"^[a-z][a-z0-9_.-]{0,63}$")
ID_MAX = 128
SINGLE_RELS = ("subject", "object")


class FileRef(WireModel):
    """The file a part carries; only `id` is taken, the rest is completed from the file store."""

    id: str = Field(min_length=1, max_length=ID_MAX, description="A file uploaded with `POST /v1/files`.")
    name: str | None = Field(None, description="Ignored on write: taken from the stored file.")
    media_type: str | None = Field(None, description="Ignored on write: taken from the stored file.")
    bytes: int | None = Field(None, description="Ignored on write: taken from the stored file.")
    version: str | None = Field(None, description="Ignored on write.")


class ContentPart(WireModel):
    """`MemoryContentPart`: `text`, `file`, or an `x.`-prefixed kind carried unchanged."""

    model_config = WireModel.model_config | {"extra": "allow"}

    type: str = Field(min_length=1, max_length=64, description="`text`, `file`, or an `x.`-prefixed kind.")
    text: str | None = Field(
        None, description="The words of a text part, or the words that stand for a file."
    )
    text_source: Literal["stated", "derived"] | None = Field(
        None, description="Whether the words were given (stated) or produced from a file (derived)."
    )
    role: Literal["user", "assistant", "system", "tool"] | None = Field(
        None, description="Who said it, in an episode's turn."
    )
    file: FileRef | None = Field(None, description="For a file part: the uploaded file.")

    @field_validator("text")
    @classmethod
    def _bounded_text(cls, value: str | None) -> str | None:
        return None if value is None else check_text(value, what="a part's text")

    @model_validator(mode="after")
    def _known_kind(self) -> ContentPart:
        if self.type.startswith("x."):
            check_free_object(self.model_extra or {}, what="an extension part's fields")
        elif self.type == "text":
            if self.text is None:
                raise invalid("text", "a text part needs text")
        elif self.type == "file":
            if self.file is None:
                raise invalid("file.id", "a file part names its file by id")
        else:
            raise invalid("type", "a content part is text, file or an x.-prefixed kind")
        return self

    def stored(self) -> dict[str, Any]:
        """The part as kept: an extension part whole, text and file parts with only their own fields."""
        if self.type.startswith("x."):
            return self.model_dump(exclude_unset=True, mode="json")
        kept: dict[str, Any] = {"type": self.type}
        for name in ("text", "role", "text_source"):
            if getattr(self, name) is not None:
                kept[name] = getattr(self, name)
        if self.file is not None and self.type == "file":
            kept["file"] = {"id": self.file.id}
        return kept


def _few_parts(value: Any) -> Any:
    """Counted before any part is validated: 60,000 parts would hold the event loop for ~0.3 s."""
    cap = current_limits().parts
    if isinstance(value, list) and len(value) > cap:
        raise invalid("", f"a record holds at most {cap} content parts")
    return value


def _shorthand(value: Any) -> Any:
    return [{"type": "text", "text": value}] if isinstance(value, str) else _few_parts(value)


CONTENT_SCHEMA = {
    "oneOf": [
        {"type": "string", "description": "Shorthand for one text part."},
        {"type": "array", "items": {"$ref": "#/components/schemas/ContentPart"}},
    ],
    "description": "The record's content: a string (one text part) or an ordered list of parts.",
}
Content = Annotated[
    list[ContentPart],
    BeforeValidator(_shorthand),
    WithJsonSchema(CONTENT_SCHEMA),
]


class ReferenceIn(WireModel):
    """`MemoryReference` as a writer states it; the target's memory is found from its record id."""

    rel: str = Field("about", min_length=1, max_length=64, description="How this record relates to it.")
    record_id: str = Field(min_length=1, max_length=ID_MAX, description="The record referred to.")
    memory_id: str | None = Field(
        None, max_length=ID_MAX, description="Ignored on write: the server resolves it from record_id."
    )
    available: bool | None = Field(None, description="Ignored on write (a read's marker).")


def _few_references(value: Any) -> Any:
    """Counted before any reference is validated (60,000 fit in a body: ~0.3 s of event loop)."""
    cap = current_limits().references
    if isinstance(value, list) and len(value) > cap:
        raise invalid("", f"a record names at most {cap} references")
    return value


def _references(refs: list[ReferenceIn]) -> list[ReferenceIn]:
    for rel in SINGLE_RELS:
        if sum(1 for r in refs if r.rel == rel) > 1:
            raise invalid("", f"a record names at most one {rel}")
    return refs


def _instant(value: str | None) -> str | None:
    if value is None:
        return None
    try:
        datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        raise invalid("", "an ISO 8601 instant is expected") from None
    return value


Instant = Annotated[str | None, AfterValidator(_instant)]


class StatedTime(WireModel):
    """When the record holds true, as the writer states it; server times are never taken."""

    valid_from: Instant = Field(None, max_length=64, description="ISO 8601: from when it holds.")
    valid_to: Instant = Field(None, max_length=64, description="ISO 8601: until when it holds.")


class FollowsIn(WireModel):
    """Set only by a server key: the source outside the memory a record follows."""

    kind: str = Field(min_length=1, max_length=64, description="What the source is: `document`.")
    id: str = Field(min_length=1, max_length=ID_MAX, description="The source's id.")
    name: str | None = Field(None, max_length=TITLE_MAX, description="What a person calls the source.")


def _type_name(value: str) -> str:
    if not TYPE_NAME.match(value):
        raise invalid("", "type is a lower-case type name such as fact or note")
    return value


def _free(value: dict[str, Any]) -> dict[str, Any]:
    return check_free_object(value, what="attributes")


Attributes = Annotated[
    dict[str, Any],
    AfterValidator(_free),
    Field(description="Free-form fields, bounded in depth, keys and size (`attributes.*` in filters)."),
]
TypeName = Annotated[str, AfterValidator(_type_name)]
References = Annotated[list[ReferenceIn], BeforeValidator(_few_references), AfterValidator(_references)]


class RecordCreate(RequestBody):
    """`MemoryRecordCreate`: what a writer states; `written_by` and times are stamped by the server."""

    type: TypeName = Field(
        "fact", max_length=64, description="episode, fact, note, procedure, link, entity, ..."
    )
    title: str | None = Field(None, max_length=TITLE_MAX, description="One line that names the record.")
    content: Content = Field(default_factory=list)
    attributes: Attributes = Field(default_factory=dict)
    references: References = Field(default_factory=list, description="Records this one refers to.")
    time: StatedTime = Field(default_factory=StatedTime, description="`valid_from`, `valid_to`.")
    follows: FollowsIn | None = Field(None, description="Server keys only: the source this record follows.")

    @model_validator(mode="after")
    def _named(self) -> RecordCreate:
        if not self.title and all(p.type == "text" and not (p.text or "").strip() for p in self.content):
            raise invalid("content", "a record needs content or a title")
        return self

    def draft(self) -> RecordDraft:
        """The domain's view of the body."""
        return RecordDraft(
            type=self.type,
            title=self.title,
            content=[p.stored() for p in self.content],
            attributes=dict(self.attributes),
            references=[{"rel": r.rel, "record_id": r.record_id} for r in self.references],
            valid_from=self.time.valid_from,
            valid_to=self.time.valid_to,
            follows=self.follows.model_dump(exclude_none=True) if self.follows else None,
        )


class RecordRevise(RequestBody):
    """`MemoryRecordRevise`: fields given replace the current version's; fields left out are kept."""

    title: str | None = Field(None, max_length=TITLE_MAX, description="New title; null removes it.")
    content: Content | None = Field(None, description="New content (a string or a list of parts).")
    attributes: Attributes | None = Field(None, description="New attributes, restated whole.")
    references: References | None = Field(None, description="The references, restated whole.")
    time: StatedTime | None = Field(None, description="`valid_from`, `valid_to`, restated.")

    def changes(self) -> RecordChanges:
        """The domain's view: which fields were given, and their values."""
        given = frozenset(self.model_fields_set)
        return RecordChanges(
            given=given,
            title=self.title,
            content=[p.stored() for p in self.content or []],
            attributes=dict(self.attributes or {}),
            references=[{"rel": r.rel, "record_id": r.record_id} for r in self.references or []],
            valid_from=self.time.valid_from if self.time else None,
            valid_to=self.time.valid_to if self.time else None,
        )


def _named_text(value: str) -> str:
    if not value.strip():
        raise invalid("", "a name is not blank")
    return value


class SnapshotCreate(RequestBody):
    """`MemorySnapshotCreate`: a name for this instant of the memory."""

    name: Annotated[str, AfterValidator(_named_text)] = Field(
        min_length=1, max_length=TITLE_MAX, description="What the instant is called."
    )
    message: str | None = Field(None, max_length=4000, description="Why it was taken.")


MAX_EPISODES = 500


class EpisodeIn(WireModel):
    """One turn or passage as it happened; kept as an `episode` record written by the provider."""

    title: str | None = Field(None, max_length=TITLE_MAX, description="One line that names the episode.")
    content: Content = Field(description="What was said or seen: a string or a list of parts.")
    attributes: Attributes = Field(default_factory=dict)
    time: StatedTime = Field(default_factory=StatedTime, description="`valid_from`, `valid_to`.")

    @model_validator(mode="after")
    def _not_empty(self) -> EpisodeIn:
        if all(p.type == "text" and not (p.text or "").strip() for p in self.content):
            raise invalid("content", "an episode cannot be empty")
        return self

    def draft(self, references: list[dict[str, Any]]) -> RecordDraft:
        """The episode as a record draft, with the links observe found for it."""
        return RecordDraft(
            type="episode",
            title=self.title,
            content=[p.stored() for p in self.content],
            attributes=dict(self.attributes),
            references=references,
            valid_from=self.time.valid_from,
            valid_to=self.time.valid_to,
        )


class ObserveRequest(RequestBody):
    """`MemoryObserve`: episodes to keep, in order."""

    episodes: list[EpisodeIn] = Field(
        min_length=1, max_length=MAX_EPISODES, description=f"1 to {MAX_EPISODES} episodes."
    )
