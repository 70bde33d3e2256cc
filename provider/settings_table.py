"""The settings table of docs/CONFIGURATION.md, written from `Settings` and its field docstrings."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from pydantic import AliasChoices, SecretStr
from pydantic.fields import FieldInfo
from pydantic_settings import BaseSettings

from provider.config import Settings, setting_fields

BEGIN = "<!-- settings table: from provider/config.py by `python -m provider settings-table --write` -->"
END = "<!-- end of the settings table -->"
DOCUMENT = Path(__file__).resolve().parent.parent / "docs" / "CONFIGURATION.md"
HEADER = "| variable | default | meaning |\n|---|---|---|"
# The settings by the capability they tune, in the order an operator meets them. Every field of
# `Settings` is in exactly one group (tests/unit/test_settings_table.py checks it), so a new setting
# must be given its place here.
CAPABILITIES: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("The deployment", ("environment", "admin_key", "host", "port", "provider_id", "cache_dir")),
    (
        "Neo4j",
        (
            "neo4j_uri", "neo4j_user", "neo4j_password", "neo4j_database", "statement_timeout_ms",
            "bulk_statement_timeout_ms", "bookmark_wait_ms", "neo4j_connection_timeout_ms",
            "neo4j_acquisition_timeout_ms", "neo4j_liveness_check_ms", "neo4j_unreachable_retry_ms",
            "neo4j_transient_retry_ms",
        ),
    ),
    (
        "Models and vectors",
        (
            "embedding_model", "embedding_dimension", "embedding_batch_size", "embedding_runtime",
            "embedding_threads", "embedding_question_threads", "embed_batch_max", "embed_batch_wait_ms",
            "vector_state_seconds", "model_move_settle_seconds", "model_move_index_wait_seconds",
            "reembed_batch_records", "model_repository",
        ),
    ),
    (
        "Files",
        (
            "file_store", "file_dir", "s3_bucket", "s3_prefix", "s3_endpoint", "s3_region",
            "s3_access_key_id", "s3_secret_access_key", "s3_part_bytes", "content_media", "file_quota_bytes",
            "file_quota_files", "file_orphan_grace_seconds",
        ),
    ),
    (
        "Quotas and the tree",
        (
            "quota_records", "quota_content_bytes", "quota_memories", "quota_root_records",
            "quota_root_content_bytes", "erase_batch_records", "subtree_cap",
        ),
    ),
    (
        "Recall",
        (
            "abstain_below", "recall_words_weight", "recall_query_words", "recall_query_scan_chars",
            "recall_candidates", "recall_date_boost", "recall_newer_wins", "recall_same_subject_cosine",
            "recall_words_candidates", "recall_rerank", "recall_rerank_candidates", "recall_rerank_budget_ms",
            "recall_rerank_max_tokens", "recall_rerank_skip_lead", "reranker_url", "recall_rerank_threads",
            "recall_rerank_first", "recall_rerank_sure", "recall_rerank_cache_pairs",
            "recall_rerank_shared_min",
            "recall_vector_cache_mb", "recall_vector_cache_load_after", "recall_history_window",
        ),
    ),
    (
        "Queries",
        (
            "query_sandbox", "query_sandbox_url", "query_sandbox_token", "query_sandbox_prestart",
            "query_timeout_ms", "query_row_cap", "query_answer_bytes", "query_max_records",
        ),
    ),
    (
        "Lifecycle: observe, consolidation, leases and the sweeper",
        (
            "duplicate_similarity", "consolidation_budget", "lease_ms", "sweep_seconds", "observe_sync_max",
            "observe_jobs_concurrent", "idempotency_wait_seconds",
        ),
    ),
    (
        "Export and restore",
        ("export_page_records", "restore_batch_records", "archive_key", "max_restore_bytes"),
    ),
    (
        "What one request may carry",
        (
            "max_body_bytes", "max_upload_bytes", "max_json_depth", "max_text_chars", "max_parts",
            "max_attribute_depth", "max_attribute_keys", "max_attribute_bytes", "max_attribute_key_chars",
            "max_references", "max_list_items", "max_filter_terms", "max_schema_bytes",
            "mcp_max_result_chars",
        ),
    ),
    (
        "Fair share",
        (
            "rate_reads", "rate_writes", "rate_queries", "in_flight_per_principal", "read_slots",
            "write_slots", "query_slots", "slots_kept_for_others", "queue_max_waiting",
            "queue_max_wait_seconds", "refusal_delay_ms", "bulk_niceness",
        ),
    ),
    (
        "What operators and people see",
        ("metrics", "metrics_principals", "log_format", "log_level", "explorer", "explorer_assets_dir"),
    ),
)  # fmt: skip
BYTES = (("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10))
HOURS = (("h", 3600),)


def env_names(name: str, field: FieldInfo, prefix: str) -> list[str]:
    """The environment variables a field is read from, the first being the one to use."""
    alias = field.validation_alias
    if isinstance(alias, AliasChoices):
        return [choice for choice in alias.choices if isinstance(choice, str)]
    if isinstance(alias, str):
        return [alias]
    return [prefix + name.upper()]


def _in_units(name: str, value: int) -> str:
    """Bytes also in binary units, and seconds in hours, where one divides the value evenly."""
    units = BYTES if name.endswith("_bytes") else HOURS if name.endswith("_seconds") else ()
    for unit, size in units:
        if value >= size and value % size == 0:
            return f" ({value // size} {unit})"
    return ""


def shown_default(name: str, field: FieldInfo) -> str:
    """The default as an operator would write it; a secret's is never shown."""
    if field.annotation is SecretStr:
        return "(secret)"
    value = field.get_default(call_default_factory=True)
    if value is None:
        return "(none)"
    if value == "":
        return "(empty)"
    if isinstance(value, Path):
        home = Path.home()
        text = f"~/{value.relative_to(home)}" if value.is_relative_to(home) else str(value)
        return f"`{text}`"
    if isinstance(value, bool | list):
        return f"`{json.dumps(value, separators=(',', ':'))}`"
    if isinstance(value, int):
        return f"`{value}`{_in_units(name, value)}"
    return f"`{value}`"


def row(name: str, field: FieldInfo, prefix: str) -> str:
    """One line of the table: the variable (and its other names), the default, the description."""
    first, *others = env_names(name, field, prefix)
    variable = f"`{first}`" + (f" (or {', '.join(f'`{n}`' for n in others)})" if others else "")
    meaning = " ".join((field.description or "").split()).replace("|", "\\|")
    return f"| {variable} | {shown_default(name, field)} | {meaning} |"


def table(settings: type[BaseSettings] = Settings) -> str:
    """The whole table, one row per field in the order the class declares them."""
    prefix = str(settings.model_config.get("env_prefix", ""))
    rows = [row(name, field, prefix) for name, field in settings.model_fields.items()]
    return "\n".join([HEADER, *rows])


def grouped() -> str:
    """One table per capability (`CAPABILITIES`), each under its heading, rows in the group's order."""
    fields = setting_fields()
    sections = []
    for title, names in CAPABILITIES:
        rows = [row(*fields[name]) for name in names]
        sections.append("\n".join([f"### {title}", "", HEADER, *rows]))
    return "\n\n".join(sections)


def spliced(document: str, generated: str) -> str:
    """The document with the text between the two markers replaced by `generated`."""
    head, begin, rest = document.partition(BEGIN)
    _, end, tail = rest.partition(END)
    if not begin or not end:
        raise ValueError(f"the document lacks the markers {BEGIN!r} and {END!r}")
    return f"{head}{BEGIN}\n{generated}\n{END}{tail}"


def main(argv: list[str]) -> int:
    """`python -m provider settings-table [--write]`: print the table, or put it into the document."""
    parser = argparse.ArgumentParser(prog="python -m provider settings-table")
    parser.add_argument("--write", action="store_true", help=f"replace the table in {DOCUMENT.name}")
    args = parser.parse_args(argv)
    generated = grouped()
    if not args.write:
        print(generated)
        return 0
    try:
        DOCUMENT.write_text(spliced(DOCUMENT.read_text(), generated))
    except (OSError, ValueError) as e:
        print(f"settings-table: {e}", file=sys.stderr)
        return 1
    print(f"settings-table: {DOCUMENT} rewritten", file=sys.stderr)
    return 0
