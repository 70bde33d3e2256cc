// Query sandbox only: references that leave the scope, each to its target's Unavailable stub.
// Parameters: $rows (list of maps: from, to, rel, position). Columns: none.
// Scope: runs on a query sandbox, never on the main database.
UNWIND $rows AS row
MATCH (s:Record {id: row.from})
MATCH (t:Unavailable {id: row.to})
CREATE (s)-[:REFERENCES {rel: row.rel, position: row.position}]->(t)
