"""A Graphiti graph as records: entities, then episodes (which mention them), then facts (which cite both).

Read-only on the source (`store/graphiti_source.py`). One child memory per `group_id`, named after it.
Each item's Graphiti properties are kept under `attributes.graphiti` (for `x.person` and `x.company`,
whose attribute schemas are closed, in an `x.graphiti` content part instead). The order matters: a
reference is resolved when its record is written, so what is referred to is written first.
docs/MIGRATE.md has the mapping field by field.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from datetime import UTC, datetime
from typing import Any

from provider.migrate.writer import Item, MigrationSummary, MigrationWriter
from provider.services.types.catalog import COMPANY, PERSON
from provider.store.graphiti_source import GraphitiSource, SourceRow

KINDS = {"person": PERSON, "company": COMPANY, "organization": COMPANY, "organisation": COMPANY}
DEFAULT_GROUP = "default"  # the name of the memory for Graphiti's empty group id
TITLE_MAX = 300
EPISODE_FIELDS = (
    *("uuid", "group_id", "name", "source", "source_description", "content", "created_at"),
    *("valid_at", "entity_edges", "labels"),
)

Reader = Callable[[str, str], Awaitable[list[SourceRow]]]


def _text(props: dict[str, Any], name: str, *, required: bool = True) -> str:
    value = props.get(name)
    if value is None and not required:
        return ""
    if not isinstance(value, str):
        raise ValueError(f"its {name} is not text")
    return value


def _extra(row: SourceRow, taken: tuple[str, ...]) -> dict[str, Any]:
    """The Graphiti properties no mapped field took: custom attributes, kept as they are."""
    return {k: v for k, v in row.props.items() if k not in taken}


def _instant(value: Any) -> datetime | None:
    if value is None:
        return None
    moment = datetime.fromisoformat(str(value))
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


class GraphitiMapping:
    """Graphiti rows as record bodies for one target memory (pure: no I/O)."""

    def __init__(self, writer: MigrationWriter, memories: dict[str, str], now: datetime):
        self.writer = writer
        self.memories = memories
        self.now = now

    def entity(self, row: SourceRow) -> Item:
        """An `Entity` node: an entity record, or x.person / x.company as its labels say."""
        name, summary = _text(row.props, "name"), _text(row.props, "summary", required=False)
        labels = [label for label in row.labels if label != "Entity"]
        kind = next((KINDS[k.casefold()] for k in labels if k.casefold() in KINDS), "entity")
        kept = {
            "uuid": row.uuid,
            "group_id": row.props.get("group_id"),
            "labels": labels,
            "created_at": row.props.get("created_at"),
            "attributes": _extra(row, ("uuid", "name", "group_id", "summary", "created_at", "labels")),
        }
        body: dict[str, Any] = {"type": kind, "title": name[:TITLE_MAX]}
        parts = [{"type": "text", "text": summary}] if summary.strip() else []
        if kind == "entity":
            body |= {"content": parts, "attributes": {"graphiti": {**kept, "name": name}}}
        else:
            # x.person and x.company refuse attributes their schema does not name: the source's
            # properties ride in an extension part, which the chapter carries unchanged.
            body |= {"content": [*parts, {"type": "x.graphiti", **kept}], "attributes": {"name": name}}
        return self._item("entity", row, body)

    def episode(self, row: SourceRow) -> Item:
        """An `Episodic` node: an episode, its content and valid time, `about` each entity it mentions."""
        content, name = _text(row.props, "content"), _text(row.props, "name", required=False)
        mentions = [m for m in row.links.get("mentions") or [] if m.get("entity")]
        kept = {
            "uuid": row.uuid,
            "group_id": row.props.get("group_id"),
            "name": name,
            "source": row.props.get("source"),
            "source_description": row.props.get("source_description"),
            "created_at": row.props.get("created_at"),
            "valid_at": row.props.get("valid_at"),
            "entity_edges": row.props.get("entity_edges") or [],
            "labels": [label for label in row.labels if label != "Episodic"],
            "mentions": mentions,
            "attributes": _extra(row, EPISODE_FIELDS),
        }
        body = {
            "type": "episode",
            "title": name[:TITLE_MAX] or None,
            "content": [{"type": "text", "text": content}],
            "attributes": {"graphiti": kept},
            "references": [
                {"rel": "about", "record_id": self.writer.record_id("entity", m["entity"])} for m in mentions
            ],
            "time": {"valid_from": row.props.get("valid_at")},
        }
        return self._item("episode", row, body)

    def fact(self, row: SourceRow) -> Item:
        """A `RELATES_TO` edge: a fact citing its two entities and its episodes; ended edges forgotten."""
        fact = _text(row.props, "fact")
        episodes = list(dict.fromkeys(row.props.get("episodes") or []))
        taken = ("uuid", "group_id", "name", "fact", "episodes", "created_at", "expired_at", "valid_at")
        kept = {k: row.props.get(k) for k in (*taken, "invalid_at", "reference_time") if k != "fact"}
        kept |= {"source_node_uuid": row.links["subject"], "target_node_uuid": row.links["object"]}
        # Graphiti also writes the endpoints' uuids onto the edge itself: the same two values.
        kept["attributes"] = _extra(
            row, (*taken, "invalid_at", "reference_time", "source_uuid", "target_uuid")
        )
        references = [
            {"rel": "subject", "record_id": self.writer.record_id("entity", str(row.links["subject"]))},
            {"rel": "object", "record_id": self.writer.record_id("entity", str(row.links["object"]))},
            *(
                {"rel": "derived_from", "record_id": self.writer.record_id("episode", str(e))}
                for e in episodes
            ),
        ]
        body = {
            "type": "fact",
            "content": [{"type": "text", "text": fact}],
            "attributes": {"graphiti": kept},
            "references": references,
            "time": {"valid_from": row.props.get("valid_at"), "valid_to": row.props.get("invalid_at")},
        }
        item = self._item("fact", row, body)
        ended = _instant(row.props.get("invalid_at"))
        item.forget = row.props.get("expired_at") is not None or (ended is not None and ended <= self.now)
        return item

    def _item(self, kind: str, row: SourceRow, body: dict[str, Any]) -> Item:
        group = row.props.get("group_id")
        return Item(
            name={"kind": kind, "uuid": row.uuid, "group_id": group},
            memory_id=self.memories[str(group)],
            record_id=self.writer.record_id(kind, row.uuid),
            body=body,
        )


class GraphitiMigration:
    """Reads the chosen groups page by page and hands each page to the writer."""

    def __init__(self, source: GraphitiSource, writer: MigrationWriter):
        self.source = source
        self.writer = writer

    async def run(self, asked: list[str]) -> MigrationSummary:
        """Every chosen group (all when none is asked), entities first, then episodes, then facts."""
        found = await self.source.groups()
        groups = [g for g in found if not asked or g in asked]
        for missing in sorted(set(asked) - set(found)):
            self.writer.refuse({"group_id": missing}, "The graph holds no episode or entity in this group.")
        memories = {
            g: await self.writer.child(g or DEFAULT_GROUP, f"Graphiti group '{g}', migrated") for g in groups
        }
        self.writer.summary.left_out = await self.source.left_out(groups)
        mapping = GraphitiMapping(self.writer, memories, datetime.now(UTC))
        for read, mapped in (
            (self.source.entities, mapping.entity),
            (self.source.episodes, mapping.episode),
            (self.source.edges, mapping.fact),
        ):
            for group in groups:
                await self._pages(group, read, mapped)
        self.writer.report(done=True)
        return self.writer.summary

    async def _pages(self, group: str, read: Reader, mapped: Callable[[SourceRow], Item]) -> None:
        after = ""
        while page := await read(group, after):
            items: list[Item] = []
            for row in page:
                try:
                    items.append(mapped(row))
                except (ValueError, TypeError, KeyError) as e:
                    self.writer.summary.read += 1
                    self.writer.refuse({"uuid": row.uuid, "group_id": group}, f"Cannot be read: {e}.")
            await self.writer.write(items)
            after = page[-1].uuid
