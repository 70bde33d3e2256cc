// Query sandbox only: the copy's Record nodes with the given ids, so that the fence around a query's
// rows can tell which values are whole records (and name their writers) and which the statement made.
// Parameters: $ids (record ids found in the rows). Columns: r (a Record node).
// Scope: runs on a query sandbox, never on the main database; reads only the copy it is given.
MATCH (r:Record) WHERE r.id IN $ids RETURN r
