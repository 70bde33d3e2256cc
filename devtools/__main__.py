"""`python -m devtools neo4j …` (a local Neo4j), `sandbox`, `otelcol` (a collector), `core-metrics`."""

from __future__ import annotations

import sys


def main(argv: list[str] | None = None) -> int:
    """Dispatches to the tool named first."""
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["neo4j"]:
        from devtools import neo4j_server

        return neo4j_server.main(argv[1:])
    if argv[:1] == ["sandbox"]:
        from devtools import sandbox_service

        return sandbox_service.main(argv[1:])
    if argv[:1] == ["otelcol"]:
        from devtools import otelcol

        return otelcol.main(argv[1:])
    if argv[:1] == ["core-metrics"]:
        from devtools import core_metrics

        return core_metrics.main(argv[1:])
    usage = (
        "usage: python -m devtools neo4j {start,status,stop,fetch} … | sandbox [--stdin] | otelcol"
        " | core-metrics [--json]"
    )
    print(usage, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())
