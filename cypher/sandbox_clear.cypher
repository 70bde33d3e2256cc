// Query sandbox only: deletes a batch of nodes with their relationships, so a new copy of the same
// scope can be loaded; the caller repeats it until nothing is left.
// Parameters: $batch (int, nodes per transaction). Columns: deleted (int).
// Scope: runs on a query sandbox, never on the main database.
MATCH (n)
WITH n LIMIT $batch
DETACH DELETE n
RETURN count(*) AS deleted
