// Query sandbox only: the tree between the scope's memories (child to parent, both in the scope).
// Parameters: $rows (list of maps: id, parent_id). Columns: none.
// Scope: runs on a query sandbox, never on the main database.
UNWIND $rows AS row
MATCH (c:Memory {id: row.id})
MATCH (p:Memory {id: row.parent_id})
CREATE (c)-[:CHILD_OF]->(p)
