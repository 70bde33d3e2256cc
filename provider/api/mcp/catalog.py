"""The chapter's memory tools as an agent sees them: names, arguments, descriptions, hints.

Names and arguments are the ones the chapter's reference harness uses, so a harness built against
the chapter works unchanged. Which tools one caller is offered is decided in `offered`: the write
tools only for a caller holding `write` somewhere, the query tools only where the provider serves
queries, `memory_operate` only where types have operations (people and companies have them here).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import mcp.types as types

MEMORY = {
    "type": "string",
    "maxLength": 128,
    "description": "A memory id (hmem_...): one you start from (see the instructions or memory_list), or "
    "one an earlier answer named as a parent, a child or the memory of a result.",
}
RECORD = {
    "type": "string",
    "maxLength": 128,
    "description": "A record id (hrec_...) an earlier answer named.",
}
TYPES = {
    "type": "array",
    "items": {"type": "string", "maxLength": 64},
    "description": "Only records of these types (fact, note, procedure, episode, entity, link, ...).",
}
CONTENT_TEXT = {
    "description": "What the record says: a string, or a list of parts such as "
    '{"type": "text", "text": "..."}.',
    "anyOf": [{"type": "string"}, {"type": "array", "items": {"type": "object"}}],
}
# Where the provider keeps files (content.media), a part may name one uploaded with POST /v1/files.
CONTENT = {
    **CONTENT_TEXT,
    "description": "What the record says: a string, or a list of parts such as "
    '{"type": "text", "text": "..."} and {"type": "file", "file": {"id": "file_..."}, "text": "the words '
    'that stand for it"}, the file uploaded first with POST /v1/files.',
}
ATTRIBUTES = {
    "type": "object",
    "description": 'Structured fields, such as {"account": "acme"}; recall filters on them as '
    "attributes.<name>.",
}
FILTERS = {
    "type": "object",
    "description": '{"field": "attributes.account", "op": "eq", "value": "acme"}; field is type, '
    "attributes.<name> or time.<valid_from|valid_to|written_at|invalidated_at>; op is eq, ne, lt, lte, "
    'gt, gte, in (value a list) or exists; combine with {"and": [...]} or {"or": [...]}.',
}
REFERENCES = {
    "type": "array",
    "description": 'Records this one points at: [{"rel": "derived_from", "record_id": "hrec_..."}]. '
    "rel says how (about, derived_from, subject, object, ...); memory_id is optional and found from the "
    "record.",
    "items": {
        "type": "object",
        "properties": {
            "rel": {"type": "string", "maxLength": 64},
            "record_id": {"type": "string", "maxLength": 128},
            "memory_id": {"type": "string", "maxLength": 128},
        },
        "required": ["record_id"],
    },
}
PARAMS = {"type": "object", "description": "The query's parameters, by name."}


@dataclass(frozen=True)
class ToolSpec:
    """One tool: what the agent reads, and what the server needs to decide whether to offer it."""

    name: str
    description: str
    properties: dict[str, Any]
    required: tuple[str, ...] = ()
    write: bool = False  # offered only to a caller holding write somewhere
    needs: str = ""  # "named", "free" or "operations": offered only where the provider serves it
    may_write: bool = False  # not read-only although offered to readers (an operation may write)

    @property
    def input_schema(self) -> dict[str, Any]:
        """The JSON Schema of the tool's arguments; arguments it does not name are refused."""
        return {
            "type": "object",
            "properties": self.properties,
            "required": list(self.required),
            "additionalProperties": False,
        }

    def tool(self, serves: frozenset[str] = frozenset()) -> types.Tool:
        """The tool as `tools/list` answers it; file parts are described only where files are kept."""
        hints = types.ToolAnnotations(
            read_only_hint=not (self.write or self.may_write),
            destructive_hint=self.name in ("memory_forget", "memory_operate"),
            idempotent_hint=not (self.write or self.may_write) or self.name == "memory_forget",
            open_world_hint=False,
        )
        schema = self.input_schema
        if "content" in self.properties and "files" not in serves:
            schema = {**schema, "properties": {**self.properties, "content": CONTENT_TEXT}}
        return types.Tool(
            name=self.name, description=self.description, input_schema=schema, annotations=hints
        )


SPECS = (
    ToolSpec(
        "memory_list",
        "Where you can look. Without `memory`: the memories you start from. With `memory`: that memory, its "
        "parent and its children, each with its description and record count, and the named queries it "
        "defines. Read a description before searching inside; pass `cursor` from `next` for more children.",
        {"memory": MEMORY, "cursor": {"type": "string", "maxLength": 256}},
    ),
    ToolSpec(
        "memory_recall",
        "Search a memory and everything below it that you may read. `query` finds by meaning, `text` by "
        "exact words, `filters` by fields; give one or more. Each result names the memory it is in: go "
        "there to read around it. It never searches above `memory`: the answer names the parent, ask there "
        "in another call. `depth: 0` searches this memory alone. `abstain: true` means nothing found "
        "answers the question: say so rather than guess.",
        {
            "memory": MEMORY,
            "query": {"type": "string", "description": "Meaning: the question, in a sentence."},
            "text": {"type": "string", "description": "Words: a full-text search (the first 64 words)."},
            "filters": FILTERS,
            "types": TYPES,
            "depth": {
                "type": "integer",
                "minimum": 0,
                "description": "Levels below to search; all if left out.",
            },
            "limit": {"type": "integer", "minimum": 1, "maximum": 100, "description": "Most results (10)."},
            "as_of": {"type": "string", "description": "Read as of an ISO 8601 instant or a snapshot id."},
            "include": {"enum": ["active", "all"], "description": "`all` adds forgotten records."},
            "explain": {
                "type": "boolean",
                "description": "Each result also says why it is there: its rank and score by signal.",
            },
        },
        ("memory",),
    ),
    ToolSpec(
        "memory_graph",
        "Records as nodes and their references as edges: around one `record` (up to `hops` references away, "
        "either direction), or across the memory and what you may read below it. Use it to follow what a "
        "record is about, derived from or linked to. An edge to a record you may not read says available: "
        "false.",
        {
            "memory": MEMORY,
            "record": {**RECORD, "description": "The record to start from; left out, every record."},
            "hops": {"type": "integer", "minimum": 0, "maximum": 3, "description": "References away (1)."},
            "types": TYPES,
            "limit": {"type": "integer", "minimum": 1, "maximum": 1000, "description": "Most nodes (100)."},
        },
        ("memory",),
    ),
    ToolSpec(
        "memory_get",
        "Read one record of a memory; with `history: true` also every earlier version, each with who wrote "
        "it, when, and why it was revised.",
        {
            "memory": MEMORY,
            "record": RECORD,
            "history": {"type": "boolean", "description": "Also every version, oldest first."},
            "as_of": {"type": "string", "description": "The record as it stood at an ISO 8601 instant."},
        },
        ("memory", "record"),
    ),
    ToolSpec(
        "memory_remember",
        "Keep one thing worth remembering after this conversation, in your own words, as a record. Leave "
        "`memory` out only when you may write in exactly one memory. `references` point at the records it "
        "came from or is about. One fact per record; say it so it stands on its own.",
        {
            "memory": MEMORY,
            "type": {
                "type": "string",
                "maxLength": 64,
                "description": "fact (default), note, procedure, link.",
            },
            "title": {"type": "string", "maxLength": 300, "description": "One line that names the record."},
            "content": CONTENT,
            "attributes": ATTRIBUTES,
            "references": REFERENCES,
        },
        ("content",),
        write=True,
    ),
    ToolSpec(
        "memory_revise",
        "Correct a record: a new version replaces what you give (title, content, attributes restated whole) "
        "and keeps the rest. The earlier version stays in its history; say why in `reason`.",
        {
            "memory": MEMORY,
            "record": RECORD,
            "title": {"type": "string", "maxLength": 300},
            "content": CONTENT,
            "attributes": ATTRIBUTES,
            "reason": {"type": "string", "maxLength": 500, "description": "Why it changed, in a sentence."},
        },
        ("memory", "record", "reason"),
        write=True,
    ),
    ToolSpec(
        "memory_forget",
        "Close a record that is no longer true or wanted. It leaves every read; its history remains.",
        {"memory": MEMORY, "record": RECORD},
        ("memory", "record"),
        write=True,
    ),
    ToolSpec(
        "memory_run_query",
        "Run a query the memory's owner defined, with its parameters (memory_list on the memory names its "
        "queries and their parameter schemas). It reads only what you may read.",
        {"memory": MEMORY, "name": {"type": "string", "maxLength": 128}, "params": PARAMS},
        ("memory", "name"),
        needs="named",
    ),
    ToolSpec(
        "memory_query",
        "Write a read-only Cypher query yourself and run it inside ONE memory and what you may read below "
        "it; it cannot reach anything else, whatever it says. The graph: (:Record {id, memory_id, type, "
        "title, text, status, version, written_at, written_by, `attr.<name>`})-[:IN]->(:Memory {id, name, "
        "description}), (:Memory)-[:CHILD_OF]->(:Memory), (:Record)-[:REFERENCES {rel}]->(:Record), and a "
        "full-text index record_words (docs/QUERIES.md). Return whole Record nodes to get records back.",
        {
            "memory": MEMORY,
            "language": {"enum": ["cypher"], "description": "The query language: cypher."},
            "statement": {"type": "string", "description": "The Cypher statement (reads only)."},
            "params": PARAMS,
            "depth": {"type": "integer", "minimum": 0, "description": "Levels below the memory to include."},
        },
        ("memory", "statement"),
        needs="free",
    ),
    ToolSpec(
        "memory_operate",
        "Run an operation a record's type offers (memory_get shows a record's type). People (x.person) and "
        "companies (x.company) offer `aliases` (the names the record answers to) and `merge` (input "
        '{"duplicate": "hrec_..."}: fold that duplicate of the same person or company into this record; '
        "the answer names the consolidation run that reverts it).",
        {
            "memory": MEMORY,
            "record": RECORD,
            "operation": {"type": "string", "maxLength": 128, "description": "aliases or merge."},
            "input": {"type": "object", "description": "The operation's input; {} when it takes none."},
        },
        ("memory", "record", "operation"),
        needs="operations",
        may_write=True,
    ),
)
BY_NAME = {spec.name: spec for spec in SPECS}


def served(capabilities: dict[str, Any]) -> frozenset[str]:
    """What the provider's capability document says it serves of the optional tools."""
    queries = capabilities.get("queries") or {}
    found = {"named"} if queries.get("named") else set()
    if (queries.get("free") or {}).get("languages"):
        found.add("free")
    if capabilities.get("types"):
        found.add("operations")
    if (capabilities.get("content") or {}).get("media"):
        found.add("files")
    return frozenset(found)


def offered(*, can_write: bool, serves: frozenset[str]) -> list[types.Tool]:
    """The tools one caller is offered."""
    return [
        spec.tool(serves)
        for spec in SPECS
        if (can_write or not spec.write) and (not spec.needs or spec.needs in serves)
    ]


def input_schema(name: str) -> dict[str, Any] | None:
    """A tool's argument schema by name, whoever asks (the SDK's header check reads it)."""
    spec = BY_NAME.get(name)
    return spec.input_schema if spec else None
