"""Session fixtures: one real Neo4j, one real embedding model, one app; each test makes its own data."""

from __future__ import annotations

import secrets
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, Literal

import pytest
from fastapi.testclient import TestClient
from pydantic import SecretStr

from devtools.sandbox_service import LocalSandbox
from provider.api.app import create_app
from provider.client import MemoryClient
from provider.config import Settings
from provider.embeddings import OnnxEmbedder
from tests import s3proxy, sandboxes
from tests.neo4j_target import Neo4jTarget, provision

SERVERS_USED: list[str] = []


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    """Names the Neo4j server the run used (version, edition, where it came from) in the summary."""
    for line in SERVERS_USED:
        terminalreporter.write_line(line)


@pytest.fixture(scope="session")
def neo4j_target() -> Iterator[Neo4jTarget]:
    target = provision()
    SERVERS_USED.append(target.describe())
    yield target
    target.close()


@pytest.fixture(scope="session")
def embedder() -> OnnxEmbedder:
    """The runtime the service uses by default: the packaged model exported to ONNX (cached)."""
    model = OnnxEmbedder("all-MiniLM-L6-v2", cache_dir=Settings(environment="test").cache_dir / "onnx")
    model.load()
    return model


@pytest.fixture(scope="session")
def sandbox(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LocalSandbox]:
    """The session's query sandbox service, which the session's apps share (as replicas share one)."""
    with sandboxes.start(work=tmp_path_factory.mktemp("sandbox")) as service:
        yield service


@pytest.fixture(scope="session")
def settings(
    neo4j_target: Neo4jTarget, sandbox: LocalSandbox, tmp_path_factory: pytest.TempPathFactory
) -> Settings:
    return Settings(
        environment="test",
        admin_key=SecretStr("adm_" + secrets.token_urlsafe(24)),
        neo4j_uri=neo4j_target.uri,
        neo4j_user=neo4j_target.user,
        neo4j_password=SecretStr(neo4j_target.password),
        file_dir=tmp_path_factory.mktemp("files"),
        # No app of the session sweeps in the background: a test that leaves something for the sweeper
        # calls `services.sweeper.sweep()` itself, and no other sweep can take it first.
        sweep_seconds=0,
        query_sandbox_url=sandbox.url,
        query_sandbox_token=SecretStr(sandbox.token),
        # One member drives most of the suite as fast as one client can: the session's apps keep the
        # fair queue but lift the per-principal budgets, which tests/api/test_fair_share.py tests
        # on an app of its own.
        rate_reads="0/second",
        rate_writes="0/second",
        rate_queries="0/second",
        in_flight_per_principal=0,
    )


@pytest.fixture(scope="session")
def client(settings: Settings, embedder: OnnxEmbedder) -> Iterator[TestClient]:
    with TestClient(create_app(settings, embedder=embedder)) as test_client:
        yield test_client


@pytest.fixture(scope="session")
def s3_target() -> Iterator[s3proxy.S3Target]:
    """A real S3-compatible store (S3Proxy, its jars fetched once into the cache), for the session."""
    with s3proxy.running() as target:
        yield target


@pytest.fixture(scope="session")
def s3_settings(settings: Settings, s3_target: s3proxy.S3Target) -> Settings:
    """The suite's settings with file bytes in the S3 store, under a prefix as an operator would set."""
    return settings.changed(
        file_store="s3",
        s3_endpoint=s3_target.endpoint,
        s3_region=s3_target.region,
        s3_bucket=s3_target.bucket,
        s3_prefix="api/",
        s3_access_key_id=s3_target.access_key_id,
        s3_secret_access_key=SecretStr(s3_target.secret_access_key),
    )


@pytest.fixture(scope="session")
def s3_client(s3_settings: Settings, embedder: OnnxEmbedder) -> Iterator[TestClient]:
    """A second app on the same Neo4j whose file bytes live in the S3 store."""
    with TestClient(create_app(s3_settings, embedder=embedder)) as test_client:
        yield test_client


@dataclass
class Member:
    """A member made for one test, with its key."""

    id: str
    key: str
    type: str

    @property
    def principal(self) -> str:
        return f"member:{self.id}"

    @property
    def headers(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.key}"}


@dataclass
class Admin:
    """Calls the admin surface."""

    client: TestClient
    key: str

    @property
    def headers(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.key}"}

    def operator(self) -> MemoryClient:
        """The typed client with the admin key, over the session's app."""
        return MemoryClient(http=self.client, key=self.key)

    def member(self, member_type: Literal["human", "agent"] = "human", *, server: bool = False) -> Member:
        operator = self.operator()
        made = operator.create_member(member_type, "t")
        return Member(id=made.id, key=operator.issue_key(made.id, server=server).key, type=member_type)

    def group(self, *members: str) -> str:
        operator = self.operator()
        made = operator.create_group("g")
        for member in members:
            operator.add_to_group(made.id, member)
        return made.id


@pytest.fixture(scope="session")
def admin(client: TestClient, settings: Settings) -> Admin:
    return Admin(client=client, key=settings.admin_key.get_secret_value())


@pytest.fixture
def alice(admin: Admin) -> Member:
    return admin.member()


@pytest.fixture
def bob(admin: Admin) -> Member:
    return admin.member()


def make_memory(client: TestClient, who: Member, name: str = "m", **fields: Any) -> dict[str, Any]:
    """Creates a memory through the typed client and returns its body; a refusal fails the test."""
    return MemoryClient(http=client, key=who.key).create_memory(name, **fields).wire()
