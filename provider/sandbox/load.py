"""How a copy is written into a sandbox: the schema of its template, its load steps, the warm-up.

A load writes memories, their tree, records (by memory, then id), stubs, then references, into a
database fresh from the template, so the same copy always gets the same internal ids and the same
order in unordered answers. The steps are Cypher from the catalogue with their params; the sandbox
service runs each in a write transaction of its own, in order.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from itertools import groupby
from typing import Any, Protocol

from provider import metrics
from provider.models import CopiedReference, Projection, ProjectionPage
from provider.store.catalogue import statement

log = logging.getLogger("provider.sandbox")

Step = tuple[str, dict[str, Any]]
LOAD_BATCH = 2000
SCHEMA = (
    "sandbox_schema_record_id",
    "sandbox_schema_memory_id",
    "sandbox_schema_unavailable_id",
    "sandbox_schema_record_words",
)


def schema_statements() -> list[str]:
    """The template's index statements, in order (the service builds one template per schema)."""
    return [statement(name) for name in SCHEMA]


def steps(projection: Projection) -> list[Step]:
    """The whole load as statements with params: the query collector off, the copy, words indexed."""
    found: list[Step] = [(statement("sandbox_collector_stop"), {})]
    found += _batched("sandbox_load_memories", projection.memories)
    found += _batched("sandbox_link_memories", _tree(projection))
    for memory_id, group in groupby(projection.records, key=lambda r: str(r["memory_id"])):
        # Records, each IN its memory, one memory at a time (the list is ordered by memory).
        found += _batched("sandbox_load_records", list(group), memory_id=memory_id)
    found += _batched("sandbox_load_stubs", projection.stubs, key="ids")
    stubs = set(projection.stubs)
    found += _batched(
        "sandbox_link_references", [_edge(r) for r in projection.references if r.target not in stubs]
    )
    found += _batched("sandbox_link_stubs", [_edge(r) for r in projection.references if r.target in stubs])
    found.append((statement("sandbox_words_refresh"), {}))
    return found


PageKey = int  # a page holds records made after this instant
FIRST_PAGE: PageKey = -1
# A first load says how far it is every this many records (the log; the metric counts each page).
PROGRESS_EVERY = 50_000


class ProjectionSource(Protocol):
    """Where a first load reads the scope from, a page at a time (the projection store)."""

    async def memories(self, scope: list[str]) -> list[dict[str, Any]]: ...

    async def records_page(
        self, memory_id: str, inside: frozenset[str], after: PageKey, limit: int
    ) -> ProjectionPage: ...


async def streamed(source: ProjectionSource, scope: list[str], expected: int = 0) -> AsyncIterator[Step]:
    """The whole load as `steps` makes it, read a page of records at a time and sent as it is read.

    What is held at once is one page of records, and the references (four short values each): they
    are laid after every record is in, as a fresh load lays them. Progress goes to the log and the
    metrics as the pages go.
    """
    yield statement("sandbox_collector_stop"), {}
    memories = await source.memories(scope)
    for step in _batched("sandbox_load_memories", memories):
        yield step
    for step in _batched("sandbox_link_memories", _tree(Projection(memories=memories))):
        yield step
    found = Projection()
    with metrics.SANDBOX_LOADS_IN_FLIGHT.track_inprogress():
        async for step in _record_pages(source, scope, sorted(m["id"] for m in memories), found, expected):
            yield step
    found.stubs = sorted(set(found.stubs))
    for step in _batched("sandbox_load_stubs", found.stubs, key="ids"):
        yield step
    for step in _batched("sandbox_link_references", [_edge(r) for r in found.inner_references]):
        yield step
    for step in _batched("sandbox_link_stubs", [_edge(r) for r in found.stub_references]):
        yield step
    yield statement("sandbox_words_refresh"), {}


async def _record_pages(
    source: ProjectionSource, scope: list[str], memory_ids: list[str], found: Projection, expected: int
) -> AsyncIterator[Step]:
    """Each memory's records, a page a step; their references and stubs gathered into `found`."""
    inside, loaded, told = frozenset(scope), 0, 0
    for memory_id in memory_ids:
        after: PageKey | None = FIRST_PAGE
        while after is not None:
            page, after = await source.records_page(memory_id, inside, after, LOAD_BATCH)
            if page.records:
                yield statement("sandbox_load_records"), {"rows": page.records, "memory_id": memory_id}
            found.references += page.references
            found.stubs += page.stubs
            loaded += len(page.records)
            metrics.SANDBOX_LOADED_RECORDS.inc(len(page.records))
            if loaded - told >= PROGRESS_EVERY:
                told = loaded
                log.info("sandbox: loading a copy: %d of about %d records sent", loaded, expected)
    if loaded >= PROGRESS_EVERY:
        log.info("sandbox: loaded a copy of %d records", loaded)


async def replayed(found: list[Step]) -> AsyncIterator[Step]:
    """Steps already made (a synthetic copy), as a load streams them."""
    for step in found:
        yield step


def change_steps(delta: Projection) -> list[Step]:
    """What brings a held copy up to date with `delta`, the records changed since its version.

    The service runs it in one write transaction: records upserted, their references dropped and
    linked anew, stubs made where needed and dropped where unused. Words are indexed after it commits.
    """
    changed = [str(r["id"]) for r in delta.records]
    found: list[Step] = []
    metrics.SANDBOX_APPLIED_RECORDS.inc(len(delta.records))
    found += _batched("sandbox_upsert_records", delta.records)
    found += _batched("sandbox_unlink_references", changed, key="ids")
    found += _batched("sandbox_merge_stubs", delta.stubs, key="ids")
    found += _batched("sandbox_link_references", [_edge(r) for r in delta.inner_references])
    found += _batched("sandbox_link_stubs", [_edge(r) for r in delta.stub_references])
    found.append((statement("sandbox_drop_unused_stubs"), {}))
    return found


def _batched(name: str, rows: list[Any], key: str = "rows", **fixed: Any) -> list[Step]:
    text = statement(name)
    return [
        (text, {key: rows[start : start + LOAD_BATCH], **fixed}) for start in range(0, len(rows), LOAD_BATCH)
    ]


def _tree(projection: Projection) -> list[dict[str, Any]]:
    return [{"id": m["id"], "parent_id": m["parent_id"]} for m in projection.memories if m.get("parent_id")]


def _edge(ref: CopiedReference) -> dict[str, Any]:
    return {"from": ref.source, "to": ref.target, "rel": ref.rel, "position": ref.position}


WARM_UP_RECORDS = 2000
WARM_UP_READS = (
    "MATCH (r:Record) WHERE r.version = $value RETURN r.type AS type, count(*) AS n ORDER BY type",
    "MATCH (r:Record)-[:REFERENCES]->(t) RETURN r.title AS a, labels(t) AS b LIMIT 10",
    "MATCH (r:Record)-[:IN]->(m:Memory) RETURN m.name AS m, collect(r.id)[0..3] AS ids",
)


def warm_up_projection(records: int = WARM_UP_RECORDS) -> Projection:
    """Synthetic records with every field a copy carries (no attributes: their names vary)."""
    projection = Projection(memories=[{"id": "hmem_warm", "name": "w", "description": "", "created_at": 0}])
    projection.memories.append({"id": "hmem_warm2", "name": "w", "description": "", "parent_id": "hmem_warm"})
    fields = ("type", "title", "text", "status", "writer_type", "written_by")
    for i in range(records):
        props: dict[str, Any] = {name: f"{name} {i}" for name in fields}
        props |= {"id": f"hrec_warm{i:06d}", "memory_id": "hmem_warm", "version": 1}
        props |= {n: i for n in ("created_at", "updated_at", "written_at", "valid_from_ms", "valid_to_ms")}
        props |= {"valid_from": "2026-01-01", "valid_to": "2026-12-31"}
        projection.records.append(props)
        if i % 10 == 9:
            projection.references.append(CopiedReference(props["id"], f"hrec_warm{i - 1:06d}", "about", 0))
    projection.references.append(CopiedReference("hrec_warm000000", "hrec_gone", "about", 1))
    projection.stubs = ["hrec_gone"]
    return projection


def records_by_id_statement() -> str:
    """The statement reading records of a sandbox's copy by id: the fence checks who wrote a row."""
    return statement("sandbox_records_by_id")
