"""The encoder graph built without torch: what it refuses, and the tokenizer it is paired with."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from provider.embeddings import OnnxEmbedder
from provider.model_files import ModelTokenizer, model_tokenizer, packaged_model_path
from provider.onnx_bert import BertShape

SOURCE = packaged_model_path("all-MiniLM-L6-v2")


def test_the_shape_comes_from_the_packaged_config() -> None:
    assert BertShape.read(SOURCE) == BertShape(hidden=384, heads=12, layers=6, eps=1e-12)


@pytest.mark.parametrize(
    "change",
    [{"model_type": "roberta"}, {"hidden_act": "gelu_new"}, {"position_embedding_type": "relative_key"}],
)
def test_a_model_it_cannot_build_is_refused_by_name(tmp_path: Path, change: dict[str, str]) -> None:
    config = json.loads((SOURCE / "config.json").read_text())
    (tmp_path / "config.json").write_text(json.dumps({**config, **change}))
    with pytest.raises(ValueError, match="only"):
        BertShape.read(tmp_path)


def test_the_tokenizer_pads_to_the_longest_and_truncates() -> None:
    tokenizer = model_tokenizer(SOURCE / "tokenizer.json", max_length=16)
    short, long = tokenizer.encode_batch(["a sample", "word " * 100])
    assert len(short.ids) == len(long.ids) == 16
    assert short.ids[0] == 101 and short.ids[3] == 102 and short.attention_mask == [1] * 4 + [0] * 12
    assert long.attention_mask == [1] * 16 and long.ids[-1] == 102


def test_token_counts_leave_out_the_special_tokens() -> None:
    assert ModelTokenizer("all-MiniLM-L6-v2").count("a sample") == 2
    assert ModelTokenizer("all-MiniLM-L6-v2").count("") == 0


def test_one_text_runs_on_its_own_session_and_agrees_with_a_batch() -> None:
    """A question runs on a one-thread session beside the batch session; both give the same vector."""
    from provider.embeddings import onnx_embedder

    shared = onnx_embedder("all-MiniLM-L6-v2")  # the graph built once in the usual cache
    embedder = OnnxEmbedder("all-MiniLM-L6-v2", cache_dir=shared.cache_dir, threads=0, question_threads=1)
    embedder.load()
    assert embedder._question_session is not embedder._session
    alone = embedder.embed_sync(["where does the cat sleep"])[0]
    batched = embedder.embed_sync(["where does the cat sleep", "a longer sentence about something else"])[0]
    assert max(abs(a - b) for a, b in zip(alone, batched, strict=True)) < 1e-5
    same = OnnxEmbedder("all-MiniLM-L6-v2", cache_dir=shared.cache_dir, threads=1, question_threads=1)
    same.load()
    assert same._question_session is same._session
