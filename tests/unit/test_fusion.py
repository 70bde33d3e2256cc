"""Score-level fusion and the words a query searches: the pure parts of recall's ranking."""

from __future__ import annotations

from provider.models import Hit
from provider.models.words import MAX_QUERY_WORDS as MAX_WORDS
from provider.models.words import query_words
from provider.services.recall.fusion import fuse, fuse_scores


def test_query_words_drop_the_grammar_of_a_question() -> None:
    asked = "When did Caroline go to the LGBTQ support group?"
    assert query_words(asked) == "Caroline go LGBTQ support group"
    assert query_words("What is Melanie's husband's name?") == "Melanie husband name"
    assert query_words("Who is it? Who?") == ""
    assert query_words("group Group GROUP") == "group"


def test_query_words_stop_at_the_thirty_second_word() -> None:
    many = " ".join(f"word{n}" for n in range(1_000))
    assert query_words(many).split() == [f"word{n}" for n in range(MAX_WORDS)]


def test_scores_keep_the_gap_that_ranks_throw_away() -> None:
    rankings: dict[str, list[Hit]] = {
        "query": [Hit("a", "m", 0.61), Hit("b", "m", 0.60), Hit("c", "m", 0.20)],
        "query_words": [Hit("b", "m", 9.0), Hit("c", "m", 1.0)],
    }
    by_rank = [h.record_id for h in fuse(rankings)]
    by_score = fuse_scores(rankings, 0.5)
    assert by_rank[0] == "b"
    assert [h.record_id for h in by_score] == ["b", "a", "c"]
    assert by_score[0].why == ["query", "query_words"] and by_score[1].why == ["query"]
    assert by_score[0].similarity == 0.60
    assert by_score[1].score == 0.5  # the best meaning, found by no word


def test_weight_zero_is_meaning_alone_and_one_words_alone() -> None:
    rankings: dict[str, list[Hit]] = {
        "query": [Hit("a", "m", 0.9), Hit("b", "m", 0.5)],
        "text": [Hit("b", "m", 3.0), Hit("a", "m", 1.0)],
    }
    assert [h.record_id for h in fuse_scores(rankings, 0.0)] == ["a", "b"]
    assert [h.record_id for h in fuse_scores(rankings, 1.0)] == ["b", "a"]
