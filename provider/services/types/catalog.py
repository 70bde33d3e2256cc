"""The record types this provider understands: the core ones, and `x.person` and `x.company`.

The chapter reserves unprefixed type names for itself, so the types a provider adds carry the `x.`
prefix. Each added type has a JSON Schema for its attributes (closed: a field it does not name is
refused, so a misspelt `alias` is a 422 and not a silently ignored key), a text projection that
makes its fields findable by recall, and operations, each with the privilege it needs.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from provider.models import Privilege

PERSON = "x.person"
COMPANY = "x.company"
WORKS_FOR = "works_for"

CORE_TYPES = {
    "episode": "Raw experience as it arrived: a turn, a transcript, an action and its result. Append-only.",
    "fact": "One thing worth remembering, as it was said. May name a subject and an object entity.",
    "note": "A document an agent or a person wrote and keeps up to date.",
    "procedure": "A how-to, with the situation it applies to.",
    "link": "A pointer to something kept elsewhere: an address and what it is.",
    "entity": "Something records are about: a person, a company, a product, a place. Its title is its name.",
}

NAME = {"type": "string", "minLength": 1, "maxLength": 300, "pattern": "\\S"}
SHARED = {
    "standing": {"type": "boolean", "description": "true: primed into every session that starts here."},
    "revision_reason": {"type": "string", "maxLength": 500, "description": "Why the last revision was made."},
}


def _names(what: str) -> dict[str, Any]:
    return {
        "type": "array",
        "items": NAME,
        "maxItems": 64,
        "uniqueItems": True,
        "description": f"Other names {what} answers to: a short name, a former name, initials, another "
        "spelling. Observe links an episode that mentions any of them to this record.",
    }


PERSON_SCHEMA: dict[str, Any] = {
    "type": "object",
    "required": ["name"],
    "additionalProperties": False,
    "properties": {
        "name": {**NAME, "description": "What the person is called, in full (Ada Lovelace)."},
        "aliases": _names("the person"),
        "emails": {
            "type": "array",
            "items": {"type": "string", "maxLength": 254, "pattern": "^[^@\\s]+@[^@\\s]+\\.[^@\\s]+$"},
            "maxItems": 16,
            "uniqueItems": True,
            "description": "Email addresses. Two people who share one are the same person.",
        },
        "phones": {
            "type": "array",
            "items": {"type": "string", "maxLength": 32, "pattern": "^\\+?[0-9][0-9 ().-]*[0-9]$"},
            "maxItems": 16,
            "uniqueItems": True,
            "description": "Telephone numbers, international form preferred (+44 20 7946 0000).",
        },
        "handles": {
            "type": "array",
            "items": {"type": "string", "maxLength": 128, "pattern": "^[a-z0-9_.-]+:\\S+$"},
            "maxItems": 16,
            "uniqueItems": True,
            "description": "Accounts elsewhere, as service:name (github:ada, slack:@ada).",
        },
        "role": {"type": "string", "maxLength": 300, "description": "What they do: a job title, a part."},
        **SHARED,
    },
}

COMPANY_SCHEMA: dict[str, Any] = {
    "type": "object",
    "required": ["name"],
    "additionalProperties": False,
    "properties": {
        "name": {**NAME, "description": "The company's usual name (Harlow Mills)."},
        "aliases": _names("the company"),
        "legal_name": {"type": "string", "maxLength": 300, "description": "Its registered name, if another."},
        "domains": {
            "type": "array",
            "items": {
                "type": "string",
                "maxLength": 253,
                "pattern": "^([A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?\\.)+[A-Za-z]{2,63}$",
            },
            "maxItems": 32,
            "uniqueItems": True,
            "description": "Internet domains it uses (harlowmills.com). Two companies that share one are the "
            "same company.",
        },
        **SHARED,
    },
}


@dataclass(frozen=True)
class Operation:
    """One operation a type offers: what it does, what it takes, and the privilege it needs."""

    name: str
    description: str
    requires: Privilege

    def listing(self) -> dict[str, Any]:
        """As `GET /v1/memories/types` lists it, but for its input's schema, which the API adds."""
        return {"name": self.name, "description": self.description, "requires": self.requires}


MERGE = Operation(
    "merge",
    "Fold a duplicate into this record: its name and aliases become aliases here and its contact "
    "points or domains are added; the records that referred to it, in memories you may write, refer to "
    "this one; the duplicate is closed with a merged_into reference to this one. Every change is an "
    "appended version, made as one consolidation run the answer names (consolidation_id): revert that "
    "run to undo the merge. The duplicate may be in another memory you may read and write.",
    "write",
)
ALIASES = Operation(
    "aliases",
    "The names this record answers to, as observe and consolidation match them: its name, its aliases, "
    "and the contact points or domains that identify it.",
    "read",
)
OPERATIONS = {op.name: op for op in (MERGE, ALIASES)}


@dataclass(frozen=True)
class RecordType:
    """A type this provider adds: its schema, how its fields read for recall, and its operations."""

    type: str
    description: str
    schema: dict[str, Any]
    text: str
    identifiers: tuple[str, ...]  # attributes whose values identify a record outright
    operations: tuple[Operation, ...] = (MERGE, ALIASES)
    references: tuple[dict[str, str], ...] = ()

    def listing(self) -> dict[str, Any]:
        """`MemoryType`, plus the references the type gives meaning to."""
        body: dict[str, Any] = {
            "type": self.type,
            "core": False,
            "description": self.description,
            "schema": self.schema,
            "text": self.text,
            "operations": [op.listing() for op in self.operations],
        }
        if self.references:
            body["references"] = list(self.references)
        return body

    def offers(self, name: str) -> bool:
        """Whether records of this type offer the named operation."""
        return any(op.name == name for op in self.operations)


ADDED = {
    PERSON: RecordType(
        PERSON,
        "A person the other records are about: a customer, a colleague, a contact. Use it once per person, "
        "with the name and aliases they go by, so episodes that mention them are linked to them and facts "
        "can name them as subject. The company they work for is a reference (rel works_for) to an "
        "x.company record. Give a title (their name, as it should be shown) or content (who they are).",
        PERSON_SCHEMA,
        "name, aliases, role, emails, phones and handles as one line, for recall",
        ("emails",),
        references=(
            {"rel": WORKS_FOR, "type": COMPANY, "description": "The company the person works for or in."},
        ),
    ),
    COMPANY: RecordType(
        COMPANY,
        "A company or organisation the other records are about: a customer, a supplier, a partner. Use it "
        "once per company, with the names and domains it goes by, so episodes that mention it are linked to "
        "it. People point at it with a works_for reference. Give a title (its name) or content.",
        COMPANY_SCHEMA,
        "name, aliases, legal name and domains as one line, for recall",
        ("domains",),
    ),
}
ENTITY_TYPES = ("entity", *ADDED)  # the types observe and consolidation treat as things records are about


def listing() -> list[dict[str, Any]]:
    """Every type: the core ones, then those this provider adds."""
    core = [{"type": name, "core": True, "description": text} for name, text in CORE_TYPES.items()]
    return core + [kind.listing() for kind in ADDED.values()]
