// Query sandbox only: removes records the newer copy no longer holds, with their relationships.
// Parameters: $ids (list of record ids). Columns: none.
// Scope: runs on a query sandbox, never on the main database.
UNWIND $ids AS id
MATCH (r:Record {id: id})
DETACH DELETE r
