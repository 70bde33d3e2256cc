"""The statement gate's lexical pass and plan check, and the sandbox's error reduction: pure parts."""

from __future__ import annotations

import pytest

from provider.errors import MemoryInvalidError, UnavailableError
from provider.sandbox.client import Plan
from provider.sandbox.failures import sandbox_error
from provider.services.queries.gate import StatementRefused, check_plan, check_statement, tokens

ALLOWED = [
    "MATCH (r:Record) RETURN r",
    "MATCH (r:Record) WHERE r.text CONTAINS 'LOAD CSV; CREATE (x) // USE system' RETURN r.id",
    'MATCH (r:Record) WHERE r.title = "SHOW USERS" RETURN count(r)',
    "MATCH (r:Record) RETURN r.title AS `CREATE`, r.`attr.set` AS s",
    "MATCH (n {set: 1, delete: 2}) RETURN n",
    "MATCH (r)-[:CREATE]->(t:Delete) RETURN t",
    "MATCH (a:Record) ((x)-[:REFERENCES]->(y)){1,3} (b) RETURN count(*) AS n",
    "MATCH p = SHORTEST 1 (a:Record)-[:REFERENCES]-+(b:Unavailable) RETURN length(p)",
    "CALL () { MATCH (n) RETURN count(n) AS c } RETURN c",
    "MATCH (m:Memory) CALL (m) { MATCH (r)-[:IN]->(m) RETURN count(r) AS n } RETURN m.name, n",
    "CALL db.index.fulltext.queryNodes('record_words', 'acme') YIELD node RETURN node.title",
    "CALL `db`.`index`.`fulltext`.`queryNodes`('record_words', 'acme') YIELD node RETURN node",
    "RETURN vector.similarity.cosine([1.0], [1.0]) AS s, date.truncate('day', date()) AS d",
    "MATCH (r:Record) /* CREATE (x) */ RETURN r // DELETE",
    "RETURN 'it\\'s' AS quote, \"a \\\" b\" AS dq",
    "MATCH (start:Record) WHERE start.version > $min RETURN start",
]

REFUSED = [
    ("LOAD CSV FROM 'file:///etc/passwd' AS l RETURN l", "LOAD CSV", False),
    ("load/**/csv from 'http://x' as l return l", "LOAD CSV", False),
    ("USE system SHOW USERS", "USE", False),
    ("SHOW TRANSACTIONS", "SHOW commands", False),
    ("TERMINATE TRANSACTIONS 'neo4j-transaction-1'", "TERMINATE commands", False),
    ("CREATE (n:Record)", "CREATE (a write)", True),
    ("MATCH (n) DETACH DELETE n", "DETACH (a write)", True),
    ("MATCH (n) SET n.x = 1", "SET (a write)", True),
    ("MERGE (n:X)", "MERGE (a write)", True),
    ("FOREACH (x IN [1] | CREATE (:X))", "FOREACH (a write)", True),
    ("DROP INDEX record_words", "administration commands", False),
    ("ALTER CURRENT USER SET PASSWORD FROM 'a' TO 'b'", "administration commands", False),
    ("GRANT ROLE admin TO bob", "administration commands", False),
    ("STOP DATABASE neo4j", "administration commands", False),
    ("CALL { MATCH (n) RETURN n } IN TRANSACTIONS RETURN 1", "CALL … IN TRANSACTIONS", False),
    ("CALL { MATCH (n) RETURN n } IN 2 CONCURRENT TRANSACTIONS RETURN 1", "CALL … IN TRANSACTIONS", False),
    ("USING PERIODIC COMMIT LOAD CSV FROM 'x' AS l RETURN l", "periodic commit", False),
    ("CALL db.labels()", "a procedure outside the allowlist", False),
    ("CALL `db`.labels()", "a procedure outside the allowlist", False),
    (
        "CALL db.index.vector.queryNodes('record_embedding', 5, $v)",
        "a procedure outside the allowlist",
        False,
    ),
    ("CALL dbms.queryJmx('*:*')", "a procedure outside the allowlist", False),
    ("OPTIONAL CALL db.propertyKeys()", "a procedure outside the allowlist", False),
    ("MATCH (n) RETURN id(n)", "id() and elementId() (internal storage ids)", False),
    ("MATCH (n) WHERE ElementId(n) = $x RETURN n", "id() and elementId() (internal storage ids)", False),
    ("RETURN db.nameFromElementId($x)", "a function outside the built-in namespaces", False),
    ("RETURN apoc.text.join(['a'], ',')", "a function outside the built-in namespaces", False),
    ("EXPLAIN MATCH (n) RETURN n", "EXPLAIN and PROFILE", False),
    ("CYPHER runtime=slotted MATCH (n) RETURN n", "query options (CYPHER …)", False),
    ("MATCH (n) RETURN n; MATCH (m) RETURN m", "more than one statement", False),
    ("RETURN 'unterminated", "an unterminated quote", False),
]


@pytest.mark.parametrize("statement", ALLOWED)
def test_reads_pass(statement: str) -> None:
    check_statement(statement)


@pytest.mark.parametrize(("statement", "construct", "writes"), REFUSED)
def test_forbidden_constructs_are_named(statement: str, construct: str, writes: bool) -> None:
    with pytest.raises(StatementRefused) as refused:
        check_statement(statement)
    assert (refused.value.construct, refused.value.writes) == (construct, writes)


def test_tokens_keep_strings_and_names_whole() -> None:
    found = tokens("MATCH (`a b`) WHERE a.x = 'CREATE' // SET\nRETURN $p")
    assert [(t.kind, t.text) for t in found if t.kind in ("quoted", "string", "param")] == [
        ("quoted", "`a b`"),
        ("string", "'CREATE'"),
        ("param", "$p"),
    ]


@pytest.mark.parametrize(
    ("plan", "construct"),
    [
        (Plan("w", [("Create", "(n)")]), "a statement of type 'w' (not read-only)"),
        (Plan("s", [("CreateIndex", "")]), "a statement of type 's' (not read-only)"),
        (Plan("r", [("ProduceResults", ""), ("LoadCSV", "l")]), "LOAD CSV"),
        (Plan("r", [("ShowTransactions", "")]), "SHOW and TERMINATE commands"),
        (Plan("r", [("TransactionApply", "IN TRANSACTIONS")]), "CALL … IN TRANSACTIONS"),
        (Plan("r", [("NodeByIdSeek", "n WHERE id(n) = 1")]), "lookups by internal id"),
        (
            Plan("r", [("ProcedureCall", "db.labels() :: (label :: STRING)")]),
            "a procedure outside the allowlist",
        ),
    ],
)
def test_the_plan_check_refuses_what_the_lexer_might_miss(plan: Plan, construct: str) -> None:
    with pytest.raises(StatementRefused) as refused:
        check_plan(plan)
    assert refused.value.construct == construct


def test_the_plan_check_passes_reads_and_the_allowlisted_procedure() -> None:
    check_plan(Plan("r", [("ProcedureCall", "db.index.fulltext.queryNodes($a, $b) :: (node :: NODE)")]))
    check_plan(Plan("r", [("ProduceResults", ""), ("Top", ""), ("NodeByLabelScan", "r:Record")]))


def test_sandbox_errors_keep_a_fixed_message_and_drop_the_database_text() -> None:
    data = sandbox_error("Neo.ClientError.Statement.SyntaxError", "22007")
    assert isinstance(data, MemoryInvalidError) and data.detail == {"cause": "data"}
    syntax = sandbox_error("Neo.ClientError.Statement.SyntaxError", "42001")
    assert syntax.message == "The statement is not valid Cypher." and syntax.detail == {"cause": "syntax"}
    memory = sandbox_error("Neo.TransientError.General.MemoryPoolOutOfMemoryError", "50N42")
    assert memory.detail == {"cause": "memory"}
    assert isinstance(sandbox_error("Neo.DatabaseError.General.UnknownError", None), UnavailableError)
