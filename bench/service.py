"""The service's settings as a bench runs it: the provisioned Neo4j, a fresh admin key and file folder."""

from __future__ import annotations

import secrets
import tempfile
from pathlib import Path
from typing import Any

from pydantic import SecretStr

from provider.config import Settings
from tests.neo4j_target import Neo4jTarget


def bench_settings(
    target: Neo4jTarget, admin_key: str | None = None, files: Path | None = None, **fields: Any
) -> Settings:
    """Test settings on `target`; a new admin key and a new temporary file folder unless given."""
    return Settings(
        environment="test",
        admin_key=SecretStr(admin_key or "adm_" + secrets.token_urlsafe(24)),
        neo4j_uri=target.uri,
        neo4j_user=target.user,
        neo4j_password=SecretStr(target.password),
        file_dir=files or Path(tempfile.mkdtemp(prefix="uhp-bench-files-")),
    ).changed(**fields)
