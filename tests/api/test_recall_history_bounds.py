"""History and as_of recall rank a bounded window of versions in Neo4j, and say when it cut some.

A dedicated app on the same Neo4j and model has a window of five versions, so a handful of records
is already "more versions than the window"; the suite's app (window 2,000) answers the same memory
whole, which shows what the window left out.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from fastapi.testclient import TestClient

from provider.api.app import create_app
from provider.config import Settings
from provider.embeddings import OnnxEmbedder
from tests.api.recall_support import Memories, found, recall, word
from tests.conftest import Member

WINDOW = 5
CUT = f"history:capped_at_{WINDOW}_versions"


@pytest.fixture(scope="module")
def small(settings: Settings, embedder: OnnxEmbedder) -> Iterator[TestClient]:
    """An app whose history recall ranks only the five newest versions."""
    bounded = settings.changed(recall_history_window=WINDOW)
    with TestClient(create_app(bounded, embedder=embedder)) as test_client:
        yield test_client


@pytest.fixture
def mem(small: TestClient) -> Iterator[Memories]:
    memories = Memories(small)
    yield memories
    memories.cleanup()


def fillers(mem: Memories, who: Member, memory_id: str, tag: str, count: int) -> list[str]:
    """Records about something else, so they outnumber the window without matching the question."""
    weather = ["rain", "hail", "fog", "sleet", "frost", "wind", "snow", "sun"]
    return [
        mem.remember(who, memory_id, f"{tag} The weather on day {i} brought {weather[i % 8]}.")["id"]
        for i in range(count)
    ]


def test_history_past_the_window_answers_says_so_and_ranks_the_newest(
    mem: Memories, client: TestClient, alice: Member
) -> None:
    memory = mem.make(alice, "long history")
    tag = word("window")
    oldest = mem.remember(alice, memory["id"], f"{tag} Harlow Mills pays its invoices net sixty.")
    fillers(mem, alice, memory["id"], tag, WINDOW + 1)
    best = mem.remember(alice, memory["id"], f"{tag} Quillon Freight renews its contract every March.")
    mem.forget(alice, best)  # include=all still ranks it: forgotten, and the newest version

    asked = recall(mem.client, alice, memory["id"], include="all", query="When does Quillon Freight renew?")
    assert CUT in asked["degraded"]
    assert found(asked)[0] == best["id"] and asked["results"][0]["record"]["status"] == "forgotten"

    by_words = recall(mem.client, alice, memory["id"], include="all", text=f"{tag} Quillon")
    assert found(by_words)[0] == best["id"] and CUT in by_words["degraded"]
    listed = recall(mem.client, alice, memory["id"], include="all", text=tag, limit=20)
    assert len(found(listed)) == WINDOW and oldest["id"] not in found(listed)
    facts = {"field": "type", "op": "eq", "value": "fact"}
    newest = recall(mem.client, alice, memory["id"], include="all", filters=facts)
    assert found(newest)[0] == best["id"] and oldest["id"] not in found(newest)

    # Past the window, the oldest version is not ranked; the suite's app, whose window holds it, is.
    assert found(recall(mem.client, alice, memory["id"], include="all", text="Harlow")) == []
    whole = recall(client, alice, memory["id"], include="all", text="Harlow")
    assert found(whole) == [oldest["id"]] and not any(d.startswith("history:") for d in whole["degraded"])


def test_as_of_past_the_window_returns_the_version_true_then(mem: Memories, alice: Member) -> None:
    memory = mem.make(alice, "revised")
    tag = word("asofwin")
    fillers(mem, alice, memory["id"], tag, WINDOW + 1)
    first = mem.remember(alice, memory["id"], f"{tag} Quillon Freight renews its contract every March.")
    fillers(mem, alice, memory["id"], word("later"), 1)  # the revision is written a millisecond later
    revised = mem.revise(alice, first, content=f"{tag} Quillon Freight renews its contract every April.")
    assert revised["version"] == 2 and revised["time"]["written_at"] > first["time"]["written_at"]
    before = first["time"]["written_at"]

    for signal in ({"query": "When does Quillon Freight renew?"}, {"text": f"{tag} Quillon"}):
        then = recall(mem.client, alice, memory["id"], as_of=before, **signal)
        assert CUT in then["degraded"], signal
        assert found(then)[0] == first["id"], signal
        old = then["results"][0]["record"]
        assert "March" in old["content"][0]["text"] and old["version"] == 1, signal
        assert old["status"] == "active", signal
    assert found(recall(mem.client, alice, memory["id"], as_of=before, text="April")) == []
    later = recall(mem.client, alice, memory["id"], as_of=revised["time"]["written_at"], text="Quillon")
    assert found(later) == [first["id"]] and later["results"][0]["record"]["version"] == 2


def test_a_history_within_the_window_is_not_degraded(mem: Memories, alice: Member) -> None:
    memory = mem.make(alice, "short history")
    tag = word("short")
    kept = mem.remember(alice, memory["id"], f"{tag} Harlow Mills pays net thirty.")
    answer = recall(mem.client, alice, memory["id"], include="all", text=tag)
    assert found(answer) == [kept["id"]] and answer["degraded"] == []
