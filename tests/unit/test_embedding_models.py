"""The models the service knows: the names it accepts, a jar fetched once and checked, and bge-small.

The bge-small tests load the real model, fetched from Maven Central into the usual cache on first use
(`python -m provider fetch-model` does the same), then only read from there.
"""

from __future__ import annotations

import hashlib
import zipfile
from pathlib import Path
from typing import get_args

import numpy as np
import pytest
from neo4j import AsyncGraphDatabase
from pydantic import ValidationError

from provider.composition import build_services
from provider.config import EmbeddingSettings, Settings
from provider.embeddings import OnnxEmbedder, build_embedder, onnx_embedder
from provider.model_files import (
    MODELS,
    MavenJar,
    ModelFetchError,
    ModelTokenizer,
    abstain_threshold,
    jar_files,
)
from provider.store.driver import Neo4jStore

BGE = "bge-small-en-v1.5"


def test_the_setting_accepts_exactly_the_known_models() -> None:
    assert set(get_args(EmbeddingSettings.model_fields["model"].annotation)) == set(MODELS)


def test_an_unknown_model_is_refused_at_start_with_the_names_that_are_known() -> None:
    with pytest.raises(ValidationError) as refused:
        Settings(environment="test", embedding_model="bge-large-en")
    assert "all-MiniLM-L6-v2" in str(refused.value) and BGE in str(refused.value)
    with pytest.raises(ValueError, match=r"unknown embedding model 'bge-large-en'.*bge-small-en-v1\.5"):
        OnnxEmbedder("bge-large-en", cache_dir=Path("/nonexistent"))


def test_the_torch_runtime_refuses_a_model_no_package_ships() -> None:
    with pytest.raises(ValueError, match="torch runs only a packaged model"):
        build_embedder("torch", BGE, cache_dir=Path("/nonexistent"), batch_size=8)


def fake_jar(folder: Path) -> tuple[Path, str]:
    """A jar laid out like LangChain4j's, in a file:// repository; returns the repository and digest."""
    path = folder / "dev/example/tiny-model/1.0/tiny-model-1.0.jar"
    path.parent.mkdir(parents=True)
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("tiny.onnx", b"graph bytes")
        archive.writestr("tiny-tokenizer.json", b"{}")
    return folder, hashlib.sha256(path.read_bytes()).hexdigest()


def tiny(sha256: str) -> MavenJar:
    return MavenJar("dev.example", "tiny-model", "1.0", sha256, "tiny.onnx", "tiny-tokenizer.json", "1 kB")


def test_a_jar_is_fetched_once_and_unpacked_into_a_folder_of_its_version(tmp_path: Path) -> None:
    repository, digest = fake_jar(tmp_path / "repo")
    cache = tmp_path / "models"
    folder = jar_files(tiny(digest), "tiny", cache, repository=repository.as_uri())
    assert folder == cache / "tiny-1.0"
    assert (folder / "model.onnx").read_bytes() == b"graph bytes"
    assert (folder / "tokenizer.json").read_bytes() == b"{}"
    assert not list(cache.glob("*.jar*"))  # the jar itself is not kept
    # A second call reads the folder: the repository may be gone.
    assert jar_files(tiny(digest), "tiny", cache, repository=(tmp_path / "gone").as_uri()) == folder


def test_a_jar_that_does_not_match_its_pinned_digest_is_refused_and_left_nowhere(tmp_path: Path) -> None:
    repository, _ = fake_jar(tmp_path / "repo")
    cache = tmp_path / "models"
    with pytest.raises(ModelFetchError, match="not the pinned"):
        jar_files(tiny("0" * 64), "tiny", cache, repository=repository.as_uri())
    assert not (cache / "tiny-1.0").exists() and not list(cache.glob("*.jar*"))
    with pytest.raises(ModelFetchError, match="could not download"):
        jar_files(tiny("0" * 64), "tiny", cache, repository=(tmp_path / "gone").as_uri())


@pytest.fixture(scope="module")
def bge() -> OnnxEmbedder:
    embedder = onnx_embedder(BGE)
    embedder.load()
    return embedder


def cosine(a: list[float], b: list[float]) -> float:
    return float(np.dot(a, b))


def test_bge_small_gives_unit_vectors_of_384(bge: OnnxEmbedder) -> None:
    vectors = bge.embed_sync(["The cat sat on the mat.", "word " * 2000, ""])  # past 512 tokens: cut
    assert bge.dimension == 384 and bge.max_length == 512
    for vector in vectors:
        assert len(vector) == 384
        assert np.linalg.norm(vector) == pytest.approx(1.0, abs=1e-5)


def test_a_question_is_embedded_after_the_instruction_and_a_record_is_not(bge: OnnxEmbedder) -> None:
    question = "Where did Melanie go camping?"
    plain, asked = bge.embed_sync([question])[0], bge.questions_sync([question])[0]
    assert cosine(plain, asked) < 0.99
    prefixed = bge.embed_sync([bge.spec.question_prefix + question])[0]
    assert cosine(asked, prefixed) == pytest.approx(1.0, abs=1e-5)


def test_bge_small_scores_a_related_pair_above_an_unrelated_one(bge: OnnxEmbedder) -> None:
    [question] = bge.questions_sync(["What pet does Caroline have?"])
    related, unrelated = bge.embed_sync(
        ["Caroline adopted a small grey cat last spring.", "The quarterly tax filing is due in April."]
    )
    assert cosine(question, related) > cosine(question, unrelated) + 0.1


def test_one_text_and_a_batch_agree_under_cls_pooling(bge: OnnxEmbedder) -> None:
    texts = ["a short one", "a somewhat longer sentence, padded less than the others in its batch"]
    batch = bge.embed_sync(texts)
    for text, vector in zip(texts, batch, strict=True):
        assert np.allclose(bge.embed_sync([text])[0], vector, atol=1e-4)


def test_the_token_count_uses_the_fetched_models_tokenizer(bge: OnnxEmbedder) -> None:
    assert ModelTokenizer(BGE, models=bge.models).count("a sample") == 2


@pytest.fixture
def no_abstain_variable(monkeypatch: pytest.MonkeyPatch) -> None:
    """A developer's shell must not decide which threshold these tests see."""
    monkeypatch.delenv("UHP_ABSTAIN_BELOW", raising=False)
    monkeypatch.delenv("UHP_EMBEDDING_MODEL", raising=False)


@pytest.mark.usefixtures("no_abstain_variable")
@pytest.mark.parametrize(("name", "calibrated"), [("all-MiniLM-L6-v2", 0.45), (BGE, 0.65)])
def test_abstain_defaults_to_the_value_calibrated_for_the_chosen_model(name: str, calibrated: float) -> None:
    settings = Settings(environment="test", embedding_model=name)
    assert settings.abstain_below is None
    assert abstain_threshold(settings) == calibrated == MODELS[name].abstain_below


@pytest.mark.usefixtures("no_abstain_variable")
def test_the_models_are_calibrated_apart() -> None:
    assert MODELS[BGE].abstain_below > MODELS["all-MiniLM-L6-v2"].abstain_below


@pytest.mark.usefixtures("no_abstain_variable")
@pytest.mark.parametrize("name", sorted(MODELS))
def test_an_explicit_abstain_setting_wins_over_the_models_value(
    name: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("UHP_EMBEDDING_MODEL", name)
    monkeypatch.setenv("UHP_ABSTAIN_BELOW", "0.42")
    assert abstain_threshold(Settings(environment="test")) == 0.42
    monkeypatch.setenv("UHP_ABSTAIN_BELOW", "0")
    assert abstain_threshold(Settings(environment="test")) == 0.0


WIRED = [(BGE, None, 0.65), (BGE, 0.3, 0.3), ("all-MiniLM-L6-v2", None, 0.45)]


@pytest.mark.anyio
@pytest.mark.usefixtures("no_abstain_variable")
@pytest.mark.parametrize(("name", "explicit", "used"), WIRED)
async def test_the_recall_the_app_builds_abstains_at_the_resolved_threshold(
    name: str, explicit: float | None, used: float, tmp_path: Path
) -> None:
    # Wiring is pure construction: a driver that is never asked anything connects nowhere.
    driver = AsyncGraphDatabase.driver("bolt://127.0.0.1:9", auth=("neo4j", "unused"))
    try:
        settings = Settings(
            environment="test", embedding_model=name, abstain_below=explicit, file_dir=tmp_path
        )
        services = build_services(settings, Neo4jStore(driver, "neo4j"), onnx_embedder(name))
        assert services.recall.abstain_below(name) == used
    finally:
        await driver.close()
