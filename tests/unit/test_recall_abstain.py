"""Abstain's judgement (services/recall/abstain.py), the rule the recall service applies to every answer."""

from __future__ import annotations

import pytest

from provider.models import FilterLeaf, RecallAsk
from provider.services.recall.abstain import abstains

LINE = 0.3  # a threshold as a model's calibration would give it


def test_an_answer_with_nothing_in_it_abstains_whatever_was_asked() -> None:
    for ask in (
        RecallAsk(query="where"),
        RecallAsk(text="where"),
        RecallAsk(filters=FilterLeaf("type", "eq", "fact")),
    ):
        assert abstains(ask, 0, 0.9, LINE)


@pytest.mark.parametrize(("best", "expected"), [(0.29, True), (0.3, False), (0.8, False), (None, True)])
def test_a_question_by_meaning_alone_abstains_below_the_line(best: float | None, expected: bool) -> None:
    assert abstains(RecallAsk(query="who moved to Paris?"), 3, best, LINE) is expected


def test_words_or_filters_beside_the_question_are_the_callers_own_criteria_and_never_abstain() -> None:
    assert not abstains(RecallAsk(query="who moved?", text="Paris"), 2, 0.05, LINE)
    assert not abstains(
        RecallAsk(query="who moved?", filters=FilterLeaf("type", "eq", "fact")), 2, 0.05, LINE
    )
    assert not abstains(RecallAsk(text="Paris"), 1, None, LINE)
