"""A disagreement comes whole: a `contradicts` reference brings its other side into a recall, past `limit`."""

from __future__ import annotations

from fastapi.testclient import TestClient

from tests.api.recall_support import found, recall
from tests.api.records_support import Lab, lab_on
from tests.conftest import Member

QUESTION = "What time does the Harlow warehouse open?"
FILLER = (
    "The Harlow warehouse has forty loading bays.",
    "Harlow's warehouse manager is Ines Varga.",
    "The warehouse at Harlow ships flour and oats.",
    "Forklift training at the Harlow warehouse is on Mondays.",
)


def disagreement(lab: Lab, alice: Member, memory: str, other_memory: str | None = None) -> tuple[str, str]:
    """Two records that disagree; the later one names the earlier with `contradicts`."""
    early = lab.remember(
        alice, memory, content="The Harlow warehouse opens at 6 in the morning, says the handbook."
    )
    late = lab.remember(
        alice,
        other_memory or memory,
        content="A driver wrote that the gates stay shut until nine.",
        references=[{"rel": "contradicts", "record_id": early["id"]}],
    )
    for text in FILLER:
        lab.remember(alice, memory, content=text)
    return early["id"], late["id"]


def test_both_sides_come_back_even_past_the_limit(client: TestClient, alice: Member) -> None:
    with lab_on(client) as lab:
        memory = lab.memory(alice)
        early, late = disagreement(lab, alice, memory)
        answer = recall(client, alice, memory, query=QUESTION, limit=1, explain=True)
        ids = found(answer)
        assert ids[0] == early, "the handbook's line is what the question asks for"
        assert ids == [early, late], "its other side comes with it, past the limit of one"
        first, other = answer["results"]
        assert "contradicts" in first["why"] and other["why"] == ["contradicts"]
        assert other["score"] is None and other["explain"]["contradicts"] == early
        # Asked from the other side: the handbook comes along too.
        from_late = recall(client, alice, memory, text="driver gates shut", limit=1)
        assert found(from_late) == [late, early]


def test_a_side_the_caller_may_not_read_stays_out(client: TestClient, alice: Member, bob: Member) -> None:
    with lab_on(client) as lab:
        shared = lab.memory(alice)
        private = lab.memory(alice)
        lab.grant(alice, shared, bob, "read")
        early, late = disagreement(lab, alice, shared, other_memory=private)
        mine = recall(client, alice, shared, query=QUESTION, limit=1)
        assert found(mine) == [early, late], "Alice reads both: the private side comes from outside the scope"
        theirs = recall(client, bob, shared, query=QUESTION, limit=1)
        assert found(theirs) == [early]
        assert theirs["results"][0]["why"].count("contradicts") == 0, "nothing says a hidden side exists"


def test_a_forgotten_side_does_not_come_back(client: TestClient, alice: Member) -> None:
    with lab_on(client) as lab:
        memory = lab.memory(alice)
        early, late = disagreement(lab, alice, memory)
        lab.delete(alice, memory, late)
        assert found(recall(client, alice, memory, query=QUESTION, limit=1)) == [early]
