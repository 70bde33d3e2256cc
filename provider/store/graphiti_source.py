"""A Graphiti graph read where it lives (`migrate graphiti`): read transactions only, never a write.

Graphiti's nodes and edges are someone else's data, not our store, so the statements that read them
live here, apart from `cypher/` and its catalogue. Every read runs in a session opened in READ access
mode, inside a managed read transaction: a cluster routes it to a reader, and Neo4j itself refuses
any write it might attempt. Values leave as plain Python (temporal values as ISO 8601 strings); the
embeddings Graphiti stored are dropped, because the target embeds every record with its own model.
Pages are taken in `uuid` order after the last uuid seen, so a long read holds no cursor open.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, LiteralString

from neo4j import READ_ACCESS, AsyncGraphDatabase, AsyncManagedTransaction
from neo4j.exceptions import DriverError, Neo4jError
from neo4j.time import Date, DateTime, Duration, Time

from provider.errors import InvalidInputError

EMBEDDINGS = frozenset({"name_embedding", "fact_embedding"})

GROUPS: LiteralString = """
MATCH (n) WHERE n:Episodic OR n:Entity
RETURN DISTINCT n.group_id AS group_id ORDER BY group_id
"""
ENTITIES: LiteralString = """
MATCH (n:Entity) WHERE n.group_id = $group_id AND n.uuid > $after
WITH n ORDER BY n.uuid LIMIT $limit
RETURN n.uuid AS uuid, labels(n) AS labels, properties(n) AS props
"""
EPISODES: LiteralString = """
MATCH (n:Episodic) WHERE n.group_id = $group_id AND n.uuid > $after
WITH n ORDER BY n.uuid LIMIT $limit
OPTIONAL MATCH (n)-[m:MENTIONS]->(e:Entity)
WITH n, collect(CASE WHEN m IS NULL THEN null ELSE {uuid: m.uuid, entity: e.uuid,
                                                   created_at: m.created_at} END) AS mentions
RETURN n.uuid AS uuid, labels(n) AS labels, properties(n) AS props, mentions
ORDER BY uuid
"""
EDGES: LiteralString = """
MATCH (s:Entity)-[e:RELATES_TO]->(t:Entity) WHERE e.group_id = $group_id AND e.uuid > $after
WITH s, e, t ORDER BY e.uuid LIMIT $limit
RETURN e.uuid AS uuid, s.uuid AS subject, t.uuid AS object, properties(e) AS props
"""
LEFT_OUT: LiteralString = """
MATCH (n) WHERE (n:Community OR n:Saga) AND n.group_id IN $groups
RETURN [l IN labels(n) WHERE l IN ['Community', 'Saga']][0] AS label, count(*) AS nodes
"""


def plain(value: Any) -> Any:
    """A value read from Neo4j as JSON-ready Python: temporal values as ISO 8601 text."""
    if isinstance(value, DateTime | Date | Time):
        return value.to_native().isoformat()
    if isinstance(value, Duration):
        return str(value)
    if isinstance(value, list):
        return [plain(v) for v in value]
    if isinstance(value, Mapping):
        return {str(k): plain(v) for k, v in value.items()}
    return value


@dataclass(frozen=True)
class SourceRow:
    """One node or edge of the source: its uuid, labels, properties (no embeddings) and links."""

    uuid: str
    labels: tuple[str, ...]
    props: dict[str, Any]
    links: dict[str, Any]


class GraphitiSource:
    """A connection to the Neo4j that holds a Graphiti graph, opened for reading only."""

    def __init__(self, uri: str, user: str, password: str, *, database: str | None = None, page: int = 256):
        self.uri = uri
        # Notifications off: a graph without communities or sagas would warn of unknown labels.
        self.driver = AsyncGraphDatabase.driver(uri, auth=(user, password), notifications_min_severity="OFF")
        self.database = database
        self.page = page

    async def close(self) -> None:
        """Closes the source's pool."""
        await self.driver.close()

    async def _read(self, query: LiteralString, **params: Any) -> list[dict[str, Any]]:
        async def work(tx: AsyncManagedTransaction) -> list[dict[str, Any]]:
            result = await tx.run(query, params)
            return [record.data() async for record in result]

        try:
            async with self.driver.session(database=self.database, default_access_mode=READ_ACCESS) as s:
                return await s.execute_read(work)
        except (DriverError, Neo4jError) as e:
            raise InvalidInputError(f"The Graphiti graph at {self.uri} cannot be read: {e}") from e

    async def groups(self) -> list[str]:
        """Every group id that holds an episode or an entity."""
        rows = await self._read(GROUPS)
        return [str(r["group_id"]) for r in rows if r["group_id"] is not None]

    async def left_out(self, groups: list[str]) -> dict[str, int]:
        """How many nodes of the kinds a migration does not carry (communities, sagas) the groups hold."""
        return {str(r["label"]): int(r["nodes"]) for r in await self._read(LEFT_OUT, groups=groups)}

    async def entities(self, group_id: str, after: str) -> list[SourceRow]:
        """The next page of a group's entities."""
        return [_row(r) for r in await self._read(ENTITIES, group_id=group_id, after=after, limit=self.page)]

    async def episodes(self, group_id: str, after: str) -> list[SourceRow]:
        """The next page of a group's episodes, each with the entities it mentions."""
        rows = await self._read(EPISODES, group_id=group_id, after=after, limit=self.page)
        return [_row(r, mentions=plain(r["mentions"])) for r in rows]

    async def edges(self, group_id: str, after: str) -> list[SourceRow]:
        """The next page of a group's RELATES_TO edges, each with its two entities."""
        rows = await self._read(EDGES, group_id=group_id, after=after, limit=self.page)
        return [_row(r, subject=r["subject"], object=r["object"]) for r in rows]


def _row(row: dict[str, Any], **links: Any) -> SourceRow:
    props = {k: plain(v) for k, v in row["props"].items() if k not in EMBEDDINGS}
    return SourceRow(uuid=str(row["uuid"]), labels=tuple(row.get("labels") or ()), props=props, links=links)
