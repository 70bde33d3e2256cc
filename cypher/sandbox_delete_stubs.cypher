// Query sandbox only: removes stubs no reference of the newer copy names any more.
// Parameters: $ids (list of record ids). Columns: none.
// Scope: runs on a query sandbox, never on the main database.
UNWIND $ids AS id
MATCH (u:Unavailable {id: id})
DETACH DELETE u
