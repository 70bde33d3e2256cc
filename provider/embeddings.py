"""Embedder protocol and its runtimes (onnxruntime, sentence-transformers): loaded once, run off the loop."""

from __future__ import annotations

import asyncio
import os
import threading
from collections import OrderedDict, deque
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from provider import metrics, tracing
from provider.config import Settings
from provider.fairness import current_principal
from provider.model_files import (
    GRAPH_FILE,
    MAVEN_CENTRAL,
    TOKENIZER_FILE,
    EmbeddingModel,
    jar_files,
    model,
    model_tokenizer,
    models_dir,
    packaged_model_path,
)
from provider.onnx_bert import GRAPH_VERSION
from provider.onnx_bert import build as build_graph


class Embedder(Protocol):
    """Turns texts into normalised vectors of a fixed dimension."""

    @property
    def dimension(self) -> int:
        """The length of every vector (known once the model is loaded)."""
        ...

    async def embed(self, texts: Sequence[str]) -> list[list[float]]:
        """One vector per text (a record, or anything stored), in order."""
        ...

    async def embed_questions(self, texts: Sequence[str]) -> list[list[float]]:
        """One vector per question a recall asks: some models want an instruction before it."""
        ...


class SentenceTransformerEmbedder:
    """all-MiniLM-L6-v2 (or another packaged model) through sentence-transformers, offline."""

    def __init__(self, name: str, *, batch_size: int = 64, dimension: int | None = None):
        self.spec = model(name)
        if not self.spec.package:
            raise ValueError(
                f"UHP_EMBEDDING_RUNTIME=torch runs only a packaged model, not {name!r}: use onnx"
            )
        self.model_name = name
        self.batch_size = batch_size
        self._model: Any = None
        self._lock = threading.Lock()
        self.dimension = dimension or 0

    def load(self) -> None:
        """Imports torch and reads the weights; slow (seconds), so done once at start-up."""
        with self._lock:
            if self._model is not None:
                return
            os.environ.setdefault("HF_HUB_OFFLINE", "1")
            os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
            try:
                from sentence_transformers import SentenceTransformer
            except ImportError as e:  # the torch runtime is optional
                raise RuntimeError(
                    "UHP_EMBEDDING_RUNTIME=torch needs sentence-transformers, left out of the lean install: "
                    "pip install sentence-transformers==6.2.0"
                ) from e
            model = SentenceTransformer(str(packaged_model_path(self.model_name)), device="cpu")
            measure = (
                getattr(model, "get_embedding_dimension", None) or model.get_sentence_embedding_dimension
            )
            self.dimension = int(measure() or 0)
            self._model = model

    @property
    def loaded(self) -> bool:
        """True once the weights are in memory."""
        return self._model is not None

    def embed_sync(self, texts: Sequence[str]) -> list[list[float]]:
        """Encodes in batches on the calling thread."""
        self.load()
        if not texts:
            return []
        with metrics.timed(metrics.EMBEDDING_SECONDS):
            vectors = self._model.encode(
                list(texts), batch_size=self.batch_size, normalize_embeddings=True, show_progress_bar=False
            )
        metrics.EMBEDDED_TEXTS.inc(len(texts))
        return [[float(x) for x in row] for row in vectors]

    async def embed(self, texts: Sequence[str]) -> list[list[float]]:
        """Encodes on a worker thread so the event loop keeps serving."""
        with tracing.embedding(self.model_name, len(texts)):
            return await asyncio.to_thread(self.embed_sync, texts)

    async def embed_questions(self, texts: Sequence[str]) -> list[list[float]]:
        """The model's question instruction (none for a packaged model) before each text."""
        return await self.embed([self.spec.question_prefix + text for text in texts])


class OnnxEmbedder:
    """The model run by onnxruntime: sentence-transformers' vectors, without torch.

    A packaged model's graph is built once from its weights (provider/onnx_bert.py) into `cache_dir`;
    a Maven model's graph comes ready in its jar, fetched once into `models` (provider/model_files.py).
    The tokenizer is the model's own `tokenizer.json`, read by the `tokenizers` library. Pooling
    (mean or CLS) and normalisation match the model's card.
    """

    def __init__(
        self,
        name: str,
        *,
        cache_dir: Path,
        models: Path | None = None,
        repository: str = MAVEN_CENTRAL,
        batch_size: int = 64,
        threads: int = 0,
        question_threads: int = 0,
        max_length: int | None = None,
    ):
        self.spec: EmbeddingModel = model(name)
        self.model_name = name
        self.cache_dir = cache_dir
        self.models = models or cache_dir.parent / "models"
        self.repository = repository
        self.batch_size = batch_size
        self.threads = threads
        self.question_threads = question_threads
        self.max_length = max_length or self.spec.max_length
        self.dimension = 0
        self._session: Any = None
        self._question_session: Any = None
        self._tokenizer: Any = None
        self._lock = threading.Lock()

    @property
    def loaded(self) -> bool:
        """True once the session is ready."""
        return self._session is not None

    def load(self) -> None:
        """Builds or fetches the graph on first use, then opens an inference session."""
        with self._lock:
            if self._session is not None:
                return
            import onnxruntime

            graph, tokenizer = self.files()

            def session(threads: int) -> Any:
                options = onnxruntime.SessionOptions()
                if threads:
                    options.intra_op_num_threads = threads
                return onnxruntime.InferenceSession(str(graph), options, providers=["CPUExecutionProvider"])

            self._tokenizer = model_tokenizer(tokenizer, max_length=self.max_length)
            # One short text gains nothing from more threads, and each spare core is what Neo4j and
            # another question need meanwhile: a single text runs on a session of its own.
            self._question_session = session(self.question_threads)
            same = self.question_threads == self.threads
            self._session = self._question_session if same else session(self.threads)
            self.dimension = int(self._session.get_outputs()[0].shape[-1])

    def files(self) -> tuple[Path, Path]:
        """The graph and the tokenizer: built from a package's weights, or unpacked from a Maven jar."""
        if self.spec.jar is not None:
            folder = jar_files(self.spec.jar, self.model_name, self.models, repository=self.repository)
            return folder / GRAPH_FILE, folder / TOKENIZER_FILE
        source = packaged_model_path(self.model_name)
        return self.graph_path(source), source / TOKENIZER_FILE

    def graph_path(self, source: Path) -> Path:
        """The cached graph, built first when missing (atomically: a half-written file is never read)."""
        graph = self.cache_dir / f"{self.model_name}.v{GRAPH_VERSION}.onnx"
        if not graph.exists():
            self.cache_dir.mkdir(parents=True, exist_ok=True)
            partial = graph.with_suffix(f".{os.getpid()}.partial")
            build_graph(source, partial)
            os.replace(partial, graph)
        return graph

    def embed_sync(self, texts: Sequence[str]) -> list[list[float]]:
        """Pooled, L2-normalised vectors, in batches of similar length (less padding to run)."""
        self.load()
        order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
        vectors: list[list[float]] = [[] for _ in texts]
        session = self._question_session if len(texts) == 1 else self._session
        with metrics.timed(metrics.EMBEDDING_SECONDS):
            for start in range(0, len(order), self.batch_size):
                chunk = order[start : start + self.batch_size]
                for index, vector in zip(chunk, self._batch(session, [texts[i] for i in chunk]), strict=True):
                    vectors[index] = vector
        metrics.EMBEDDED_TEXTS.inc(len(texts))
        return vectors

    def questions_sync(self, texts: Sequence[str]) -> list[list[float]]:
        """Questions, each after the model's instruction for them (bge's; none for MiniLM)."""
        return self.embed_sync([self.spec.question_prefix + text for text in texts])

    def _batch(self, session: Any, texts: list[str]) -> list[list[float]]:
        import numpy as np

        encoded = self._tokenizer.encode_batch(texts)
        feeds = {
            "input_ids": np.array([e.ids for e in encoded], dtype=np.int64),
            "attention_mask": np.array([e.attention_mask for e in encoded], dtype=np.int64),
            "token_type_ids": np.array([e.type_ids for e in encoded], dtype=np.int64),
        }
        hidden = session.run(None, feeds)[0]
        if self.spec.pooling == "cls":
            pooled = hidden[:, 0, :].copy()
        else:
            mask = feeds["attention_mask"][..., None].astype(np.float32)
            pooled = (hidden * mask).sum(axis=1) / np.clip(mask.sum(axis=1), 1e-9, None)
        pooled /= np.clip(np.linalg.norm(pooled, axis=1, keepdims=True), 1e-12, None)
        rows: list[list[float]] = pooled.tolist()
        return rows

    async def embed(self, texts: Sequence[str]) -> list[list[float]]:
        """On a worker thread, so the event loop keeps serving (the span counts the wait for one)."""
        with tracing.embedding(self.model_name, len(texts)):
            return await asyncio.to_thread(self.embed_sync, texts)

    async def embed_questions(self, texts: Sequence[str]) -> list[list[float]]:
        """Questions on a worker thread, traced like any other embedding."""
        with tracing.embedding(self.model_name, len(texts)):
            return await asyncio.to_thread(self.questions_sync, texts)


SHORT_TEXT_CHARS = 1_000
"""Texts up to this long (questions, most facts) are embedded before longer ones in a batch."""


@dataclass
class _Waiting:
    """One text waiting for a model call, and where its vector goes."""

    text: str
    question: bool
    vector: asyncio.Future[list[float]]


class BatchedEmbedder:
    """Texts that arrive within `wait_ms` of each other share one model call, taken fairly by principal.

    Eight questions asked at once cost about one model call instead of eight calls fighting for two
    cores; a bulk write's texts are cut into batches of `max_batch`, and each batch takes texts in turn
    from every principal waiting (`fairness.current_principal`), so one question never waits behind a
    whole import. One call runs at a time; the texts that arrive meanwhile go in the next, at once.
    A model whose question instruction is known (its `spec`) embeds questions and records in the same
    call. Called from another event loop than its first (a command beside the app), it calls the model
    directly.
    """

    def __init__(self, inner: Embedder, *, max_batch: int, wait_ms: float):
        self.inner = inner
        self.max_batch = max_batch
        self.wait_seconds = wait_ms / 1000
        spec = getattr(inner, "spec", None)
        self.question_prefix: str | None = getattr(spec, "question_prefix", None)
        self._queues: OrderedDict[str, deque[_Waiting]] = OrderedDict()
        self._pending = 0
        self._running = False
        self._timer: asyncio.TimerHandle | None = None
        self._loop: asyncio.AbstractEventLoop | None = None

    @property
    def dimension(self) -> int:
        """The model's dimension (known once it is loaded)."""
        return self.inner.dimension

    async def embed(self, texts: Sequence[str]) -> list[list[float]]:
        """Records' texts, batched with whatever else waits."""
        return await self._submit(texts, question=False)

    async def embed_questions(self, texts: Sequence[str]) -> list[list[float]]:
        """Questions, batched with whatever else waits."""
        return await self._submit(texts, question=True)

    async def _submit(self, texts: Sequence[str], *, question: bool) -> list[list[float]]:
        if not texts:
            return []
        loop = asyncio.get_running_loop()
        self._loop = self._loop or loop
        if loop is not self._loop:
            call = self.inner.embed_questions if question else self.inner.embed
            return await call(texts)
        waiting = [_Waiting(text, question, loop.create_future()) for text in texts]
        self._queues.setdefault(current_principal.get(), deque()).extend(waiting)
        self._pending += len(waiting)
        self._schedule(loop)
        return list(await asyncio.gather(*(w.vector for w in waiting)))

    def _schedule(self, loop: asyncio.AbstractEventLoop) -> None:
        if self._running:
            return  # the call running now starts the next when it ends
        if self._pending >= self.max_batch or not self.wait_seconds:
            self._start(loop)
        elif self._timer is None:
            self._timer = loop.call_later(self.wait_seconds, self._start, loop)

    def _start(self, loop: asyncio.AbstractEventLoop) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        if self._running or not self._pending:
            return
        self._running = True
        loop.create_task(self._run(self._take()))

    def _take(self) -> list[_Waiting]:
        """Up to `max_batch` texts, one from each waiting principal in turn."""
        batch: list[_Waiting] = []
        while self._queues and len(batch) < self.max_batch:
            principal, queue = next(iter(self._queues.items()))
            batch.append(queue.popleft())
            if queue:
                self._queues.move_to_end(principal)
            else:
                del self._queues[principal]
        self._pending -= len(batch)
        return batch

    async def _run(self, batch: list[_Waiting]) -> None:
        try:
            live = [w for w in batch if not w.vector.done()]  # a caller cancelled meanwhile
            metrics.EMBED_BATCH_TEXTS.observe(len(live))
            async for group, vectors in self._embedded(live):
                for waiting, vector in zip(group, vectors, strict=True):
                    if not waiting.vector.done():
                        waiting.vector.set_result(vector)
        except Exception as e:
            for waiting in batch:
                if not waiting.vector.done():
                    waiting.vector.set_exception(e)
        finally:
            self._running = False
            if self._pending:
                self._start(asyncio.get_running_loop())

    async def _embedded(
        self, batch: list[_Waiting]
    ) -> AsyncIterator[tuple[list[_Waiting], list[list[float]]]]:
        """The batch's vectors, short texts first: a question never waits for a long record's call.

        A long text costs its call tokenizing and padding; the short ones (questions, most facts) go
        in a call of their own before it. Within each, one call when the question instruction is
        known, else one per kind.
        """
        short = [w for w in batch if len(w.text) <= SHORT_TEXT_CHARS]
        long = [w for w in batch if len(w.text) > SHORT_TEXT_CHARS]
        for part in (short, long):
            if not part:
                continue
            if self.question_prefix is not None:
                texts = [self.question_prefix + w.text if w.question else w.text for w in part]
                yield part, await self.inner.embed(texts)
                continue
            records = [w for w in part if not w.question]
            questions = [w for w in part if w.question]
            if questions:
                yield questions, await self.inner.embed_questions([w.text for w in questions])
            if records:
                yield records, await self.inner.embed([w.text for w in records])


def onnx_embedder(name: str, *, batch_size: int = 64) -> OnnxEmbedder:
    """The default runtime and cache (`UHP_CACHE_DIR`), for benchmarks and commands that have no settings."""
    models = models_dir()
    return OnnxEmbedder(name, cache_dir=models.parent / "onnx", models=models, batch_size=batch_size)


def build_embedder(
    runtime: str,
    name: str,
    *,
    cache_dir: Path,
    batch_size: int,
    threads: int = 0,
    question_threads: int = 0,
    repository: str = MAVEN_CENTRAL,
) -> OnnxEmbedder | SentenceTransformerEmbedder:
    """The configured runtime: `onnx` (default, faster) or `torch` (sentence-transformers itself).

    `cache_dir` is the cache's root: built graphs go in `onnx/`, fetched models in `models/`.
    """
    if runtime == "torch":
        return SentenceTransformerEmbedder(name, batch_size=batch_size)
    return OnnxEmbedder(
        name,
        cache_dir=cache_dir / "onnx",
        models=cache_dir / "models",
        repository=repository,
        batch_size=batch_size,
        threads=threads,
        question_threads=question_threads,
    )


def configured_embedder(
    settings: Settings, name: str | None = None
) -> OnnxEmbedder | SentenceTransformerEmbedder:
    """The embedder the settings name, or the model `name` in their runtime and cache.

    A graph is built or fetched once into the cache.
    """
    return build_embedder(
        settings.embedding.runtime,
        name or settings.embedding.model,
        cache_dir=settings.cache_dir,
        batch_size=settings.embedding.batch_size,
        threads=settings.embedding.threads,
        question_threads=settings.embedding.question_threads,
        repository=settings.model_repository,
    )


def loaded_embedder(settings: Settings, name: str) -> Embedder:
    """Another model than the configured one, ready to embed (blocking: fetches and loads it)."""
    embedder = configured_embedder(settings, name)
    embedder.load()
    return embedder
