// Drops the vector index so it can be rebuilt for a model of another dimension (re-embed command).
// Parameters: none. Columns: none.
DROP INDEX record_embedding IF EXISTS
