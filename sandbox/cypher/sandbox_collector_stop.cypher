// Query sandbox only, on every start: stops and empties Neo4j's query collector, which is on by
// default and would keep the texts of recent statements (other callers' included) where
// db.stats.retrieve() reads them. The gate refuses db.stats.* anyway; this keeps nothing to find.
// Parameters: none. Columns: stopped, cleared (booleans).
// Scope: runs on a query sandbox, never on the main database.
CALL db.stats.stop('QUERIES') YIELD success AS stopped
CALL db.stats.clear('QUERIES') YIELD success AS cleared
RETURN stopped, cleared
