"""Counting tokens with a real tokenizer: the embedding model's own WordPiece vocabulary, offline."""

from __future__ import annotations

import os
import threading
from typing import Any, Protocol

from provider.embeddings import packaged_model_path


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
