"""Settings: production refuses default admin keys; the Neo4j variables keep their plain names."""

from __future__ import annotations

import pytest
from pydantic import SecretStr, ValidationError

from provider.config import KNOWN_DEFAULT_KEYS, Settings

LONG_KEY = "k" * 12 + "-Zq8vT3rLw0pX5mN2bY7cJ4hF"


@pytest.fixture(autouse=True)
def clean_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    """Settings read the environment; a developer's shell must not decide these tests."""
    for name in (
        "UHP_ENVIRONMENT",
        "UHP_ADMIN_KEY",
        "NEO4J_URI",
        "UHP_NEO4J_URI",
        "NEO4J_USER",
        "UHP_NEO4J_USER",
        "NEO4J_PASSWORD",
        "UHP_NEO4J_PASSWORD",
        "UHP_FILE_STORE",
        "UHP_S3_BUCKET",
        "UHP_S3_PREFIX",
        "UHP_S3_PART_BYTES",
        "UHP_ARCHIVE_KEY",
    ):
        monkeypatch.delenv(name, raising=False)


@pytest.mark.parametrize("key", sorted(KNOWN_DEFAULT_KEYS | {"changeme"}))
def test_production_refuses_an_empty_or_default_admin_key(key: str) -> None:
    with pytest.raises((ValueError, ValidationError), match="UHP_ADMIN_KEY"):
        Settings(environment="production", admin_key=SecretStr(key))


def test_production_is_the_default_and_refuses_no_key() -> None:
    with pytest.raises((ValueError, ValidationError)):
        Settings()


def test_production_refuses_a_default_key_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("UHP_ENVIRONMENT", "production")
    monkeypatch.setenv("UHP_ADMIN_KEY", "changeme")
    with pytest.raises((ValueError, ValidationError)):
        Settings()


def test_production_accepts_a_long_key() -> None:
    settings = Settings(environment="production", admin_key=SecretStr(LONG_KEY))
    assert settings.admin_key.get_secret_value() == LONG_KEY
    assert LONG_KEY not in repr(settings)


@pytest.mark.parametrize("environment", ["development", "test"])
def test_development_and_test_accept_an_empty_key(environment: str) -> None:
    assert Settings(environment=environment, admin_key=SecretStr("")).admin_key.get_secret_value() == ""


def test_neo4j_variables_read_their_plain_names(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NEO4J_URI", "bolt://db.example:7687")
    monkeypatch.setenv("NEO4J_USER", "reader")
    monkeypatch.setenv("NEO4J_PASSWORD", "pw-from-env")
    settings = Settings(environment="test")
    assert settings.neo4j.uri == "bolt://db.example:7687"
    assert settings.neo4j.user == "reader"
    assert settings.neo4j.password.get_secret_value() == "pw-from-env"


def test_neo4j_variables_also_read_the_prefixed_names(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("UHP_NEO4J_URI", "bolt://prefixed:7687")
    assert Settings(environment="test").neo4j.uri == "bolt://prefixed:7687"


def test_keyword_arguments_set_the_neo4j_fields() -> None:
    # The composition root and the test fixtures build Settings by field name, not by variable name.
    settings = Settings(
        environment="test", neo4j_uri="bolt://given:1", neo4j_user="u", neo4j_password=SecretStr("p")
    )
    assert (settings.neo4j.uri, settings.neo4j.user, settings.neo4j.password.get_secret_value()) == (
        "bolt://given:1",
        "u",
        "p",
    )


@pytest.mark.parametrize(
    "uri", ["bolt://db:7687", "neo4j://db:7687", "neo4j+s://abcd1234.databases.neo4j.io", "neo4j+ssc://db"]
)
def test_direct_and_routing_uris_are_taken(uri: str) -> None:
    assert Settings(environment="test", neo4j_uri=uri).neo4j.uri == uri


def test_an_unknown_uri_scheme_is_refused() -> None:
    with pytest.raises(ValidationError, match="NEO4J_URI"):
        Settings(environment="test", neo4j_uri="http://db:7474")


def test_the_file_store_is_a_directory_unless_told_otherwise(monkeypatch: pytest.MonkeyPatch) -> None:
    assert Settings(environment="test").file.store == "directory"
    monkeypatch.setenv("UHP_FILE_STORE", "s3")
    monkeypatch.setenv("UHP_S3_BUCKET", "memories")
    monkeypatch.setenv("UHP_S3_SECRET_ACCESS_KEY", "shh")
    settings = Settings(environment="test")
    assert (settings.file.store, settings.s3.bucket, settings.s3.region) == ("s3", "memories", "us-east-1")
    assert "shh" not in repr(settings), "the secret key is a secret"


@pytest.mark.parametrize(
    ("fields", "says"),
    [
        ({"file_store": "s3"}, "UHP_S3_BUCKET"),
        ({"file_store": "s3", "s3_bucket": "b", "s3_prefix": "/uhp/"}, "UHP_S3_PREFIX"),
        ({"s3_part_bytes": 1024}, "part_bytes"),
    ],
)
def test_s3_settings_that_cannot_work_are_refused(fields: dict[str, object], says: str) -> None:
    with pytest.raises(ValidationError, match=says):
        Settings(environment="test", **fields)  # type: ignore[arg-type]


def test_no_archive_key_is_the_default_and_a_short_one_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    assert Settings(environment="test").archive_key.get_secret_value() == ""
    with pytest.raises(ValidationError, match="UHP_ARCHIVE_KEY"):
        Settings(environment="test", archive_key=SecretStr("k" * 31))
    monkeypatch.setenv("UHP_ARCHIVE_KEY", LONG_KEY)
    settings = Settings(environment="test")
    assert settings.archive_key.get_secret_value() == LONG_KEY and LONG_KEY not in repr(settings)


def test_a_group_reads_its_variables_by_their_unchanged_names(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("UHP_RECALL_RERANK", "false")
    monkeypatch.setenv("UHP_RECALL_CANDIDATES", "33")
    monkeypatch.setenv("UHP_RECALL_WORDS_WEIGHT", "null")
    recall = Settings(environment="test").recall
    assert (recall.rerank, recall.candidates, recall.words_weight) == (False, 33, None)
    monkeypatch.setenv("UHP_RECALL_RERANK_CANDIDATES", "1")
    with pytest.raises(ValidationError, match="rerank_candidates"):
        Settings(environment="test")


def test_changed_checks_each_value_and_refuses_a_name_that_is_no_setting() -> None:
    base = Settings(environment="test", read_slots=3)
    before = base.recall.model_dump()
    changed = base.changed(recall_rerank=False, recall_candidates=7, archive_key="k" * 40)
    assert (changed.recall.rerank, changed.recall.candidates, changed.read_slots) == (False, 7, 3)
    assert changed.archive_key.get_secret_value() == "k" * 40, "a secret is checked into a SecretStr"
    assert base.recall.model_dump() == before, "the original is left alone"
    with pytest.raises(KeyError, match="recall_candidate"):
        base.changed(recall_candidate=7)
    with pytest.raises(KeyError, match="recall"):
        base.changed(recall=None)
    with pytest.raises(ValidationError):
        base.changed(recall_rerank_candidates=1)
