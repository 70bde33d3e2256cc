"""A first load reads a scope a page at a time, each record once, whatever instants the records share.

On the session's Neo4j: records written at chosen instants (ties across a page's end, a tie larger
than a page) are read back through Neo4jProjectionStore.records_page with a small page; every record
comes exactly once, in created_at order, with its references and a stub for a target outside.
"""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from provider.store.projection import FIRST_PAGE, Neo4jProjectionStore
from tests.contract.records_sides import T0, Side, first_version, new_id, sides
from tests.neo4j_target import Neo4jTarget

pytestmark = pytest.mark.anyio


@pytest.fixture
async def side(request: pytest.FixtureRequest) -> AsyncIterator[Side]:
    async with sides("neo4j", lambda: request.getfixturevalue("neo4j_target")) as build:
        yield await build()


async def test_pages_hold_every_record_once_across_shared_instants(
    side: Side, neo4j_target: Neo4jTarget
) -> None:
    memory, elsewhere = await side.memory(), await side.memory()
    outside = first_version(side, elsewhere, at=T0)
    assert await side.records.create(outside, "outside", None)
    offsets = [1, 2, 2, 2, 3, 4, 4, 4, 4, 4, 4, 5]  # a tie across a page's end; a tie larger than a page
    written = []
    for n, offset in enumerate(offsets):
        references = [{"rel": "about", "memory_id": None, "record_id": outside.record_id}] if n == 0 else []
        version = first_version(side, memory, at=T0 + offset, record_id=new_id("hrec"), references=references)
        assert await side.records.create(version, f"record {n}", None)
        written.append(version.record_id)
    store = Neo4jProjectionStore(side.records.store)  # type: ignore[attr-defined]
    seen: list[str] = []
    created: list[int] = []
    stubs: set[str] = set()
    after: int | None = FIRST_PAGE
    while after is not None:
        page, after = await store.records_page(memory, frozenset([memory]), after, 3)
        seen += [str(r["id"]) for r in page.records]
        created += [int(r["created_at"]) for r in page.records]
        stubs.update(page.stubs)
    assert sorted(seen) == sorted(written) and len(seen) == len(written), "each record once"
    assert created == sorted(created), "in created_at order"
    assert stubs == {outside.record_id}, "a reference leaving the scope is a stub"
