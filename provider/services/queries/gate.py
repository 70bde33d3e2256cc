"""The statement gate in front of the query sandbox: a lexical pass, then Neo4j's own plan of it.

The gate is defence in depth; the sandbox is the boundary. Two passes, each refusing on its own:

1. Lexical, before any sandbox is touched: the statement is split into tokens the way Cypher splits
   it (strings, backquoted names, comments and parameters are tokens of their own, so a keyword
   inside a string is not a keyword), and constructs no query needs are refused wherever they
   appear: writes, LOAD CSV, USE, SHOW/TERMINATE, administration, IN TRANSACTIONS, query options,
   procedures outside the allowlist, functions outside the built-in namespaces, and id()/elementId()
   (a sandbox's internal ids describe its storage, not the caller's data).
2. A real parse: the sandbox runs EXPLAIN, so Neo4j's own parser, semantic checks and planner read
   the exact text that would run, on the same server and version. The statement must plan as
   read-only (query type 'r'), and no operator may load files, show or terminate anything, open
   inner transactions, seek by internal id, or call a procedure outside the allowlist. A construct
   the lexical pass misses (its grammar is not Neo4j's) still shows up here as an operator.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from provider.sandbox.client import Plan

ALLOWED_PROCEDURES = frozenset({"db.index.fulltext.queryNodes"})
# Namespaced built-in functions callers may use; db.*, dbms.*, graph.* and the rest are refused.
FUNCTION_NAMESPACES = frozenset(
    {"point", "date", "datetime", "localdatetime", "time", "localtime", "duration", "vector"}
)
ID_FUNCTIONS = frozenset({"id", "elementid"})
WRITES = frozenset({"CREATE", "MERGE", "DELETE", "DETACH", "SET", "REMOVE", "FOREACH", "INSERT"})
FORBIDDEN = {
    "LOAD": "LOAD CSV",
    "USE": "USE",
    "SHOW": "SHOW commands",
    "TERMINATE": "TERMINATE commands",
    "DROP": "administration commands",
    "ALTER": "administration commands",
    "GRANT": "administration commands",
    "DENY": "administration commands",
    "REVOKE": "administration commands",
    "RENAME": "administration commands",
    "ENABLE": "administration commands",
    "DEALLOCATE": "administration commands",
    "REALLOCATE": "administration commands",
    "EXPLAIN": "EXPLAIN and PROFILE",
    "PROFILE": "EXPLAIN and PROFILE",
    "PERIODIC": "periodic commit",
}
FORBIDDEN_OPERATORS = {
    "LoadCSV": "LOAD CSV",
    "TransactionApply": "CALL … IN TRANSACTIONS",
    "TransactionForeach": "CALL … IN TRANSACTIONS",
    "AdministrationCommand": "administration commands",
    "SystemProcedureCall": "administration commands",
}
MAX_LENGTH = 20_000

_TOKEN = re.compile(
    r"""(?P<space>\s+)
    |(?P<comment>//[^\n]*|/\*.*?\*/)
    |(?P<string>'(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*")
    |(?P<quoted>`(?:[^`]|``)*`)
    |(?P<param>\$(?:\w+|`(?:[^`]|``)*`))
    |(?P<number>\d[\w.]*)
    |(?P<word>[^\W\d]\w*)
    |(?P<punct>.)""",
    re.VERBOSE | re.DOTALL,
)


class StatementRefused(Exception):
    """The gate's verdict: which construct, and whether it is a write (named queries answer that apart)."""

    def __init__(self, construct: str, *, writes: bool = False):
        super().__init__(construct)
        self.construct = construct
        self.writes = writes


@dataclass(frozen=True)
class Token:
    """One lexical token: kind (word, quoted, string, param, number, punct) and text."""

    kind: str
    text: str

    @property
    def name(self) -> str | None:
        """The identifier a word or backquoted token stands for."""
        if self.kind == "word":
            return self.text
        if self.kind == "quoted":
            return self.text[1:-1].replace("``", "`")
        return None


def tokens(text: str) -> list[Token]:
    """The statement's tokens without spaces and comments; an unterminated quote is refused."""
    found: list[Token] = []
    for match in _TOKEN.finditer(text):
        kind = match.lastgroup or "punct"
        if kind in ("space", "comment"):
            continue
        if kind == "punct" and match.group() in ("'", '"', "`"):
            raise StatementRefused("an unterminated quote")
        found.append(Token(kind, match.group()))
    return found


def check_statement(text: str) -> None:
    """The lexical pass: raises StatementRefused naming the first construct not allowed."""
    if not text.strip():
        raise StatementRefused("an empty statement")
    if len(text) > MAX_LENGTH:
        raise StatementRefused(f"a statement longer than {MAX_LENGTH} characters")
    found = tokens(text)
    if found and (found[0].name or "").upper() == "CYPHER":
        raise StatementRefused("query options (CYPHER …)")
    for i, token in enumerate(found):
        if token.kind == "punct" and token.text == ";":
            raise StatementRefused("more than one statement")
        if token.kind == "word" and _is_keyword(found, i):
            _check_keyword(found, i)
        if token.name is not None and _prev(found, i) not in (".", "CALL"):
            _check_function(found, i)


def _prev(found: list[Token], i: int) -> str:
    return found[i - 1].text.upper() if i > 0 else ""


def _next(found: list[Token], i: int) -> str:
    return found[i + 1].text.upper() if i + 1 < len(found) else ""


def _is_keyword(found: list[Token], i: int) -> bool:
    """A word in keyword position: not a property or namespace part, label, type or map key.

    A word after `|` is still checked (`:A|Create` is refused): `|` also opens a FOREACH body or a
    comprehension's projection, and refusing an odd type name costs less than missing a clause.
    """
    before = _prev(found, i)
    if before in (".", ":", "$"):
        return False
    return not (before in ("{", ",") and _next(found, i) == ":")


def _check_keyword(found: list[Token], i: int) -> None:
    word = found[i].text.upper()
    if word in WRITES:
        raise StatementRefused(f"{word} (a write)", writes=True)
    if word in FORBIDDEN:
        raise StatementRefused(FORBIDDEN[word])
    if word == "TRANSACTIONS" and _prev(found, i) in ("IN", "CONCURRENT"):
        raise StatementRefused("CALL … IN TRANSACTIONS")
    if word in ("START", "STOP") and _next(found, i) in ("DATABASE", "DATABASES", "SERVER"):
        raise StatementRefused("administration commands")
    if word == "CALL":
        _check_call(found, i)


def _dotted(found: list[Token], i: int) -> tuple[str, int]:
    """The dotted name starting at token i, and the index after it."""
    parts = [found[i].name or ""]
    j = i + 1
    while j + 1 < len(found) and found[j].text == "." and found[j + 1].name is not None:
        parts.append(found[j + 1].name or "")
        j += 2
    return ".".join(parts), j


def _check_call(found: list[Token], i: int) -> None:
    """CALL { … } and CALL ( … ) { … } are subqueries; CALL name is a procedure, allowlisted or refused."""
    if i + 1 >= len(found) or found[i + 1].name is None:
        return
    name, _ = _dotted(found, i + 1)
    if name not in ALLOWED_PROCEDURES:
        raise StatementRefused("a procedure outside the allowlist")


def _check_function(found: list[Token], i: int) -> None:
    """A name (dotted or not) followed by `(` is a function call: id functions and odd namespaces refused."""
    name, end = _dotted(found, i)
    if end >= len(found) or found[end].text != "(":
        return
    parts = name.split(".")
    if len(parts) == 1 and parts[0].lower() in ID_FUNCTIONS:
        raise StatementRefused("id() and elementId() (internal storage ids)")
    if len(parts) > 1 and parts[0].lower() not in FUNCTION_NAMESPACES:
        raise StatementRefused("a function outside the built-in namespaces")


def check_plan(plan: Plan) -> None:
    """The parse pass: read-only by Neo4j's own account, and no operator outside what queries need."""
    if plan.query_type != "r":
        raise StatementRefused(f"a statement of type {plan.query_type!r} (not read-only)", writes=True)
    for operator, details in plan.operators:
        if operator in FORBIDDEN_OPERATORS:
            raise StatementRefused(FORBIDDEN_OPERATORS[operator])
        if operator.startswith(("Show", "Terminate")):
            raise StatementRefused("SHOW and TERMINATE commands")
        if "ById" in operator or "ByElementId" in operator:
            raise StatementRefused("lookups by internal id")
        if operator.startswith("ProcedureCall") and details.split("(")[0].strip() not in ALLOWED_PROCEDURES:
            raise StatementRefused("a procedure outside the allowlist")
