"""What of a query sandbox's failure reaches a caller: a fixed cause and message, never the database's text.

A Neo4j error message can quote data (a value that failed to convert, a property that was missing),
so a sandbox error is never passed on as the database wrote it: its code picks one of a few fixed
messages below, and nothing else of it leaves the store.
"""

from __future__ import annotations

from provider.errors import MemoryInvalidError, ProviderError, UnavailableError

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
    # What an embedded READ transaction answers to a write (a Bolt READ session says AccessMode).
    "Neo.ClientError.Security.Forbidden": ("write", "The statement writes; queries only read."),
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
    """GQL class 22 (data exceptions) first: Neo4j files some of them under SyntaxError.

    A blocked address is filed under class 22 too, but its code says what it is.
    """
    if code == "Neo.ClientError.Statement.ExternalResourceFailed":
        return CAUSES[code]
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
