"""The explorer in a real headless Chromium, against the real app on a real port and a real Neo4j.

Each test signs in as a member of the seeded world and does what a person would: walk the tree,
read a record and its history, search, draw the graph, ask in Cypher, write. Screenshots of each
view land in .local/screenshots/.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import httpx
from fastapi.testclient import TestClient
from playwright.sync_api import Page, expect

from tests.browser.conftest import shot
from tests.browser.world import HOSTILE_TEXT, HOSTILE_TITLE, PNG_WIDTH, World
from tests.support import ok


def sign_in(page: Page, key: str) -> None:
    page.goto("/explorer/")
    page.fill("#api-key", key)
    page.click("#sign-in-form button[type=submit]")
    expect(page.locator("#app")).to_be_visible()


def tree_node(page: Page, memory_id: str) -> str:
    return f"#tree .node[data-memory-id='{memory_id}']"


def open_memory(page: Page, memory_id: str) -> None:
    page.goto(f"/explorer/#memory={memory_id}")
    expect(page.get_by_test_id("place-name")).to_be_visible()


def open_record(page: Page, memory_id: str, record_id: str) -> None:
    page.goto(f"/explorer/#memory={memory_id}&in={memory_id}&record={record_id}")
    expect(page.get_by_test_id("record")).to_be_visible()


def test_the_page_is_fenced_by_its_headers(live_url_client: httpx.Client) -> None:
    page = live_url_client.get("/explorer/")
    assert page.status_code == 200
    policy = page.headers["content-security-policy"]
    assert "script-src 'self'" in policy and "default-src 'none'" in policy
    assert page.headers["x-content-type-options"] == "nosniff"
    assert live_url_client.get("/explorer", follow_redirects=False).status_code == 308
    missing = live_url_client.get("/explorer/../provider/config.py")
    assert missing.status_code == 404
    assert live_url_client.get("/explorer/js/nothing.js").json()["error"]["code"] == "not_found"
    vendor = live_url_client.get("/explorer/vendor/cytoscape.min.js")
    assert vendor.status_code == 200 and "cytoscape" in vendor.text[:2000]


def test_a_wrong_key_is_refused_in_a_sentence(page: Page) -> None:
    page.goto("/explorer/")
    shot(page, "01-sign-in")
    page.fill("#api-key", "hk_not_a_key")
    page.click("#sign-in-form button[type=submit]")
    expect(page.locator("#sign-in-error")).to_have_text("That key is not accepted here.")
    expect(page.locator("#app")).to_be_hidden()


def test_walk_the_tree_and_read_a_record_and_its_history(page: Page, world: World) -> None:
    sign_in(page, world.alice.key)
    root = page.locator(tree_node(page, world.root["id"]))
    expect(root).to_contain_text(world.root["name"])
    expect(root.get_by_test_id("privileges")).to_have_text("read write create delete")
    root.get_by_test_id("expand").click()
    private = page.locator(tree_node(page, world.private["id"]))
    expect(private).to_contain_text("restricted")
    projects = page.locator(tree_node(page, world.projects["id"]))
    projects.get_by_test_id("expand").click()
    expect(page.locator(tree_node(page, world.apollo["id"]))).to_be_visible()
    expect(page.locator("#tree")).to_contain_text("The engine history")
    page.locator(tree_node(page, world.apollo["id"])).get_by_test_id("memory").click()
    expect(page.get_by_test_id("place-name")).to_have_text(world.apollo["name"])
    expect(page.get_by_test_id("place-facts")).to_contain_text("3 records")
    rows = page.get_by_test_id("record-row")
    expect(rows).to_have_count(3)
    shot(page, "02-tree-and-records")

    page.get_by_test_id("filter-type").fill("entity")
    page.get_by_test_id("record-filters").locator("button[type=submit]").click()
    expect(rows).to_have_count(2)

    open_record(page, world.apollo["id"], world.fact["id"])
    record = page.get_by_test_id("record")
    expect(record.get_by_test_id("record-title")).to_have_text("Ada wrote notes on the Analytical Engine")
    expect(record.get_by_test_id("content")).to_contain_text("In 1843 Ada Lovelace published notes")
    expect(record.get_by_test_id("attributes")).to_contain_text('"predicate": "wrote_notes_on"')
    expect(record.get_by_test_id("written-by")).to_have_text(f"member:{world.alice.id} (human)")
    expect(record.get_by_test_id("reference")).to_have_count(2)
    expect(record.get_by_test_id("reference-target")).to_have_text(["Ada Lovelace", "Analytical Engine"])

    page.get_by_test_id("revise-text").fill(
        "In 1843 Ada Lovelace published her notes on the Analytical Engine, including the first program."
    )
    page.get_by_test_id("revise-reason").fill("The notes were hers, and the program was in them.")
    page.get_by_test_id("revise").click()
    expect(page.get_by_test_id("record").locator("dd", has_text="(active)")).to_have_text("2 (active)")
    page.get_by_test_id("show-history").click()
    versions = page.get_by_test_id("version")
    expect(versions).to_have_count(2)
    expect(versions.nth(1)).to_contain_text("reason: The notes were hers, and the program was in them.")
    diff = versions.nth(1).get_by_test_id("diff-content")
    expect(diff.locator("ins").first).to_be_visible()
    assert "her" in " ".join(diff.locator("ins").all_inner_texts())
    shot(page, "03-record-and-history")

    written_at = first_version(page, world)["time"]["written_at"]
    page.get_by_test_id("record-as-of").fill(str(written_at))
    page.get_by_test_id("record").locator("form.row button[type=submit]").click()
    expect(page.get_by_test_id("record").get_by_test_id("content")).to_contain_text("published notes on")
    expect(page.get_by_test_id("revise-form")).to_have_count(0)


def first_version(page: Page, world: World) -> dict[str, Any]:
    """The fact's first version, read over the API by the page's own key (what `as_of` should show)."""
    answer: dict[str, Any] = page.evaluate(
        """async ([memory, record]) => {
            const key = sessionStorage.getItem("uhp-memory.explorer.key");
            const r = await fetch(`../v1/memories/${memory}/records/${record}/history`,
                                  {headers: {Authorization: `Bearer ${key}`}});
            const body = await r.json();
            return body.data.find((v) => v.version === 1);
        }""",
        [world.apollo["id"], world.fact["id"]],
    )
    return answer


def test_files_show_inline_or_as_downloads(page: Page, world: World) -> None:
    sign_in(page, world.alice.key)
    open_record(page, world.projects["id"], world.with_files["id"])
    image = page.get_by_test_id("image")
    expect(image).to_have_attribute("src", re.compile(r"^blob:"))
    # The view may draw the image again while it loads: look it up on every poll, and allow a miss.
    page.wait_for_function(
        f"() => document.querySelector('[data-testid=image]')?.naturalWidth === {PNG_WIDTH}"
    )
    downloads = page.get_by_test_id("download")
    expect(downloads).to_have_count(2)
    with page.expect_download() as waiting:
        downloads.nth(1).click()
    download = waiting.value
    assert download.suggested_filename == "minutes.txt"
    assert download.path().read_bytes() == b"minutes of the meeting\n"
    shot(page, "04-files")


def test_search_states_abstain_and_follows_a_hit(page: Page, world: World, client: TestClient) -> None:
    sign_in(page, world.alice.key)
    page.goto(f"/explorer/#memory={world.root['id']}&tab=search")
    page.get_by_test_id("search-query").fill("Who wrote notes on the Analytical Engine?")
    page.get_by_test_id("search").click()
    hits = page.get_by_test_id("hit")
    expect(hits.first).to_be_visible()
    first = hits.first
    expect(first.get_by_test_id("hit-score")).to_have_text(re.compile(r"^score \d\.\d{3}$"))
    expect(first.get_by_test_id("hit-why")).to_contain_text("found by")
    expect(page.get_by_test_id("abstain")).to_have_count(0)
    shot(page, "05-search")

    wanted = first.get_attribute("data-record-id")
    first.get_by_test_id("hit-record").click()
    expect(page.get_by_test_id("record")).to_contain_text(str(wanted))
    memory_name = first.get_by_test_id("hit-memory").inner_text()
    first.get_by_test_id("hit-memory").click()
    expect(page.get_by_test_id("place-name")).to_have_text(memory_name)

    question = "quarterly tax rules for a bakery in Lisbon"
    nonsense = {"query": question, "limit": 5}
    said = ok(
        client.post(f"/v1/memories/{world.apollo['id']}/recall", json=nonsense, headers=world.alice.headers)
    )
    page.goto(f"/explorer/#memory={world.apollo['id']}&tab=search")
    page.get_by_test_id("search-query").fill(question)
    page.get_by_test_id("search").click()
    expect(page.get_by_test_id("hit-count")).to_be_visible()
    expect(page.get_by_test_id("abstain")).to_have_count(1 if said["abstain"] else 0)
    assert said["abstain"], "the chosen nonsense question is expected to abstain in this memory"

    page.get_by_test_id("search-query").fill("")
    page.get_by_test_id("search-filters").fill("{not json")
    page.get_by_test_id("search").click()
    expect(page.get_by_test_id("search-results")).to_contain_text("The filters are not JSON")
    page.get_by_test_id("search-filters").fill('{"field": "attributes.year", "op": "bogus", "value": 1}')
    page.get_by_test_id("search").click()
    expect(page.get_by_test_id("search-error")).to_contain_text("[memory_invalid]")


def test_search_explains_each_hit_by_signal(page: Page, world: World, client: TestClient) -> None:
    """Each hit says, as text, where meaning, words, fusion and the cross-encoder placed it."""
    question = "Who wrote notes on the Analytical Engine?"
    asked = {"query": question, "explain": True}
    said = ok(client.post(f"/v1/memories/{world.root['id']}/recall", json=asked, headers=world.alice.headers))
    best = said["results"][0]
    assert "rerank" in best["explain"], "the session's recall reranks a query by default"
    sign_in(page, world.alice.key)
    page.goto(f"/explorer/#memory={world.root['id']}&tab=search")
    page.get_by_test_id("search-query").fill(question)
    page.get_by_test_id("search").click()
    hits = page.get_by_test_id("hit")
    expect(hits).to_have_count(len(said["results"]))
    expect(page.get_by_test_id("hit-explain")).to_have_count(len(said["results"]))
    first = hits.first
    assert first.get_attribute("data-record-id") == best["record"]["id"]
    explained = first.get_by_test_id("hit-explain")
    meaning, rerank = best["explain"]["signals"]["query"], best["explain"]["rerank"]
    expect(explained.get_by_test_id("explain-query")).to_have_text(
        re.compile(rf"^meaning #{meaning['rank']} · 0\.\d+$")
    )
    expect(explained.get_by_test_id("explain-rerank")).to_have_text(
        re.compile(rf"^rerank #{rerank['rank']} · -?\d+(\.\d+)?$")
    )
    expect(explained.get_by_test_id("explain-fused")).to_have_text(f"fused #{best['explain']['fused_rank']}")
    for signal, label in (("text", "words"), ("query_words", "question's words"), ("filters", "fields")):
        if signal in best["explain"]["signals"]:
            rank = best["explain"]["signals"][signal]["rank"]
            expect(explained.get_by_test_id(f"explain-{signal}")).to_contain_text(f"{label} #{rank}")
    full = rf"cross-encoder.*: rank {rerank['rank']}, score {re.escape(str(rerank['score']))}$"
    expect(explained.get_by_test_id("explain-rerank")).to_have_attribute("title", re.compile(full))
    shot(page, "05-search-explained")


def test_graph_around_a_record(page: Page, world: World) -> None:
    sign_in(page, world.alice.key)
    page.goto(
        f"/explorer/#memory={world.apollo['id']}&tab=graph&in={world.apollo['id']}&record={world.ada['id']}"
    )
    expect(page.locator("#graph-canvas[data-hops='1']")).to_have_count(1)  # drawn on arrival
    page.get_by_test_id("graph-hops").select_option("2")
    page.get_by_test_id("draw").click()
    expect(page.locator("#graph-canvas[data-hops='2']")).to_have_count(1)
    summary = page.get_by_test_id("graph-summary")
    expect(summary).to_contain_text("2 nodes, 1 edge (1 fact drawn as an edge)")
    edge_label = page.evaluate("window.explorerCy.edges()[0].data('label')")
    assert edge_label == "Ada wrote notes on the Analytical Engine"
    page.get_by_test_id("graph-fit").click()
    shot(page, "06-graph")

    where = page.evaluate(
        """(id) => { const n = window.explorerCy.getElementById(id); const p = n.renderedPosition();
                     const box = document.getElementById('graph-canvas').getBoundingClientRect();
                     return {x: box.left + p.x, y: box.top + p.y}; }""",
        world.engine["id"],
    )
    page.mouse.click(where["x"], where["y"])
    expect(page.get_by_test_id("record-title")).to_have_text("Analytical Engine")

    page.get_by_test_id("show-type-entity").uncheck()
    hidden = page.evaluate("window.explorerCy.nodes().filter((n) => n.style('display') === 'none').length")
    assert hidden == 2

    page.get_by_test_id("graph-around").fill("")
    page.get_by_test_id("draw").click()
    expect(summary).to_contain_text("2 nodes, 1 edge")


def test_cypher_console_tables_records_and_errors(page: Page, world: World) -> None:
    sign_in(page, world.alice.key)
    page.goto(f"/explorer/#memory={world.apollo['id']}&tab=cypher")
    page.get_by_test_id("cypher-run").click()
    table = page.get_by_test_id("query-rows")
    expect(table.locator("th")).to_have_text(["type", "status", "n"])
    expect(table).to_contain_text("entity")
    shot(page, "07-cypher")

    page.get_by_test_id("cypher-statement").fill("MATCH (r:Record) WHERE r.type = $type RETURN r")
    page.get_by_test_id("cypher-params").fill('{"type": "entity"}')
    page.get_by_test_id("cypher-run").click()
    expect(page.get_by_test_id("query-records").get_by_test_id("hit")).to_have_count(2)
    page.get_by_test_id("query-graph").click()
    expect(page.get_by_test_id("graph-summary")).to_contain_text("2 nodes, 0 edges (from a query answer)")

    page.goto(f"/explorer/#memory={world.apollo['id']}&tab=cypher")
    page.get_by_test_id("cypher-statement").fill("CREATE (n:Record {id: 'x'}) RETURN n")
    page.get_by_test_id("cypher-run").click()
    expect(page.get_by_test_id("query-error")).to_have_text(
        re.compile(r"^The statement is refused: .*CREATE.*\[memory_invalid\]$")
    )

    page.get_by_test_id("cypher-statement").fill("UNWIND range(1, 1500) AS i RETURN i")
    page.get_by_test_id("cypher-params").fill("")
    page.get_by_test_id("cypher-run").click()
    expect(page.get_by_test_id("query-degraded")).to_have_text("Bounded: query:rows_capped_at_1000.")
    expect(page.get_by_test_id("query-count")).to_have_text("1000 rows")

    page.goto(f"/explorer/#memory={world.projects['id']}&tab=cypher")
    page.get_by_test_id("named-params").fill('{"type": "entity"}')
    page.get_by_test_id("named-run").click()
    expect(page.get_by_test_id("query-rows")).to_contain_text("Ada Lovelace")


def test_remember_revise_and_forget(page: Page, world: World) -> None:
    sign_in(page, world.alice.key)
    open_memory(page, world.projects["id"])
    page.get_by_test_id("remember-type").fill("note")
    page.get_by_test_id("remember-title").fill("Standup moved")
    page.get_by_test_id("remember-text").fill("The standup is at 9:30 from Monday.")
    page.get_by_test_id("remember").click()
    expect(page.get_by_test_id("record-title")).to_have_text("Standup moved")
    expect(page.get_by_test_id("records")).to_contain_text("Standup moved")
    page.get_by_test_id("revise-title").fill("Standup moved to 9:30")
    page.get_by_test_id("revise-reason").fill("The title should say when.")
    page.get_by_test_id("revise").click()
    expect(page.get_by_test_id("record-title")).to_have_text("Standup moved to 9:30")
    page.get_by_test_id("forget").click()
    page.get_by_test_id("forget-confirm").click()
    expect(page.get_by_test_id("record").locator("dd", has_text="forgotten")).to_be_visible()
    expect(page.get_by_test_id("forget")).to_have_count(0)
    shot(page, "08-written")

    rows = page.get_by_test_id("record-row")
    page.get_by_test_id("record-filters").locator("button[type=submit]").click()
    expect(page.get_by_test_id("records")).not_to_contain_text("Standup moved")
    page.get_by_test_id("filter-status").select_option("forgotten")
    page.get_by_test_id("record-filters").locator("button[type=submit]").click()
    expect(rows).to_have_count(1)
    expect(rows.first).to_contain_text("Standup moved to 9:30")


def test_the_key_lives_in_this_tab_only(page: Page, world: World) -> None:
    sign_in(page, world.alice.key)
    other_tab = page.context.new_page()
    other_tab.goto("/explorer/")
    expect(other_tab.locator("#sign-in")).to_be_visible()
    expect(other_tab.locator("#app")).to_be_hidden()
    other_tab.close()
    page.reload()
    expect(page.locator("#app")).to_be_visible()
    page.click("#sign-out")
    expect(page.locator("#sign-in")).to_be_visible()
    assert page.evaluate("sessionStorage.length") == 0


def test_a_member_sees_nothing_the_grants_hide(page: Page, world: World) -> None:
    sign_in(page, world.bob.key)
    nodes = page.locator("#tree .node")
    expect(nodes).to_have_count(1)
    expect(nodes.first).to_contain_text(world.projects["name"])
    expect(nodes.first.get_by_test_id("privileges")).to_have_text("read")
    body = page.locator("body")
    for hidden in (world.root["name"], world.private["name"]):
        expect(body).not_to_contain_text(hidden)
    page.click("#show-granted")
    expect(page.locator("#tree-hint")).to_have_text("Where your privileges start or change.")
    expect(nodes).to_have_count(1)
    expect(nodes.first).to_contain_text(world.projects["name"])

    open_memory(page, world.projects["id"])
    expect(page.get_by_test_id("remember-form")).to_have_count(0)
    open_record(page, world.projects["id"], world.pointer["id"])
    expect(page.get_by_test_id("reference")).to_have_text(f"refers to → {world.secret['id']} (unavailable)")
    expect(page.get_by_test_id("revise-form")).to_have_count(0)
    expect(page.get_by_test_id("forget")).to_have_count(0)
    shot(page, "09-member-view")

    page.goto(f"/explorer/#memory={world.private['id']}")
    expect(page.get_by_test_id("place-error")).to_contain_text("[memory_not_found]")
    page.goto(
        f"/explorer/#memory={world.projects['id']}&in={world.private['id']}&record={world.secret['id']}"
    )
    expect(page.get_by_test_id("record-error")).to_contain_text("not_found]")
    expect(body).not_to_contain_text("Salary review")

    page.goto(f"/explorer/#memory={world.projects['id']}&tab=search")
    page.get_by_test_id("search-text").fill("Salary review private numbers")
    page.get_by_test_id("search").click()
    expect(page.get_by_test_id("hit-count")).to_be_visible()
    expect(body).not_to_contain_text("Salary review")


def test_hostile_records_render_inert(page: Page, world: World) -> None:
    sign_in(page, world.alice.key)
    open_memory(page, world.projects["id"])
    expect(page.get_by_test_id("records")).to_contain_text(HOSTILE_TITLE)
    open_record(page, world.projects["id"], world.hostile["id"])
    expect(page.get_by_test_id("record-title")).to_have_text(HOSTILE_TITLE)
    expect(page.get_by_test_id("content")).to_have_text(HOSTILE_TEXT)
    page.goto(f"/explorer/#memory={world.projects['id']}&tab=search")
    page.get_by_test_id("search-text").fill("bold script pwned")
    page.get_by_test_id("search").click()
    expect(page.get_by_test_id("hit-count")).to_be_visible()
    expect(page.get_by_test_id("hit")).to_contain_text(HOSTILE_TITLE)
    page.get_by_test_id("content").hover()  # an onmouseover, had it been parsed, would fire here
    shot(page, "10-hostile")
    page.goto(f"/explorer/#memory={world.projects['id']}&tab=cypher")
    page.get_by_test_id("cypher-statement").fill(
        "MATCH (r:Record {type: 'note'}) RETURN r.title AS title, r.text AS text"
    )
    page.get_by_test_id("cypher-run").click()
    expect(page.get_by_test_id("query-rows")).to_contain_text(HOSTILE_TITLE)
    page.goto(f"/explorer/#memory={world.projects['id']}&tab=graph")
    page.get_by_test_id("draw").click()
    expect(page.get_by_test_id("graph-summary")).to_contain_text("nodes")
    assert page.evaluate("window.__pwned") is None
    assert page.locator("img[src=x]").count() == 0
    assert page.locator("b").count() == 0
    scripts = page.evaluate("[...document.scripts].map((s) => s.getAttribute('src'))")
    assert scripts == ["vendor/cytoscape.min.js", "js/main.js"]


def test_cypher_console_types_params_shows_the_plan_the_data_and_downloads(page: Page, world: World) -> None:
    sign_in(page, world.alice.key)
    page.goto(f"/explorer/#memory={world.apollo['id']}&tab=cypher")
    page.get_by_test_id("cypher-statement").fill(
        "MATCH (r:Record) WHERE r.type = $type AND size(r.title) > $longer "
        "RETURN r.title AS title ORDER BY title"
    )
    page.get_by_test_id("param-value-type").fill("entity")
    page.get_by_test_id("param-type-longer").select_option("integer")
    page.get_by_test_id("param-value-longer").fill("0")
    page.get_by_test_id("cypher-run").click()
    expect(page.get_by_test_id("query-rows").locator("tbody tr")).to_have_count(2)
    expect(page.get_by_test_id("query-data")).to_contain_text("Data as of ")

    page.get_by_test_id("param-value-longer").fill("zero")
    page.get_by_test_id("cypher-run").click()
    expect(page.get_by_test_id("query-error")).to_contain_text('"zero" is not an integer')

    page.get_by_test_id("param-value-longer").fill("0")
    page.get_by_test_id("cypher-plan").click()
    expect(page.get_by_test_id("query-rows").locator("th")).to_have_text(["operator", "details"])
    expect(page.get_by_test_id("query-rows")).to_contain_text("ProduceResults")

    with page.expect_download() as downloaded:
        page.get_by_test_id("cypher-csv").click()
    lines = Path(downloaded.value.path()).read_text().splitlines()
    assert lines[0] == "title" and len(lines) == 3, lines
