// Query sandbox only: references between records of the scope, in the order given.
// Parameters: $rows (list of maps: from, to, rel, position). Columns: none.
// Scope: runs on a query sandbox, never on the main database.
UNWIND $rows AS row
MATCH (s:Record {id: row.from})
MATCH (t:Record {id: row.to})
CREATE (s)-[:REFERENCES {rel: row.rel, position: row.position}]->(t)
