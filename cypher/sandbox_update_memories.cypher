// Query sandbox only: replaces the properties of memories that changed (renamed, described).
// Parameters: $rows (list of maps: the Memory's properties, with its id). Columns: none.
// Scope: runs on a query sandbox, never on the main database.
UNWIND $rows AS row
MATCH (m:Memory {id: row.id})
SET m = row
