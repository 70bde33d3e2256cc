"""The period a question names, read for recall's date lift (provider/services/recall/dates.py)."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from provider.services.recall.dates import named_period


def days(question: str) -> tuple[str, str] | None:
    period = named_period(question)
    if period is None:
        return None
    start, end = (datetime.fromtimestamp(ms / 1000, UTC).date().isoformat() for ms in period)
    return start, end


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        ("What did Maria do on 7 July, 2023?", ("2023-07-06", "2023-07-09")),
        ("Who came to dinner on May 3, 2023?", ("2023-05-02", "2023-05-05")),
        ("What was said on the 3rd of June 2023?", ("2023-06-02", "2023-06-05")),
        ("What changed on 2024-02-29?", ("2024-02-28", "2024-03-02")),
        ("What did he do in May 2023?", ("2023-05-01", "2023-06-01")),
        ("Which class did she start in December 2023?", ("2023-12-01", "2024-01-01")),
        ("How often did they meet in 2023?", ("2023-01-01", "2024-01-01")),
        # "before" reaches two weeks back, "after" two weeks on.
        ("What did he do the week before August 3, 2023?", ("2023-07-20", "2023-08-05")),
        ("What happened after June 1st, 2023?", ("2023-05-31", "2023-06-15")),
        # The first date named is the one read.
        ("Between 1 March 2023 and 9 March 2023?", ("2023-02-28", "2023-03-03")),
    ],
)
def test_a_named_date_is_a_period(question: str, expected: tuple[str, str]) -> None:
    assert days(question) == expected


@pytest.mark.parametrize(
    "question",
    [
        "What did Caroline research?",
        "Where did they go last weekend?",
        "Did she call 2023 times?",  # a bare number is no year named
        "We may go in June.",  # a month without its year is no period
        "",
    ],
)
def test_a_question_naming_no_date_has_no_period(question: str) -> None:
    assert named_period(question) is None


def test_an_impossible_day_falls_back_to_its_month() -> None:
    assert days("What happened on 31 February, 2023?") == ("2023-02-01", "2023-03-01")
