// Query sandbox only: creates the scope's Memory nodes, in the order given.
// Parameters: $rows (list of maps: id, name, description, created_at, updated_at, parent_id or null).
// Columns: none. Scope: runs on a query sandbox, never on the main database.
UNWIND $rows AS row
CREATE (m:Memory)
SET m = row
