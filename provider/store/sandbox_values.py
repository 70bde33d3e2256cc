"""What leaves a query sandbox: plain JSON values, and errors reduced to a fixed cause and message.

A Neo4j error message can quote data (a value that failed to convert, a property that was missing),
so a sandbox error is never passed on as the database wrote it: its code picks one of a few fixed
messages below, and nothing else of it leaves the store.
"""

from __future__ import annotations

import base64
import math
from typing import Any

from neo4j.graph import Node, Path, Relationship
from neo4j.spatial import Point
from neo4j.time import Date, DateTime, Duration, Time

from provider.errors import MemoryInvalidError, ProviderError, UnavailableError

TIMEOUT_CODES = frozenset(
    {
        "Neo.ClientError.Transaction.TransactionTimedOut",
        "Neo.ClientError.Transaction.TransactionTimedOutClientConfiguration",
        "Neo.ClientError.Transaction.Terminated",
        "Neo.TransientError.Transaction.Terminated",
    }
)

# (cause, message) per Neo4j code; the messages name the kind of failure and never a value.
CAUSES: dict[str, tuple[str, str]] = {
    "Neo.ClientError.Statement.SyntaxError": ("syntax", "The statement is not valid Cypher."),
    "Neo.ClientError.Statement.SemanticError": ("semantic", "The statement is not valid Cypher as written."),
    "Neo.ClientError.Statement.ArithmeticError": (
        "arithmetic",
        "The statement failed on arithmetic, such as a division by zero.",
    ),
    "Neo.ClientError.Statement.TypeError": ("type", "The statement used a value of the wrong type."),
    "Neo.ClientError.Statement.ArgumentError": (
        "argument",
        "A function was given an argument it cannot take.",
    ),
    "Neo.ClientError.Statement.ParameterMissing": ("parameter", "The statement names a parameter not given."),
    "Neo.ClientError.Statement.ParameterNotProvided": (
        "parameter",
        "The statement names a parameter not given.",
    ),
    "Neo.ClientError.Statement.EntityNotFound": (
        "entity",
        "The statement used a node that no longer exists.",
    ),
    "Neo.ClientError.Statement.AccessMode": ("write", "The statement writes; queries only read."),
    "Neo.ClientError.Statement.ExternalResourceFailed": (
        "external",
        "Queries may not read external resources.",
    ),
    "Neo.ClientError.Statement.UnsupportedAdministrationCommand": ("admin", "Queries may not administer."),
    "Neo.ClientError.Statement.NotSystemDatabaseError": ("admin", "Queries may not administer."),
    "Neo.ClientError.Procedure.ProcedureNotFound": (
        "procedure",
        "The statement calls a procedure or function that is not available.",
    ),
    "Neo.ClientError.Procedure.ProcedureCallFailed": ("procedure", "A procedure call failed."),
    "Neo.ClientError.Schema.IndexNotFound": ("index", "The statement names an index that does not exist."),
    "Neo.ClientError.Transaction.ForbiddenDueToTransactionType": (
        "transaction",
        "The statement cannot run in a read transaction.",
    ),
    "Neo.DatabaseError.Transaction.TransactionStartFailed": (
        "transaction",
        "The statement cannot run in a read transaction.",
    ),
}
MEMORY = ("memory", "The statement needs more memory than a query may use.")
STATEMENT = ("statement", "The statement failed.")
DATA = ("data", "The statement failed on a value it could not convert or use.")
STATEMENT_CODES = (
    "Neo.ClientError.Statement.",
    "Neo.ClientError.Procedure.",
    "Neo.ClientError.Schema.",
    "Neo.DatabaseError.Statement.",
)


def sandbox_error(code: str | None, gql_status: str | None = None) -> ProviderError:
    """The error a caller sees for a Neo4j error; the database's own message is dropped."""
    cause, message = _cause(code or "", gql_status or "")
    if cause == "sandbox":
        return UnavailableError(message, detail={"cause": cause})
    return MemoryInvalidError(message, param="statement", detail={"cause": cause})


def _cause(code: str, gql_status: str) -> tuple[str, str]:
    """GQL class 22 (data exceptions) first: Neo4j files some of them under SyntaxError."""
    if gql_status == "22G03" or code == "Neo.ClientError.Statement.TypeError":
        return CAUSES["Neo.ClientError.Statement.TypeError"]
    if gql_status.startswith("22"):
        return DATA
    if code in CAUSES:
        return CAUSES[code]
    if "Memory" in code:
        return MEMORY
    if code.startswith(STATEMENT_CODES):
        return STATEMENT
    return "sandbox", "The query sandbox failed to run the statement."


def is_timeout(code: str | None) -> bool:
    """Whether the code says the transaction was cut by its time limit."""
    return (code or "") in TIMEOUT_CODES


def plain(value: Any) -> Any:
    """A value as JSON carries it: graph values as maps (no internal ids), times as ISO strings."""
    if isinstance(value, Node | Relationship | Path):
        return _graph(value)
    if isinstance(value, list | tuple):
        return [plain(v) for v in value]
    if isinstance(value, dict):
        return {str(k): plain(v) for k, v in value.items()}
    return _scalar(value)


def _graph(value: Node | Relationship | Path) -> dict[str, Any]:
    if isinstance(value, Node):
        return {"labels": sorted(value.labels), "properties": _properties(value)}
    if isinstance(value, Relationship):
        return {"type": value.type, "properties": _properties(value)}
    return {
        "nodes": [_graph(n) for n in value.nodes],
        "relationships": [_graph(r) for r in value.relationships],
    }


def _scalar(value: Any) -> Any:
    if isinstance(value, float) and not math.isfinite(value):
        return "NaN" if math.isnan(value) else ("Infinity" if value > 0 else "-Infinity")
    if isinstance(value, Date | DateTime | Time):
        return value.iso_format()
    if isinstance(value, Duration):
        return str(value)
    if isinstance(value, Point):
        return {"srid": value.srid, "coordinates": [plain(c) for c in value]}
    if isinstance(value, bytes | bytearray):
        return base64.b64encode(bytes(value)).decode()
    return value


def _properties(entity: Node | Relationship) -> dict[str, Any]:
    # Sorted: the order Neo4j stores properties in follows the copy's history, not its content.
    return {key: plain(entity[key]) for key in sorted(entity.keys())}


def record_id(value: Any) -> str | None:
    """The record id when the value is a Record node of the copy, else None."""
    if isinstance(value, Node) and "Record" in value.labels and isinstance(value.get("id"), str):
        return str(value["id"])
    return None
