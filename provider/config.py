"""Settings: read once from the environment at the composition root, then injected."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from pydantic import AliasChoices, Field, NonNegativeInt, PositiveInt, SecretStr, model_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

NEO4J_SCHEMES = frozenset({"bolt", "bolt+s", "bolt+ssc", "neo4j", "neo4j+s", "neo4j+ssc"})
KNOWN_DEFAULT_KEYS = frozenset({"", "admin", "changeme", "secret", "password", "uhp-admin"})


@dataclass(frozen=True)
class Limits:
    """Every bound on what a caller sends; README lists each with its setting."""

    json_depth: int = 32  # nesting of a whole body
    text_chars: int = 200_000  # characters in one text part, a title-less text, a query string
    parts: int = 256  # content parts in one record
    attribute_depth: int = 8  # nesting inside `attributes`
    attribute_keys: int = 512  # keys in `attributes`, counted at every level
    attribute_bytes: int = 65_536  # `attributes` as compact JSON, in UTF-8 bytes
    attribute_key_chars: int = 128  # one key in `attributes` (each new key is a property name in Neo4j)
    references: int = 256  # references in one record
    list_items: int = 1_000  # items of any other list: `types`, `in`, `record_ids`, episodes
    filter_terms: int = 64  # leaves and combinators in one filter tree
    schema_bytes: int = 65_536  # a named query's params schema as compact JSON


class Settings(BaseSettings):
    """Everything the service can be told; environment names are listed in the README."""

    model_config = SettingsConfigDict(env_prefix="UHP_", extra="ignore")

    environment: Literal["development", "test", "production"] = "production"
    admin_key: SecretStr = SecretStr("")
    host: str = "127.0.0.1"
    port: int = 8080

    neo4j_uri: str = Field("", validation_alias=AliasChoices("NEO4J_URI", "UHP_NEO4J_URI"))
    neo4j_user: str = Field("neo4j", validation_alias=AliasChoices("NEO4J_USER", "UHP_NEO4J_USER"))
    neo4j_password: SecretStr = Field(
        SecretStr(""), validation_alias=AliasChoices("NEO4J_PASSWORD", "UHP_NEO4J_PASSWORD")
    )
    neo4j_database: str = "neo4j"

    embedding_model: str = "all-MiniLM-L6-v2"
    embedding_dimension: int = 384
    embedding_batch_size: int = 64
    embedding_runtime: Literal["onnx", "torch"] = "onnx"
    embedding_threads: NonNegativeInt = 0  # onnxruntime's threads for batches; 0: one per core
    embedding_question_threads: NonNegativeInt = 1  # for a single text (a question, one remember)
    cache_dir: Path = Path.home() / ".cache" / "uhp-memory"

    # Where file bytes live (README "Several instances"): a directory for one instance, an S3-compatible
    # bucket that several share. Empty S3 credentials leave boto3 its own chain (environment, role).
    file_store: Literal["directory", "s3"] = "directory"
    file_dir: Path = Path(".local/files")
    metrics: bool = True  # GET /metrics, Prometheus text (README "Operators: metrics, logs, readiness")
    log_format: Literal["json", "text"] = "json"
    log_level: str = "INFO"
    explorer: bool = True  # the page for people at /explorer/ (README "The explorer")
    explorer_assets_dir: Path | None = None  # its vendored graph script; None: <cache_dir>/explorer
    s3_bucket: str = ""
    s3_prefix: str = ""
    s3_endpoint: str = ""  # empty: AWS S3 itself
    s3_region: str = "us-east-1"
    s3_access_key_id: str = ""
    s3_secret_access_key: SecretStr = SecretStr("")
    s3_part_bytes: int = Field(8 * 1024 * 1024, ge=5 * 1024 * 1024)  # S3's smallest part but the last
    content_media: list[str] = ["text/*", "image/*", "application/pdf", "audio/*"]
    # What one principal's uploads may hold at once (README "Files"): past either, 429 quota_exhausted.
    # An upload no record names after the grace is reclaimed by the sweeper, giving its share back.
    file_quota_bytes: PositiveInt = 1024 * 1024 * 1024
    file_quota_files: PositiveInt = 10_000
    file_orphan_grace_seconds: NonNegativeInt = 24 * 3600
    subtree_cap: int = 5000
    abstain_below: float = 0.5
    # None: meaning and words fused by rank (RRF, main's before issue 17); a number: by score, words
    # weighing this much. 0.7 and query words measured best on LoCoMo's development split (bench.quality).
    recall_words_weight: float | None = 0.7
    recall_query_words: bool = True  # a `query` also searches its own content words
    recall_candidates: int = 20  # each signal's candidates before fusion (at least twice the limit)
    # Embeddings of small scopes held in memory and scored outside Cypher (0: off, every exact
    # question scans in Cypher); keyed by each memory's records_version, so never stale.
    recall_vector_cache_mb: NonNegativeInt = 256
    # The newest versions an as_of or include=all recall ranks (in Neo4j; only the top rows come back).
    recall_history_window: PositiveInt = 2_000
    duplicate_similarity: float = 0.95
    consolidation_budget: int = 1000
    provider_id: str = "neo4j"

    # The query sandbox (docs/QUERIES.md): without it, named and free queries are not run or declared.
    # The sandbox is its own service (sandbox/, started by compose or scripts/serve), called at
    # query_sandbox_url with its own token; with no URL, queries are off. Its memory and work folder
    # are its own settings (UHP_SANDBOX_*), read by the sandbox service, not here.
    query_sandbox: bool = True
    query_sandbox_url: str | None = None
    query_sandbox_token: SecretStr = SecretStr("")
    query_sandbox_prestart: bool | None = None  # warm it at boot; None: in production only
    query_timeout_ms: int = 2000
    query_row_cap: int = 1000
    # The JSON bytes of one answer, counted in the sandbox as its rows are converted: the row that
    # would pass it is dropped and `degraded` says so (the sandbox's own ceiling is 16 MiB).
    query_answer_bytes: int = Field(default=4 * 1024 * 1024, ge=1024, le=16 * 1024 * 1024)
    query_max_records: int = 200_000

    # The edge and the database's bounds (README "What the edge refuses before routing"): a body past
    # its cap is refused with 413 before the app reads it; every main-database transaction has a
    # timeout, the bulk statements (batched deletes, imports, a scope's copy) a longer one.
    max_body_bytes: PositiveInt = 8 * 1024 * 1024
    max_upload_bytes: PositiveInt = 64 * 1024 * 1024  # the whole multipart body of POST /v1/files
    statement_timeout_ms: PositiveInt = 10_000
    bulk_statement_timeout_ms: PositiveInt = 120_000
    # How long a request's UHP-Bookmark may make it wait for the database to reach that point before
    # it is refused (422): a bookmark from the future would otherwise hold each of its sessions.
    bookmark_wait_ms: PositiveInt = 1_000

    # The MCP tools (README "Agents: the MCP server"): the most characters one tool result carries.
    mcp_max_result_chars: int = Field(60_000, ge=2_000)

    # How long the service waits on Neo4j (README "When Neo4j is away"): one connection attempt; a
    # connection from the pool (opening one included); the idle time after which a pooled connection is
    # probed before use (0: always); and the retry budgets of a failed transaction, one for Neo4j out of
    # reach (short: a quick 503 beats a hang), one for a passing conflict such as a deadlock (longer).
    neo4j_connection_timeout_ms: PositiveInt = 3_000
    neo4j_acquisition_timeout_ms: PositiveInt = 5_000
    neo4j_liveness_check_ms: int = Field(10_000, ge=0)
    neo4j_unreachable_retry_ms: int = Field(2_000, ge=0)
    neo4j_transient_retry_ms: int = Field(10_000, ge=0)

    # What one request may carry (README "Bounds on what a caller sends"); protocol/wire.py applies them.
    max_json_depth: PositiveInt = 32
    max_text_chars: PositiveInt = 200_000
    max_parts: PositiveInt = 256
    max_attribute_depth: PositiveInt = 8
    max_attribute_keys: PositiveInt = 512
    max_attribute_bytes: PositiveInt = 65_536
    max_attribute_key_chars: PositiveInt = 128
    max_references: PositiveInt = 256
    max_list_items: PositiveInt = 1_000
    max_filter_terms: PositiveInt = 64
    max_schema_bytes: PositiveInt = 65_536

    def limits(self) -> Limits:
        """The request bounds as the wire models read them."""
        return Limits(
            json_depth=self.max_json_depth,
            text_chars=self.max_text_chars,
            parts=self.max_parts,
            attribute_depth=self.max_attribute_depth,
            attribute_keys=self.max_attribute_keys,
            attribute_bytes=self.max_attribute_bytes,
            attribute_key_chars=self.max_attribute_key_chars,
            references=self.max_references,
            list_items=self.max_list_items,
            filter_terms=self.max_filter_terms,
            schema_bytes=self.max_schema_bytes,
        )

    # Leases on multi-step writes (README "What survives what"): a key or a run whose owner stops
    # renewing for this long is taken over; the sweeper clears what dead processes left.
    lease_ms: PositiveInt = 30_000
    # 0: no sweeping in the background at all (not even at start-up); something else calls the sweep,
    # e.g. a test that must not race a sweeper it does not control, or one instance of several.
    sweep_seconds: NonNegativeInt = 300
    observe_sync_max: PositiveInt = 100  # more episodes than this in one observe: 202 with a job

    @model_validator(mode="after")
    def _refuse_default_admin_key(self) -> Settings:
        # A known or empty admin key is fine on a developer's machine, never in production.
        if self.environment == "production" and self.admin_key.get_secret_value() in KNOWN_DEFAULT_KEYS:
            raise ValueError("UHP_ADMIN_KEY is empty or a known default; set a long random key")
        return self

    @model_validator(mode="after")
    def _known_uri_scheme(self) -> Settings:
        # bolt:// reaches one server; neo4j:// (and +s, +ssc for TLS) routes: writes to the leader, reads
        # to followers, as a cluster or Aura needs (README "Several instances").
        scheme = self.neo4j_uri.split("://", 1)[0] if "://" in self.neo4j_uri else ""
        if self.neo4j_uri and scheme not in NEO4J_SCHEMES:
            raise ValueError(f"NEO4J_URI must start with one of {', '.join(sorted(NEO4J_SCHEMES))}://")
        return self

    @model_validator(mode="after")
    def _bucket_for_s3(self) -> Settings:
        if self.file_store == "s3" and not self.s3_bucket:
            raise ValueError("UHP_FILE_STORE=s3 needs UHP_S3_BUCKET")
        if self.s3_prefix.startswith("/"):
            raise ValueError("UHP_S3_PREFIX is a key prefix such as `uhp/`, without a leading slash")
        return self
